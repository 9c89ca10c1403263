// set_ops.cpp -- ops that read sizes or positions from values: the parts of tf.unique (UniqueValues,
// UniqueIndex, UniqueCount), the row positions tf.dynamic_partition and tf.dynamic_stitch gather with
// (PartitionPositions, StitchSources), and TF's BroadcastArgs, UnravelIndex and HistogramFixedWidth.
// None has a gradient: their results are indices, counts and shapes. The values dynamic_partition
// and dynamic_stitch move are moved by GatherV2 (python/tapegrad/_ops/array/unique_partition.py), whose rule
// gives their gradients.
//
// Note [Value-shaped set ops]: UniqueValues, PartitionPositions and StitchSources have
// as many rows as the values say (distinct values, members of a partition, largest index + 1): they
// are declared .shape_from_values (Note [Value-shaped ops] in registry.h), so a trace relaxes its
// graph and one graph serves every value. Their shape rules read the values, so one call scans its
// input twice (shape rule, then kernel). Each check of a value is made by the kernels too (a graph
// that is not relaxed runs only kernels).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include "core/error.h"
#include "engine/registry.h"

namespace tg {

namespace {

bool always(const Attrs&) { return true; }

void check_integer(const OpDef& op, const Tensor& t, const char* what) {
  if (!is_integer(t->dtype)) throw InvalidArgument(cat(op.name, ": ", what, " must be int32 or int64, got ", meta_str(t)));
}

int64_t int_at(const Tensor& t, int64_t i) {
  return t->dtype == DType::Int32 ? (int64_t)t->data_as<int32_t>()[i] : t->data_as<int64_t>()[i];
}

// An index dtype attribute (out_idx): int32 (the default) or int64.
DType index_dtype(const OpDef& op, const Attrs& a, const char* name) {
  const int64_t code = a.i(name, (int64_t)DType::Int32);
  if (code != (int64_t)DType::Int32 && code != (int64_t)DType::Int64)
    throw InvalidArgument(cat(op.name, ": ", name, " must be int32 or int64, got dtype code ", code));
  return (DType)code;
}

// int32 positions while they fit, int64 beyond.
DType positions_dtype(int64_t n) { return n <= INT32_MAX ? DType::Int32 : DType::Int64; }

void put_index(const Tensor& out, int64_t i, int64_t v) {
  if (out->dtype == DType::Int32) out->data_as<int32_t>()[i] = (int32_t)v;
  else out->data_as<int64_t>()[i] = v;
}

// ---- UniqueValues(x) and UniqueIndex(x; out_idx): first-appearance numbering of a 1-D x.
// id[i] is the number of distinct values seen before x[i]'s first appearance; first[k] is the position
// of the k-th distinct value. -0 and +0 are one value; every NaN is a value of its own (NaN != NaN,
// as in TF's hash table).
struct Numbering {
  std::vector<int64_t> id, first;
};

template <class T>
Numbering number_values(const T* x, int64_t n) {
  Numbering r;
  r.id.resize((size_t)n);
  std::unordered_map<T, int64_t> seen;
  seen.reserve((size_t)n);
  for (int64_t i = 0; i < n; ++i) {
    T v = x[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (v != v) {
        r.id[i] = (int64_t)r.first.size();
        r.first.push_back(i);
        continue;
      }
      // -0 and subnormals -> +0: kernels read a subnormal as 0 (Note [Flush denormals]) and the shape
      // rule, run outside them, must count the same values
      if (std::abs(v) < std::numeric_limits<T>::min()) v = 0;
    }
    auto [at, fresh] = seen.try_emplace(v, (int64_t)r.first.size());
    if (fresh) r.first.push_back(i);
    r.id[i] = at->second;
  }
  return r;
}

Numbering numbering(const OpDef& op, const Tensor& x) {
  if (x->ndim() != 1) throw InvalidArgument(cat(op.name, ": x must be 1-D (unique expects a 1-D vector), got ", meta_str(x)));
  return dispatch_dtype(x->dtype, [&](auto v) { return number_values(x->data_as<decltype(v)>(), x->size); });
}

OutMeta unique_values_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  return {{(int64_t)numbering(op, x[0]).first.size()}, x[0]->dtype};
}

Tensor unique_values_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Numbering r = numbering(op, x[0]);
  if ((int64_t)r.first.size() != m.shape[0])
    throw Internal(cat(op.name, ": ", r.first.size(), " values for ", shape_str(m.shape)));
  Tensor out = empty(m.shape, m.dtype);
  const size_t es = dtype_size(m.dtype);
  const char* src = static_cast<const char*>(x[0]->data());
  char* dst = static_cast<char*>(out->data());
  for (size_t k = 0; k < r.first.size(); ++k) std::memcpy(dst + k * es, src + (size_t)r.first[k] * es, es);
  return out;
}

