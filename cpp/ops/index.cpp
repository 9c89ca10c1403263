// index.cpp -- ops that select elements by position: StridedSlice (+ its scatter StridedSliceGrad),
// GatherV2 (+ its scatter-add UnsortedSegmentSum) and OneHot.
#include <cstring>
#include <limits>
#include "core/error.h"
#include "kernels/half.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/observer.h"
#include "kernels/copy.h"
#include "ops/half_rows.h"

namespace tg {

Tensor length_at_run_time(const Tensor& x, int64_t axis);  // sized_by_values.cpp

namespace {

// Note [Normalised slices]: StridedSlice takes one (begin, end, stride) per input dimension, already
// resolved by Python (no masks): stride != 0; for stride > 0, 0 <= begin, end <= n; for stride < 0,
// -1 <= begin, end <= n - 1 (end = -1 means "through index 0"), exactly what slice.indices(n) gives.
// Bit d of shrink_axis_mask drops dimension d (of length 1) from the output, as x[i] does.
struct SliceSpec {
  Shape out;                     // length of each sliced dimension (before shrinking)
  Shape shrunk;                  // the output shape
  int64_t offset = 0;            // first element, in elements (0 when the slice is empty)
  std::vector<int64_t> strides;  // in elements
  bool contiguous = true;        // the slice is one contiguous block of the input
};

// `described`: the input named in messages (null: its shape); the text is built only for an error.
SliceSpec slice_spec(const OpDef& op, const Shape& in, const Tensor* described, const Attrs& a) {
  auto what = [&] { return described ? meta_str(*described) : "shape " + shape_str(in); };
  auto b = a.ints("begin"), e = a.ints("end"), s = a.ints("strides");
  const size_t nd = in.size();
  if (b.size() != nd || e.size() != nd || s.size() != nd)
    throw InvalidArgument(cat(op.name, ": begin, end and strides need one entry per dimension of ", what(), ", got ",
                              b.size(), ", ", e.size(), " and ", s.size()));
  SliceSpec r;
  auto cs = contiguous_strides(in);
  bool empty = false;
  for (size_t d = 0; d < nd; ++d) {
    const int64_t n = in[d], lo = s[d] > 0 ? 0 : -1, hi = s[d] > 0 ? n : n - 1;
    if (s[d] == 0) throw InvalidArgument(cat(op.name, ": stride of dimension ", d, " is zero"));
    if (b[d] < lo || b[d] > hi || e[d] < lo || e[d] > hi)
      throw InvalidArgument(cat(op.name, ": begin ", b[d], " / end ", e[d], " out of range [", lo, ", ", hi,
                                "] for dimension ", d, " of ", what()));
    int64_t len = s[d] > 0 ? (e[d] > b[d] ? (e[d] - b[d] + s[d] - 1) / s[d] : 0)
                           : (b[d] > e[d] ? (b[d] - e[d] - s[d] - 1) / -s[d] : 0);
    r.out.push_back(len);
    r.strides.push_back(s[d] * cs[d]);
    r.offset += b[d] * cs[d];
    empty |= len == 0;
  }
  if (empty) r.offset = 0;
  const int64_t shrink = a.i("shrink_axis_mask", 0);
  for (size_t d = 0; d < nd; ++d) {
    if (d >= 63 || !(shrink >> d & 1)) r.shrunk.push_back(r.out[d]);
    else if (r.out[d] != 1)
      throw InvalidArgument(cat(op.name, ": shrink_axis_mask drops dimension ", d, " whose slice has length ", r.out[d]));
  }
  if (shrink < 0 || (nd < 63 && shrink >> nd))
    throw InvalidArgument(cat(op.name, ": shrink_axis_mask ", shrink, " names a dimension past the rank of ", what()));
  // Contiguous: leading length-1 dims, then one forward unit-stride dim, then whole dims.
  size_t k = 0;
  while (k < nd && r.out[k] == 1) ++k;
  if (k < nd && s[k] != 1) r.contiguous = false;
  for (size_t j = k + 1; j < nd; ++j)
    if (r.out[j] != in[j] || (s[j] != 1 && in[j] != 1)) r.contiguous = false;
  return r;
}

OutMeta slice_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  return {slice_spec(op, x[0]->shape, &x[0], a).shrunk, x[0]->dtype};
}

Tensor slice_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  SliceSpec sp = slice_spec(op, x[0]->shape, &x[0], a);
  const size_t es = dtype_size(m.dtype);
  if (sp.contiguous && num_elements(m.shape) > 0) {  // a view into the same storage
    Tensor v = view(x[0], m.shape);
    v->offset += (size_t)sp.offset * es;
    return v;
  }
  Tensor out = empty(m.shape, m.dtype);
  if (out->size) strided_copy((const char*)x[0]->data() + sp.offset * es, out->data(), es, sp.out, sp.strides);
  return out;
}

