// sort.cpp -- ArgSort: the indices that sort a tensor along one axis, the op under tf.sort, tf.argsort,
// tf.math.top_k and tf.random.shuffle (their values are gathers with these indices, so gradients
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
  const Tensor& t = x[0];
  const int axis = sort_axis(op, t, a);
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= t->shape[i];
  for (int i = axis + 1; i < t->ndim(); ++i) inner *= t->shape[i];
  Tensor out = empty(m.shape, DType::Int32);
  dispatch_dtype(t->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>)
      argsort_lines(t->data_as<T>(), out->data_as<int32_t>(), outer, t->shape[axis], inner, a.b("descending"),
                    m.shape[axis]);
    return 0;
  });
  return out;
}

}  // namespace

void register_sort_ops() {
  def_op("ArgSort").inputs(1).shape(argsort_infer).forward(argsort_kernel).not_differentiable();
}

}  // namespace tg