OutMeta unique_index_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->ndim() != 1)
    throw InvalidArgument(cat(op.name, ": x must be 1-D (unique expects a 1-D vector), got ", meta_str(x[0])));
  const DType dt = index_dtype(op, a, "out_idx");
  if (dt == DType::Int32 && x[0]->size > INT32_MAX)
    throw InvalidArgument(cat(op.name, ": ", meta_str(x[0]), " has more values than int32 indices reach (use int64)"));
  return {x[0]->shape, dt};
}

Tensor unique_index_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Numbering r = numbering(op, x[0]);
  Tensor out = empty(m.shape, m.dtype);
  for (int64_t i = 0; i < x[0]->size; ++i) put_index(out, i, r.id[i]);
  return out;
}

// UniqueCount(idx, y; out_idx): how many entries of idx (UniqueIndex's result) hold each position of
// y (UniqueValues' result): one pass over idx, sized by y (so not value-shaped itself).
OutMeta unique_count_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_integer(op, x[0], "idx");
  if (x[0]->ndim() != 1 || x[1]->ndim() != 1)
    throw InvalidArgument(cat(op.name, ": idx ", meta_str(x[0]), " and y ", meta_str(x[1]), " must be 1-D"));
  return {{x[1]->size}, index_dtype(op, a, "out_idx")};
}

Tensor unique_count_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  std::vector<int64_t> counts((size_t)m.shape[0], 0);
  for (int64_t i = 0; i < x[0]->size; ++i) {
    const int64_t k = int_at(x[0], i);
    if (k < 0 || k >= m.shape[0])
      throw InvalidArgument(cat(op.name, ": idx[", i, "] = ", k, " is out of range [0, ", m.shape[0], ")"));
    ++counts[(size_t)k];
  }
  Tensor out = empty(m.shape, m.dtype);
  for (size_t k = 0; k < counts.size(); ++k) put_index(out, (int64_t)k, counts[k]);
  return out;
}

// ---- PartitionPositions(partitions; num_partitions, partition): the flat positions i, ascending,
// with partitions[i] == partition; every entry must be in [0, num_partitions) (tf.dynamic_partition's
// rows of one partition are data's rows at these positions).
int64_t partition_members(const OpDef& op, const Tensor& p, const Attrs& a) {
  check_integer(op, p, "partitions");
  const int64_t parts = a.i("num_partitions", 0), which = a.i("partition", 0);
  if (parts < 1) throw InvalidArgument(cat(op.name, ": num_partitions must be at least 1, got ", parts));
  if (which < 0 || which >= parts)
    throw InvalidArgument(cat(op.name, ": partition ", which, " is not in [0, ", parts, ")"));
  int64_t count = 0;
  for (int64_t i = 0; i < p->size; ++i) {
    const int64_t v = int_at(p, i);
    if (v < 0 || v >= parts)
      throw InvalidArgument(cat(op.name, ": partitions[", i, "] = ", v, " is not in [0, ", parts, ")"));
    count += v == which;
  }
  return count;
}

OutMeta partition_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  return {{partition_members(op, x[0], a)}, positions_dtype(x[0]->size)};
}

Tensor partition_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (partition_members(op, x[0], a) != m.shape[0]) throw Internal(cat(op.name, ": row count changed"));
  Tensor out = empty(m.shape, m.dtype);
  const int64_t which = a.i("partition", 0);
  for (int64_t i = 0, k = 0; i < x[0]->size; ++i)
    if (int_at(x[0], i) == which) put_index(out, k++, i);
  return out;
}

// ---- StitchSources(indices): for each row r of tf.dynamic_stitch's result (the largest index + 1
// rows), the last position k of the flat indices with indices[k] == r (later data win, as in TF), or
// n = indices.size where no index names r (the caller appends a zero row to the data at n).
int64_t stitch_rows(const OpDef& op, const Tensor& idx) {
  check_integer(op, idx, "indices");
  int64_t rows = 0;
  for (int64_t k = 0; k < idx->size; ++k) {
    const int64_t v = int_at(idx, k);
    if (v < 0) throw InvalidArgument(cat(op.name, ": indices[", k, "] = ", v, " is out of range (negative)"));
    rows = std::max(rows, v + 1);
  }
  return rows;
}