Shape grad_shape(const OpDef& op, const Attrs& a) {
  Shape s = a.ints("shape");
  for (int64_t d : s)
    if (d < 0) throw InvalidArgument(cat(op.name, ": invalid shape ", shape_str(s)));
  return s;
}

OutMeta slice_grad_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape s = grad_shape(op, a);
  SliceSpec sp = slice_spec(op, s, nullptr, a);
  if (sp.shrunk != x[0]->shape)
    throw InvalidArgument(cat(op.name, ": gradient ", meta_str(x[0]), " does not match the slice shape ", shape_str(sp.shrunk)));
  return {s, x[0]->dtype};
}

Tensor slice_grad_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  SliceSpec sp = slice_spec(op, m.shape, nullptr, a);
  Tensor out = zeros(m.shape, m.dtype);
  const size_t es = dtype_size(m.dtype);
  if (x[0]->size) strided_scatter(x[0]->data(), (char*)out->data() + sp.offset * es, es, sp.out, sp.strides);
  return out;
}

Attrs slice_attrs(const Attrs& a) {
  return Attrs().set("begin", a.ints("begin")).set("end", a.ints("end")).set("strides", a.ints("strides"))
      .set("shrink_axis_mask", a.i("shrink_axis_mask", 0));
}

// ---- GatherV2: params viewed as [B, P, N, inner], indices as [B, I], out as [B, P, I, inner].
struct GatherGeom {
  int axis, bd;
  int64_t B = 1, P = 1, N, I = 1, inner = 1;
  Shape out;
};

void check_index_dtype(const OpDef& op, const Tensor& t, const char* what) {
  if (!is_integer(t->dtype)) throw InvalidArgument(cat(op.name, ": ", what, " must be int32 or int64, got ", meta_str(t)));
}

// Every index in [0, n), checked before any kernel reads memory through it.
// what(): the text naming the indexed dimension, built only for an error.
template <class What>
void check_indices(const OpDef& op, const Tensor& idx, int64_t n, What what) {
  dispatch_dtype(idx->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* p = idx->data_as<T>();
      for (int64_t i = 0; i < idx->size; ++i)
        if (p[i] < 0 || (int64_t)p[i] >= n)
          throw InvalidArgument(cat(op.name, ": index ", (int64_t)p[i], " at position ", i, " is out of range [0, ",
                                    n, ") for ", what()));
    }
    return 0;
  });
}

GatherGeom gather_geom(const OpDef& op, const Tensor& params, const Tensor& idx, const Attrs& a) {
  check_index_dtype(op, idx, "indices");
  auto where = [&] { return cat(" for params ", meta_str(params), " and indices ", meta_str(idx)); };
  GatherGeom g;
  int64_t bd = a.i("batch_dims", 0), axis = a.i("axis", bd);
  if (bd < 0) bd += idx->ndim();
  if (bd < 0 || bd > idx->ndim()) throw InvalidArgument(cat(op.name, ": batch_dims ", a.i("batch_dims", 0), " is out of range", where()));
  if (axis < 0) axis += params->ndim();
  if (axis < 0 || axis >= params->ndim()) throw InvalidArgument(cat(op.name, ": axis ", a.i("axis", bd), " is out of range", where()));
  if (bd > axis) throw InvalidArgument(cat(op.name, ": batch_dims ", bd, " must be <= axis ", axis, where()));
  for (int d = 0; d < bd; ++d)
    if (params->shape[d] != idx->shape[d]) throw InvalidArgument(cat(op.name, ": batch dimension ", d, " differs", where()));
  g.axis = (int)axis;
  g.bd = (int)bd;
  g.N = params->shape[axis];
  for (int d = 0; d < params->ndim(); ++d) {
    int64_t n = params->shape[d];
    if (d < bd) g.B *= n;
    else if (d < axis) g.P *= n;
    else if (d > axis) g.inner *= n;
    if (d == axis) g.out.insert(g.out.end(), idx->shape.begin() + bd, idx->shape.end());
    else g.out.push_back(n);
  }
  for (int d = (int)bd; d < idx->ndim(); ++d) g.I *= idx->shape[d];
  return g;
}

