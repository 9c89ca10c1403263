// sort.cpp -- ArgSort and SearchSorted. ArgSort: the indices that sort a tensor along one axis, the
// op under tf.sort, tf.argsort, tf.math.top_k and tf.random.shuffle (their values are gathers with these indices, so gradients
// flow through the gather). Attrs: axis (int, default -1), descending (bool), k (int, default -1: all):
// with k >= 0 only the first k indices of each line (tf.math.top_k), found by a partial sort.
//
// Note [Sort order]: the sort is stable in both directions (equal values keep their index order, as
// TF's argsort and top_k do), and it is a total order: NaN is larger than every number (last when
// ascending, first when descending; NumPy's rule). TF's result with NaN depends on its algorithm.
#include <algorithm>
#include <cmath>
#include <numeric>
#include "core/error.h"
#include "kernels/half.h"
#include "engine/registry.h"

namespace tg {

namespace {

int sort_axis(const OpDef& op, const Tensor& x, const Attrs& a) {
  const int64_t ax = a.i("axis", -1);
  if (x->ndim() == 0) throw InvalidArgument(cat(op.name, ": input must be at least 1-D, got ", meta_str(x)));
  if (ax < -x->ndim() || ax >= x->ndim())
    throw InvalidArgument(cat(op.name, ": axis ", ax, " is out of range for input ", meta_str(x)));
  return (int)(ax < 0 ? ax + x->ndim() : ax);
}

OutMeta argsort_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected a numeric tensor, got ", meta_str(x[0])));
  const int axis = sort_axis(op, x[0], a);
  const int64_t n = x[0]->shape[axis], k = a.i("k", -1);
  if (n > INT32_MAX)
    throw InvalidArgument(cat(op.name, ": the sorted axis of ", meta_str(x[0]), " is longer than int32 indices reach"));
  Shape out = x[0]->shape;
  if (k >= 0) {
    if (axis != x[0]->ndim() - 1) throw InvalidArgument(cat(op.name, ": k is only for the last axis"));
    if (n >= 0 && k > n)
      throw InvalidArgument(cat(op.name, ": input must have at least k columns. Had ", n, ", needed ", k));
    out[axis] = k;
  }
  return {out, DType::Int32};
}

template <class T>
bool nan_value(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  return false;
}

// Sorts each line along the axis: `outer` lines of `n` values, `inner` apart; keeps the first `keep`
// (n: all) of each line, `keep` apart in out.
template <class T>
void argsort_lines(const T* x, int32_t* out, int64_t outer, int64_t n, int64_t inner, bool descending, int64_t keep) {
  std::vector<int32_t> idx((size_t)n);
  std::vector<T> line((size_t)n);
  // a before b: a is smaller (larger when descending); NaN is larger than any number; equal values in
  // index order, so that the partial sort gives what the stable one does.
  auto before = [&](int32_t i, int32_t j) {
    const T a = line[i], b = line[j];
    const bool na = nan_value(a), nb = nan_value(b);
    if (na || nb) return na == nb ? i < j : descending ? na : nb;
    if (a == b) return i < j;
    return descending ? a > b : a < b;
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < inner; ++k) {
      const int64_t base = o * n * inner + k, out_base = o * keep * inner + k;
      for (int64_t i = 0; i < n; ++i) line[i] = x[base + i * inner];
      std::iota(idx.begin(), idx.end(), 0);
      if (keep < n) std::partial_sort(idx.begin(), idx.begin() + keep, idx.end(), before);
      else std::sort(idx.begin(), idx.end(), before);
      for (int64_t i = 0; i < keep; ++i) out[out_base + i * inner] = idx[i];
    }
}

Tensor argsort_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  const Tensor t = widened_if_half(x[0]);  // the same order
  const int axis = sort_axis(op, t, a);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= t->shape[i];
  for (int i = axis + 1; i < t->ndim(); ++i) inner *= t->shape[i];
  Tensor out = empty(m.shape, DType::Int32);
  dispatch_real(t->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>)
      argsort_lines(t->data_as<T>(), out->data_as<int32_t>(), outer, t->shape[axis], inner, a.b("descending"),
                    m.shape[axis]);
    return 0;
  });
  return out;
}

// SearchSorted(sorted [..., n], values [..., m]; right, out_type): per row, the index where each value
// would be inserted to keep the row sorted (std::lower_bound, or std::upper_bound when right), as TF's
// LowerBound / UpperBound. Both are read as rows of their last axis, and must have as many rows.
OutMeta search_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const Tensor &s = x[0], &v = x[1];
  if (s->dtype != v->dtype || s->dtype == DType::Bool)
    throw InvalidArgument(cat(op.name, ": sorted_sequence ", meta_str(s), " and values ", meta_str(v),
                              " must be numeric tensors of one dtype"));
  if (s->ndim() == 0 || v->ndim() == 0)
    throw InvalidArgument(cat(op.name, ": sorted_sequence ", meta_str(s), " and values ", meta_str(v), " must be at least 1-D"));
  // As TF: both are read as 2-D (rows of their last axis), with as many rows each.
  const int64_t s_rows = num_elements(Shape(s->shape.begin(), s->shape.end() - 1));
  const int64_t v_rows = num_elements(Shape(v->shape.begin(), v->shape.end() - 1));
  if (s_rows != v_rows)
    throw InvalidArgument(cat(op.name, ": sorted_sequence ", meta_str(s), " and values ", meta_str(v),
                              " must have as many rows (the product of their leading dimensions)"));
  const int64_t ot = a.i("out_type", (int64_t)DType::Int32);
  if (ot != (int64_t)DType::Int32 && ot != (int64_t)DType::Int64)
    throw InvalidArgument(cat(op.name, ": out_type must be int32 or int64, got dtype code ", ot));
  return {v->shape, (DType)ot};
}

Tensor search_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  const Tensor &s = x[0], &v = x[1];
  Tensor out = empty(m.shape, m.dtype);
  const int64_t n = s->shape.back();
  const bool right = a.b("right");
  dispatch_dtype(s->dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* sorted = s->data_as<T>();
      const T* values = v->data_as<T>();
      const int64_t lines = num_elements(Shape(s->shape.begin(), s->shape.end() - 1));
      const int64_t count = v->shape.back();
      for (int64_t r = 0; r < lines; ++r) {
        const T* row = sorted + r * n;
        for (int64_t j = 0; j < count; ++j) {
          const T value = values[r * count + j];
          const int64_t at = (right ? std::upper_bound(row, row + n, value) : std::lower_bound(row, row + n, value)) - row;
          if (m.dtype == DType::Int32) out->data_as<int32_t>()[r * count + j] = (int32_t)at;
          else out->data_as<int64_t>()[r * count + j] = at;
        }
      }
    }
    return 0;
  });
  return out;
}

}  // namespace

void register_sort_ops() {
  def_op("SearchSorted").inputs(2).shape(search_infer).forward(search_kernel).not_differentiable();
  def_op("ArgSort").also_types(kNarrowInts | kHalfTypes).inputs(1).shape(argsort_infer).forward(argsort_kernel).not_differentiable();
}

}  // namespace tg