OutMeta stitch_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  return {{stitch_rows(op, x[0])}, positions_dtype(x[0]->size + 1)};
}

Tensor stitch_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  if (stitch_rows(op, x[0]) != m.shape[0]) throw Internal(cat(op.name, ": row count changed"));
  std::vector<int64_t> source((size_t)m.shape[0], x[0]->size);
  for (int64_t k = 0; k < x[0]->size; ++k) source[(size_t)int_at(x[0], k)] = k;
  Tensor out = empty(m.shape, m.dtype);
  for (int64_t r = 0; r < m.shape[0]; ++r) put_index(out, r, source[(size_t)r]);
  return out;
}

// ---- BroadcastArgs(s0, s1): the shape two shapes broadcast to (tf.broadcast_dynamic_shape), as TF:
// aligned from the right, equal dimensions stay, a 1 takes the other's; anything else is an error.
OutMeta broadcast_args_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  const Tensor &s0 = x[0], &s1 = x[1];
  check_integer(op, s0, "s0");
  if (s1->dtype != s0->dtype)
    throw InvalidArgument(cat(op.name, ": s0 ", meta_str(s0), " and s1 ", meta_str(s1), " must have one dtype"));
  for (const Tensor& s : x)
    if (s->ndim() != 1) throw InvalidArgument(cat(op.name, ": shapes must be vectors, got ", meta_str(s)));
  return {{std::max(s0->size, s1->size)}, s0->dtype};
}

std::string shape_values(const Tensor& s) {
  std::string out = "[";
  for (int64_t i = 0; i < s->size; ++i) out += (i ? "," : "") + std::to_string(int_at(s, i));
  return out + "]";
}

Tensor broadcast_args_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Tensor &s0 = x[0], &s1 = x[1];
  const int64_t n = m.shape[0];
  Tensor out = empty(m.shape, m.dtype);
  for (int64_t i = 0; i < n; ++i) {  // i-th dimension from the left of the result
    const int64_t i0 = i - (n - s0->size), i1 = i - (n - s1->size);
    const int64_t a = i0 >= 0 ? int_at(s0, i0) : 1, b = i1 >= 0 ? int_at(s1, i1) : 1;
    if (a != b && a != 1 && b != 1)
      throw InvalidArgument(cat(op.name, ": Incompatible shapes: ", shape_values(s0), " vs. ", shape_values(s1)));
    put_index(out, i, a == 1 ? b : a);
  }
  return out;
}

// ---- UnravelIndex(indices, dims): the coordinates of flat indices (a scalar or a vector) into an
// array of shape dims, [len(dims)] + indices.shape, as TF: C's truncating / and %, so a negative
// index gives negative coordinates; an index >= prod(dims) is an error.
OutMeta unravel_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  const Tensor &idx = x[0], &dims = x[1];
  check_integer(op, idx, "indices");
  if (dims->dtype != idx->dtype)
    throw InvalidArgument(cat(op.name, ": indices ", meta_str(idx), " and dims ", meta_str(dims), " must have one dtype"));
  if (idx->ndim() > 1) throw InvalidArgument(cat(op.name, ": indices must be a scalar or a vector, got ", meta_str(idx)));
  if (dims->ndim() != 1) throw InvalidArgument(cat(op.name, ": dims must be 1-D, got ", meta_str(dims)));
  Shape out{dims->size};
  out.insert(out.end(), idx->shape.begin(), idx->shape.end());
  return {out, idx->dtype};
}

Tensor unravel_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Tensor &idx = x[0], &dims = x[1];
  if (idx->size == 0) throw InvalidArgument(cat(op.name, ": received empty indices ", meta_str(idx)));
  const int64_t k = dims->size, limit = idx->dtype == DType::Int32 ? INT32_MAX : INT64_MAX;
  std::vector<int64_t> stride((size_t)k, 1);
  int64_t total = 1;
  for (int64_t d = k - 1; d >= 0; --d) {
    const int64_t n = int_at(dims, d);
    if (n < 0) throw InvalidArgument(cat(op.name, ": dims cannot be negative, got ", n, " at index ", d));
    if (n == 0) throw InvalidArgument(cat(op.name, ": dims cannot contain a dimension of zero, got one at index ", d));
    stride[(size_t)d] = total;
    if (total > limit / n)
      throw InvalidArgument(cat(op.name, ": the product of dims ", shape_values(dims), " overflows ", dtype_name(idx->dtype)));
    total *= n;
  }
  for (int64_t i = 0; i < idx->size; ++i)
    if (int_at(idx, i) >= total)
      throw InvalidArgument(cat(op.name, ": index ", int_at(idx, i), " is out of bounds for dims ", shape_values(dims)));
  Tensor out = empty(m.shape, m.dtype);
  for (int64_t d = 0; d < k; ++d)
    for (int64_t i = 0; i < idx->size; ++i)
      put_index(out, d * idx->size + i, int_at(idx, i) / stride[(size_t)d] % int_at(dims, d));
  return out;
}