OutMeta gather_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  return {gather_geom(op, x[0], x[1], a).out, x[0]->dtype};
}

template <class Idx>
void gather_rows(const GatherGeom& g, const char* src, const Idx* idx, char* dst, size_t row) {
  for (int64_t b = 0; b < g.B; ++b)
    for (int64_t p = 0; p < g.P; ++p) {
      const char* s = src + (b * g.P + p) * g.N * row;
      for (int64_t i = 0; i < g.I; ++i, dst += row) std::memcpy(dst, s + (int64_t)idx[b * g.I + i] * row, row);
    }
}

// The indices are checked here, at every run: a graph runs its shape rules only at the trace.
Tensor gather_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  GatherGeom g = gather_geom(op, x[0], x[1], a);
  check_indices(op, x[1], g.N, [&] { return cat("axis ", g.axis, " of params ", meta_str(x[0])); });
  Tensor out = empty(m.shape, m.dtype);
  if (!out->size) return out;
  const size_t row = g.inner * dtype_size(m.dtype);
  const char* src = (const char*)x[0]->data();
  if (x[1]->dtype == DType::Int32) gather_rows(g, src, x[1]->data_as<int32_t>(), (char*)out->data(), row);
  else gather_rows(g, src, x[1]->data_as<int64_t>(), (char*)out->data(), row);
  return out;
}

Tensor gather(const Tensor& params, const Tensor& idx, int64_t axis, int64_t batch_dims) {
  return call("GatherV2", {params, idx}, Attrs().set("axis", axis).set("batch_dims", batch_dims));
}

Tensor transpose_unless_identity(const Tensor& t, const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != (int64_t)i) return transpose(t, perm);
  return t;
}

// x's sizes along [begin, end) at run time: an int64 vector.
Tensor sizes_at_run_time(const Tensor& x, int64_t begin, int64_t end) {
  const Attrs a = Attrs().set("begin", std::vector<int64_t>{begin}).set("end", std::vector<int64_t>{end})
                      .set("strides", std::vector<int64_t>{1});
  return call("StridedSlice", {call("Shape", {x}, Attrs().set("out_type", (int64_t)DType::Int64))}, a);
}

Tensor int64_vector(const std::vector<int64_t>& v) {
  Tensor t = empty({(int64_t)v.size()}, DType::Int64);
  std::copy(v.begin(), v.end(), t->data_as<int64_t>());
  return t;
}

// The batched gather's gradient (below) in a trace whose sizes vary with values (Note [Sizes in traced
// rules]): the batch entry's offset (b * N), the segment count (B * N) and the shape the sums are
// unfolded to are read from params' and idx's run-time shapes. data is g with idx's axes after the batch's.
Tensor batched_gather_grad_at_run_time(const Tensor& data, const Tensor& params, const Tensor& idx, const GatherGeom& geo) {
  const int bd = geo.bd;
  const Tensor batch = sizes_at_run_time(params, 0, bd), n = length_at_run_time(params, geo.axis);
  const Tensor count = call("Prod", {batch}, Attrs().set("axis", std::vector<int64_t>{0}).set("keepdims", false));
  const Tensor starts = call("Range", {scalar(0, DType::Int64), count, scalar(1, DType::Int64)}) * n;
  const Tensor offsets = call("DynamicReshape",  // [batch..., 1, ...] as idx's rank
                              {cast(starts, idx->dtype),
                               concat({batch, int64_vector(std::vector<int64_t>(idx->ndim() - bd, 1))}, 0)});
  const Tensor s = call("UnsortedSegmentSum", {data, idx + offsets, cast(count * n, idx->dtype)},
                        Attrs().set("num_segments_input", (int64_t)1));
  // [B*N, pre, post] -> [batch, N, pre, post]
  const Tensor unfolded = concat({batch, call("Reshape", {n}, Attrs().set("shape", Shape{1})), sizes_at_run_time(s, 1, s->ndim())}, 0);
  return call("DynamicReshape", {s, unfolded});
}

// d gather / d params: scatter-add g back to the gathered rows. g is [batch, pre, ind, post]; move
// ind next to batch, fold (batch, index) into one segment id b * N + idx, sum, and move N back.
Tensors gather_grad(GradCtx& ctx) {
  if (!ctx.needs_grad[0]) return {nullptr, nullptr};
  const Tensor &params = ctx.x[0], &idx = ctx.x[1];
  GatherGeom geo = gather_geom(op_def("GatherV2"), params, idx, ctx.attrs);
  const int bd = geo.bd, k = idx->ndim() - bd, pre = geo.axis - bd, nd = ctx.g->ndim();
  std::vector<int64_t> perm;
  for (int d = 0; d < bd; ++d) perm.push_back(d);
  for (int d = 0; d < k; ++d) perm.push_back(geo.axis + d);
  for (int d = 0; d < pre; ++d) perm.push_back(bd + d);
  for (int d = geo.axis + k; d < nd; ++d) perm.push_back(d);
  Tensor data = transpose_unless_identity(ctx.g, perm), ids = idx;
  const bool at_run_time = bd > 0 && sizes_vary_with_values();
  if (bd > 0 && !at_run_time) {
    Shape oshape(idx->shape.begin(), idx->shape.begin() + bd);
    oshape.resize(idx->ndim(), 1);
    Tensor offsets = empty(oshape, idx->dtype);
    for (int64_t b = 0; b < geo.B; ++b)
      dispatch_dtype(idx->dtype, [&](auto v) { offsets->data_as<decltype(v)>()[b] = (decltype(v))(b * geo.N); return 0; });
    ids = idx + offsets;
  }
  // In a trace whose sizes vary with values, the sizes are read at run time (Note [Sizes in traced rules]).
  Tensor s = at_run_time ? batched_gather_grad_at_run_time(data, params, idx, geo)
             : sizes_vary_with_values() && bd == 0
                 ? call("UnsortedSegmentSumLike", {data, ids, params}, Attrs().set("axis", (int64_t)geo.axis))
                 : call("UnsortedSegmentSum", {data, ids}, Attrs().set("num_segments", geo.B * geo.N));
  if (bd > 0 && !at_run_time) {  // [B*N, pre, post] -> [batch, N, pre, post]
    Shape sh(params->shape.begin(), params->shape.begin() + bd);
    sh.push_back(geo.N);
    sh.insert(sh.end(), s->shape.begin() + 1, s->shape.end());
    s = reshape(s, sh);
  }
  std::vector<int64_t> back;  // [batch, N, pre, post] -> [batch, pre, N, post]
  for (int d = 0; d < bd; ++d) back.push_back(d);
  for (int d = 0; d < pre; ++d) back.push_back(bd + 1 + d);
  back.push_back(bd);
  for (int d = geo.axis + 1; d < params->ndim(); ++d) back.push_back(d);
  return {transpose_unless_identity(s, back), nullptr};
}

// ---- UnsortedSegmentSum(data, segment_ids; num_segments): out[s, ...] = sum over ids[i] == s of data[i, ...].
// num_segments is an attribute, or (num_segments_input set) a third input computed in a trace: the op
// is then value-shaped (tf.math.segment_sum of traced ids, whose count is segment_ids[-1] + 1).
bool num_segments_from_input(const Attrs& a) { return a.i("num_segments_input", 0) != 0; }