// ---- HistogramFixedWidth(values, value_range; nbins, dtype): counts of values in nbins equal bins
// over value_range [lo, hi], as TF's kernel computes them: with step = (hi - lo) / nbins in double,
// value v goes to bin min((max(v, lo) - lo) / step, nbins - 1) truncated (the subtraction in the
// values' dtype, wrapping for integers, so values below lo count in the first bin and values at or
// above hi in the last). NaN values and lo >= hi are errors.
OutMeta histogram_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const Tensor &v = x[0], &range = x[1];
  if (v->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": values must be numeric, got ", meta_str(v)));
  if (range->dtype != v->dtype)
    throw InvalidArgument(cat(op.name, ": value_range ", meta_str(range), " must have the dtype of values ", meta_str(v)));
  if (range->ndim() != 1 || range->size != 2)
    throw InvalidArgument(cat(op.name, ": value_range must be a vector of 2 elements, got ", meta_str(range)));
  const int64_t nbins = a.i("nbins", 0);
  if (nbins <= 0) throw InvalidArgument(cat(op.name, ": nbins must be a positive number, got ", nbins));
  return {{nbins}, index_dtype(op, a, "dtype")};
}

template <class T>
T wrapping_sub(T a, T b) {
  if constexpr (std::is_integral_v<T>) return (T)((std::make_unsigned_t<T>)a - (std::make_unsigned_t<T>)b);
  else return a - b;
}

template <class T>
void histogram_counts(const OpDef& op, const T* v, int64_t n, T lo, T hi, int64_t nbins, std::vector<int64_t>& counts) {
  if (!(lo < hi))
    throw InvalidArgument(cat(op.name, ": value_range should satisfy value_range[0] < value_range[1], got [", lo, ", ",
                              hi, "]"));
  const double step = (double)wrapping_sub(hi, lo) / (double)nbins, last = (double)(nbins - 1);
  for (int64_t i = 0; i < n; ++i) {
    if (v[i] != v[i]) throw InvalidArgument(cat(op.name, ": histogram values must not contain NaN"));
    const double at = std::min((double)wrapping_sub(std::max(v[i], lo), lo) / step, last);
    ++counts[(size_t)std::clamp<double>(at, 0.0, last)];  // (>= 0 but for integer wraparound, as TF)
  }
}

Tensor histogram_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  std::vector<int64_t> counts((size_t)m.shape[0], 0);
  dispatch_dtype(x[0]->dtype, [&](auto t) {
    using T = decltype(t);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* r = x[1]->data_as<T>();
      histogram_counts(op, x[0]->data_as<T>(), x[0]->size, r[0], r[1], m.shape[0], counts);
    }
    return 0;
  });
  Tensor out = empty(m.shape, m.dtype);
  for (size_t k = 0; k < counts.size(); ++k) put_index(out, (int64_t)k, counts[k]);
  return out;
}

}  // namespace

void register_set_ops() {
  def_op("UniqueValues").inputs(1).shape(unique_values_infer).forward(unique_values_kernel).shape_from_values(always)
      .not_differentiable();
  def_op("UniqueIndex").inputs(1).shape(unique_index_infer).forward(unique_index_kernel).not_differentiable();
  def_op("UniqueCount").inputs(2).shape(unique_count_infer).forward(unique_count_kernel).not_differentiable();
  def_op("PartitionPositions").inputs(1).shape(partition_infer).forward(partition_kernel).shape_from_values(always)
      .not_differentiable();
  def_op("StitchSources").inputs(1).shape(stitch_infer).forward(stitch_kernel).shape_from_values(always)
      .not_differentiable();
  def_op("BroadcastArgs").inputs(2).shape(broadcast_args_infer).forward(broadcast_args_kernel).not_differentiable();
  def_op("UnravelIndex").inputs(2).shape(unravel_infer).forward(unravel_kernel).not_differentiable();
  def_op("HistogramFixedWidth").inputs(2).shape(histogram_infer).forward(histogram_kernel).not_differentiable();
}

}  // namespace tg