int64_t num_segments(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x.size() != (num_segments_from_input(a) ? 3u : 2u))
    throw InvalidArgument(cat(op.name, ": expected data, segment_ids", num_segments_from_input(a) ? " and num_segments" : "",
                              ", got ", x.size(), " inputs"));
  if (x.size() == 2) return a.i("num_segments", -1);
  if (!is_integer(x[2]->dtype) || x[2]->ndim() != 0)
    throw InvalidArgument(cat(op.name, ": num_segments must be an integer scalar, got ", meta_str(x[2])));
  return x[2]->dtype == DType::Int32 ? (int64_t)*x[2]->data_as<int32_t>() : *x[2]->data_as<int64_t>();
}

OutMeta segment_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const int64_t n = num_segments(op, x, a);
  const Tensor &data = x[0], &ids = x[1];
  check_index_dtype(op, ids, "segment_ids");
  if (data->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected numeric data, got ", meta_str(data)));
  if (n < 0) throw InvalidArgument(cat(op.name, ": num_segments must be given and >= 0, got ", n));
  if (ids->ndim() > data->ndim() || !std::equal(ids->shape.begin(), ids->shape.end(), data->shape.begin()))
    throw InvalidArgument(cat(op.name, ": segment_ids ", meta_str(ids), " must be a prefix of the shape of data ", meta_str(data)));
  Shape out{n};
  out.insert(out.end(), data->shape.begin() + ids->ndim(), data->shape.end());
  return {out, data->dtype};
}

// A negative id drops its row (as TF); n or more is an error, checked at every run (graphs run
// shape rules only at the trace) before anything is written.
void check_segment_ids(const OpDef& op, const Tensor& ids, int64_t n) {
  dispatch_dtype(ids->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* p = ids->data_as<T>();
      for (int64_t i = 0; i < ids->size; ++i)
        if ((int64_t)p[i] >= n)
          throw InvalidArgument(cat(op.name, ": segment_ids[", i, "] = ", (int64_t)p[i], " is out of range [0, ", n,
                                    ") (num_segments = ", n, ")"));
    }
    return 0;
  });
}

// Folds each row of data into its segment's row of the output: out starts as `init` (of the element
// type), then out[s] = fold(out[s], data[i]) for every i with ids[i] = s >= 0 (a negative id drops its row).
template <class Init, class Fold>
Tensor segment_fold(const OpDef& op, const Tensors& x, const OutMeta& m, Init init, Fold fold) {
  const Tensor &data = x[0], &ids = x[1];
  check_segment_ids(op, ids, m.shape.empty() ? 0 : m.shape[0]);
  Tensor out = empty(m.shape, m.dtype);
  const int64_t inner = num_elements(Shape(m.shape.begin() + 1, m.shape.end()));
  dispatch_dtype(m.dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* src = data->data_as<T>();
      T* dst = out->data_as<T>();
      std::fill(dst, dst + out->size, init(T()));
      for (int64_t i = 0; i < ids->size; ++i) {
        const int64_t s = ids->dtype == DType::Int32 ? ids->data_as<int32_t>()[i] : ids->data_as<int64_t>()[i];
        if (s < 0) continue;
        T* d = dst + s * inner;
        for (int64_t j = 0; j < inner; ++j) d[j] = fold(d[j], src[i * inner + j]);
      }
    }
    return 0;
  });
  return out;
}

Tensor segment_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  return segment_fold(op, x, m, [](auto zero) { return zero; }, [](auto acc, auto value) { return acc + value; });
}

// UnsortedSegmentSumLike(data, ids, like; axis): as UnsortedSegmentSum with num_segments read from
// like's run-time shape (like.shape[axis]; its values are not read). GatherV2's gradient in a trace
// whose sizes vary with values, where the gathered axis's traced length may change from call to call.
OutMeta segment_like_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const int64_t axis = a.i("axis", 0);
  if (axis < 0 || axis >= x[2]->ndim()) throw InvalidArgument(cat(op.name, ": axis ", axis, " is out of range for ", meta_str(x[2])));
  return segment_infer(op, {x[0], x[1]}, Attrs().set("num_segments", x[2]->shape[(size_t)axis]));
}

// ---- UnsortedSegmentMax / Min: as the sum, with TF's values for an empty segment (the lowest or
// highest finite value of the dtype); a NaN in a segment makes its result NaN.
template <bool IsMax>
Tensor segment_extreme_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  return segment_fold(op, x, m, [](auto zero) {
        using T = decltype(zero);
        return IsMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      },
      [](auto acc, auto value) {  // NaN stays once in; a NaN value takes over
        const bool nan_now = value != value, nan_before = acc != acc;
        return !nan_before && (nan_now || (IsMax ? value > acc : value < acc)) ? value : acc;
      });
}

// Each data row's row of `per_segment` ([num_segments, ...]), as a gather; zero for a row whose id is
// negative (dropped): gathered at 0, then masked. The segment ops' gradient rules are built on it.
Tensor segment_rows(const Tensor& per_segment, const Tensor& ids) {
  const Tensor zero = scalar(0.0, ids->dtype);
  const Tensor rows = gather(per_segment, call("Maximum", {ids, zero}), 0, 0);
  Tensor keep = call("GreaterEqual", {ids, zero});
  if (sizes_vary_with_values()) {  // ids' and rows' sizes may change from call to call
    for (int d = ids->ndim(); d < rows->ndim(); ++d) keep = call("ExpandDims", {keep}, Attrs().set("axis", (int64_t)d));
    return where(call("BroadcastLike", {keep, rows}), rows, zeros_like(rows));
  }
  Shape keep_shape = ids->shape;
  keep_shape.resize(rows->shape.size(), 1);
  keep = reshape(keep, keep_shape);
  return where(broadcast_to(keep, rows->shape), rows, zeros_like(rows));
}

Tensor segment_prod_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  return segment_fold(op, x, m, [](auto zero) { return decltype(zero)(1); },
                      [](auto acc, auto value) { return acc * value; });
}

// d prod / d x_i is the product of the segment's other entries, without dividing by x_i: with one zero
// in a segment only that entry gets a gradient (the product of the rest), with two or more none does.
// data with the op's segment ids (and its num_segments input, if it has one).
Tensors segment_inputs(const GradCtx& ctx, const Tensor& data) {
  Tensors x = ctx.x.vec();
  x[0] = data;
  return x;
}

Tensors segment_prod_grad(GradCtx& ctx) {
  const Tensor &data = ctx.x[0], &ids = ctx.x[1];
  const Tensor is_zero = equal(data, zeros_like(data));
  const Tensor zeros_in = call("UnsortedSegmentSum", segment_inputs(ctx, cast(is_zero, data->dtype)), ctx.attrs);
  const Tensor nonzero = where(is_zero, ones_like(data), data);
  const Tensor nonzero_prod = call("UnsortedSegmentProd", segment_inputs(ctx, nonzero), ctx.attrs);
  const Tensor others = where(is_zero, segment_rows(nonzero_prod, ids), segment_rows(ctx.out, ids) / nonzero);
  const Tensor g = where(greater(zeros_in, scalar_like(zeros_in, 1.0)), zeros_like(ctx.g), ctx.g);
  return {segment_rows(g, ids) * others, nullptr};
}

// The gradient goes to the entries equal to their segment's result, shared equally among ties (TF's rule):
// selected / (selected per segment), times the segment's g.
Tensors segment_extreme_grad(GradCtx& ctx) {
  const Tensor &data = ctx.x[0], &ids = ctx.x[1];
  // (a dropped row's gathered result is 0, so it may compare equal: the mask of segment_rows below zeroes it)
  const Tensor selected = cast(equal(data, segment_rows(ctx.out, ids)), data->dtype);
  const Tensor count = call("UnsortedSegmentSum", segment_inputs(ctx, selected), ctx.attrs);
  return {selected * segment_rows(ctx.g / count, ids), nullptr};
}

// ---- OneHot(indices; depth, on_value, off_value, axis, dtype).
OutMeta one_hot_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_index_dtype(op, x[0], "indices");
  const int64_t depth = a.i("depth", -1), axis = a.i("axis", -1), dt = a.i("dtype", 0);
  if (depth < 0) throw InvalidArgument(cat(op.name, ": depth must be given and >= 0, got ", depth));
  if (axis < -1 || axis > x[0]->ndim())
    throw InvalidArgument(cat(op.name, ": axis ", axis, " is out of range for indices ", meta_str(x[0])));
  if (!is_valid_dtype((int)dt) || dt != (int64_t)(int)dt) throw InvalidArgument(cat(op.name, ": invalid dtype code ", dt));
  Shape s = x[0]->shape;
  s.insert(s.begin() + (axis < 0 ? s.size() : (size_t)axis), depth);
  return {s, (DType)dt};
}

// out[o, d, i] = on if indices[o, i] == d else off (indices out of [0, depth) give a row of off).
Tensor one_hot_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (is_half(m.dtype)) {  // the float32 result rounded (on and off values are rounded once)
    return rounded_half(one_hot_kernel(op, x, a, {m.shape, DType::Float32}), m.dtype);
  }
  Tensor out = empty(m.shape, m.dtype);
  const int64_t depth = a.i("depth"), ax = a.i("axis", -1), axis = ax < 0 ? x[0]->ndim() : ax;
  int64_t inner = 1;
  for (int d = (int)axis; d < x[0]->ndim(); ++d) inner *= x[0]->shape[d];
  const int64_t outer = inner ? x[0]->size / inner : 0;
  dispatch_real(m.dtype, [&](auto v) {
    using T = decltype(v);
    const T on = value_in<T>(a.f("on_value", 1.0)), off = value_in<T>(a.f("off_value", 0.0));
    T* p = out->data_as<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t d = 0; d < depth; ++d)
        for (int64_t i = 0; i < inner; ++i, ++p) {
          int64_t k = o * inner + i;
          int64_t idx = x[0]->dtype == DType::Int32 ? x[0]->data_as<int32_t>()[k] : x[0]->data_as<int64_t>()[k];
          *p = idx == d ? on : off;
        }
    return 0;
  });
  return out;
}

}  // namespace

void register_index_ops() {
  // d slice / dx: g scattered into zeros at the sliced positions
  def_op("StridedSlice").also_types(kAllTypes).shape(slice_infer).forward(slice_kernel)
      .gradient([](GradCtx& ctx) -> Tensors {
        return {call("StridedSliceGrad", {ctx.g}, slice_attrs(ctx.attrs).set("shape", ctx.x[0]->shape))};
      })
      .jvp(linear_jvp("StridedSlice"));
  // linear in g: its gradient is the slice again
  def_op("StridedSliceGrad").shape(half_infer<slice_grad_infer>).forward(half_kernel<slice_grad_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("StridedSlice", {ctx.g}, slice_attrs(ctx.attrs))}; })
      .jvp(linear_jvp("StridedSliceGrad"));
  def_op("GatherV2").also_types(kAllTypes).inputs(2).shape(gather_infer).forward(gather_kernel).gradient(gather_grad)
      .jvp(linear_jvp("GatherV2"));
  // d segment_sum / d data: each row receives its segment's gradient
  def_op("UnsortedSegmentSum").inputs(-1).shape(half_infer<segment_infer>).shape_from_values(num_segments_from_input).forward(half_kernel<segment_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {segment_rows(ctx.g, ctx.x[1]), nullptr}; })
      .jvp(linear_jvp("UnsortedSegmentSum"));
  def_op("UnsortedSegmentSumLike").inputs(3).shape(half_infer<segment_like_infer>).forward(half_kernel<segment_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {segment_rows(ctx.g, ctx.x[1]), nullptr, nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
        return tx[0] ? call("UnsortedSegmentSumLike", {tx[0], x[1], x[2]}, a) : nullptr;
      });
  def_op("UnsortedSegmentMax").inputs(-1).shape(segment_infer).shape_from_values(num_segments_from_input).forward(segment_extreme_kernel<true>)
      .gradient(segment_extreme_grad);
  def_op("UnsortedSegmentMin").inputs(-1).shape(segment_infer).shape_from_values(num_segments_from_input).forward(segment_extreme_kernel<false>)
      .gradient(segment_extreme_grad);
  def_op("UnsortedSegmentProd").inputs(-1).shape(segment_infer).shape_from_values(num_segments_from_input).forward(segment_prod_kernel)
      .gradient(segment_prod_grad);
  def_op("OneHot").shape(one_hot_infer).forward(one_hot_kernel).not_differentiable();
}

}  // namespace tg
