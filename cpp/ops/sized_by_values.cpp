// sized_by_values.cpp -- ops whose result's shape is read from tensor values, so that a tf.function
// computes it at every call: Where (the positions of true entries: tf.where with one argument, and
// tf.boolean_mask), Range (tf.range with tensor bounds) and Fill (tf.fill, zeros and ones given a
// shape tensor). And three ops whose result's shape follows their input's at run time, so that they
// serve the results of the ops above, where Python code holding the traced sizes would not: ReverseV2
// (unlike a slice with stride -1, it resolves no length), ExpandDims and Squeeze (unlike a Reshape,
// they name no size).
//
// Each is declared .shape_from_values (Note [Value-shaped ops] in registry.h): a trace that
// records one relaxes its graph, and gradients and shapes after it are read at run time. Their
// shape rules read the values and check them; the kernels repeat each check a kernel needs (a
// graph that is not relaxed runs only kernels).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include "core/error.h"
#include "core/flush_denormal.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/registry.h"
#include "kernels/copy.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

bool always(const Attrs&) { return true; }

// ---- Where(condition): int64 [true entries, rank], the coordinates of each non-zero entry in
// row-major order (NaN is non-zero, as in TF).
template <class T>
int64_t count_true(const T* p, int64_t n) {
  int64_t c = 0;
  for (int64_t i = 0; i < n; ++i) c += p[i] != T(0);
  return c;
}

int64_t true_entries(const Tensor& c) {
  ScopedFlushDenormal ftz;  // as the kernel counts (Note [Flush denormals]): a subnormal is 0, as in TF
  return dispatch_dtype(c->dtype, [&](auto v) { return count_true(c->data_as<decltype(v)>(), c->size); });
}

OutMeta where_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  if (x[0]->ndim() == 0) throw InvalidArgument(cat(op.name, ": condition must have rank 1 or more, got ", meta_str(x[0])));
  return {{true_entries(x[0]), (int64_t)x[0]->ndim()}, DType::Int64};
}

// TF's CPU Where takes bfloat16 but not float16 (UnimplementedError, as TF's "No WhereOp available").
OutMeta where_half_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype == DType::Float16) throw Unimplemented("Where: no WhereOp available for float16/half type on CPU");
  return half_infer<where_infer>(op, x, a);
}

Tensor where_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Tensor& c = x[0];
  const int rank = c->ndim();
  if (m.shape.size() != 2 || m.shape[0] != true_entries(c) || m.shape[1] != rank)
    throw Internal(cat(op.name, ": result shape ", shape_str(m.shape), " does not match ", meta_str(c)));
  Tensor out = empty(m.shape, DType::Int64);
  int64_t* dst = out->data_as<int64_t>();
  int64_t* const end = dst + out->size;
  std::vector<int64_t> at((size_t)rank, 0);  // the coordinates of entry i
  ScopedFlushDenormal ftz;  // the same test as true_entries' count
  dispatch_dtype(c->dtype, [&](auto v) {
    const auto* p = c->data_as<decltype(v)>();
    for (int64_t i = 0; i < c->size; ++i) {
      if (p[i] != decltype(v)(0) && dst != end) dst = std::copy(at.begin(), at.end(), dst);
      for (int d = rank - 1; d >= 0 && ++at[(size_t)d] == c->shape[(size_t)d]; --d) at[(size_t)d] = 0;
    }
    return 0;
  });
  return out;
}

// ---- Range(start, limit, delta): start, start + delta, ... up to limit (excluded), in their dtype.
// The length and the refusals are TF's Range kernel's.
void check_bounds(const OpDef& op, const Tensors& x) {
  static const char* names[] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    if (x[i]->ndim() != 0)
      throw InvalidArgument(cat(op.name, ": ", names[i], " must be a scalar, got ", meta_str(x[i])));
    if (x[i]->dtype != x[0]->dtype || x[i]->dtype == DType::Bool)
      throw InvalidArgument(cat(op.name, ": start, limit and delta must be numbers of one dtype, got ", meta_str(x[0]),
                                ", ", meta_str(x[1]), " and ", meta_str(x[2])));
  }
}

template <class T>
int64_t range_length(const OpDef& op, T start, T limit, T delta) {
  if (delta == T(0)) throw InvalidArgument(cat(op.name, ": Requires delta != 0: ", delta));
  if (delta > T(0) && !(start <= limit))
    throw InvalidArgument(cat(op.name, ": Requires start <= limit when delta > 0: ", start, "/", limit));
  if (delta < T(0) && !(start >= limit))
    throw InvalidArgument(cat(op.name, ": Requires start >= limit when delta < 0: ", start, "/", limit));
  if constexpr (std::is_integral_v<T>) {
    // |limit - start| may not fit T: count in unsigned arithmetic.
    const uint64_t span = start <= limit ? (uint64_t)limit - (uint64_t)start : (uint64_t)start - (uint64_t)limit;
    const uint64_t step = delta > 0 ? (uint64_t)delta : 0 - (uint64_t)delta;
    return (int64_t)(span / step + (span % step != 0));
  }
  const double n = std::ceil(std::fabs((double)((limit - start) / delta)));  // (in T, as TF)
  if (!(n <= 9.2e18))
    throw InvalidArgument(cat(op.name, ": Requires ((limit - start) / delta) <= ", std::numeric_limits<int64_t>::max(),
                              ", got start=", start, ", limit=", limit, ", delta=", delta));
  return (int64_t)n;
}

int64_t range_size(const OpDef& op, const Tensors& x) {
  check_bounds(op, x);
  return dispatch_dtype(x[0]->dtype, [&](auto v) -> int64_t {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return 0;
    else return range_length<T>(op, *x[0]->data_as<T>(), *x[1]->data_as<T>(), *x[2]->data_as<T>());
  });
}

OutMeta range_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  return {{range_size(op, x)}, x[0]->dtype};
}

Tensor range_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const int64_t n = range_size(op, x);
  if (m.shape.size() != 1 || m.shape[0] != n)
    throw Internal(cat(op.name, ": result shape ", shape_str(m.shape), " for ", n, " values"));
  Tensor out = empty(m.shape, m.dtype);
  dispatch_dtype(m.dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      const T start = *x[0]->data_as<T>(), delta = *x[2]->data_as<T>();
      T* dst = out->data_as<T>();
      for (int64_t i = 0; i < n; ++i) dst[i] = (T)(start + (T)i * delta);
    }
    return 0;
  });
  return out;
}

// ---- Fill(dims, value): value at every position of a tensor of shape dims.
// The entries of a 1-D int32/int64 tensor giving a shape (`what` names it in errors).
std::vector<int64_t> shape_values(const OpDef& op, const Tensor& s, const char* what = "shape") {
  if (!is_integer(s->dtype) || s->ndim() != 1)
    throw InvalidArgument(cat(op.name, ": ", what, " must be a vector of int32 or int64, got ", meta_str(s)));
  std::vector<int64_t> v((size_t)s->size);
  for (int64_t i = 0; i < s->size; ++i)
    v[(size_t)i] = s->dtype == DType::Int32 ? (int64_t)s->data_as<int32_t>()[i] : s->data_as<int64_t>()[i];
  return v;
}

Shape fill_dims(const OpDef& op, const Tensors& x) {
  if (x[1]->ndim() != 0) throw InvalidArgument(cat(op.name, ": value must be a scalar, got ", meta_str(x[1])));
  Shape s = shape_values(op, x[0], "dims");
  for (int64_t d : s)
    if (d < 0) throw InvalidArgument(cat(op.name, ": dims must not be negative, got ", shape_str(s)));
  num_elements(s);  // refuses an element count beyond int64
  return s;
}

OutMeta fill_infer(const OpDef& op, const Tensors& x, const Attrs&) { return {fill_dims(op, x), x[1]->dtype}; }

Tensor fill_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  if (fill_dims(op, x) != m.shape) throw Internal(cat(op.name, ": result shape ", shape_str(m.shape), " does not match dims"));
  Tensor out = empty(m.shape, m.dtype);
  const size_t es = dtype_size(m.dtype);
  char* dst = static_cast<char*>(out->data());
  for (int64_t i = 0; i < out->size; ++i) std::memcpy(dst + (size_t)i * es, x[1]->data(), es);
  return out;
}

// d fill / d value: the sum of g over the whole result.
Tensors fill_grad(GradCtx& ctx) {
  std::vector<int64_t> axes((size_t)ctx.g->ndim());
  for (size_t i = 0; i < axes.size(); ++i) axes[i] = (int64_t)i;
  return {nullptr, reduce_sum(ctx.g, axes, false)};
}

Tensor as_view(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) { return view(x[0], m.shape); }

// ---- ReverseV2(tensor; axis): the listed axes (non-negative, distinct) reversed.
std::vector<int64_t> reverse_axes(const OpDef& op, const Tensor& x, const Attrs& a) {
  std::vector<int64_t> axes = a.ints("axis");
  std::vector<bool> seen((size_t)x->ndim(), false);
  for (int64_t ax : axes) {
    if (ax < 0 || ax >= x->ndim())
      throw InvalidArgument(cat(op.name, ": axis ", ax, " is out of range for ", meta_str(x)));
    if (seen[(size_t)ax]) throw InvalidArgument(cat(op.name, ": axis ", ax, " is listed twice"));
    seen[(size_t)ax] = true;
  }
  return axes;
}

OutMeta reverse_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  reverse_axes(op, x[0], a);
  return {x[0]->shape, x[0]->dtype};
}

Tensor reverse_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  if (!out->size) return out;
  std::vector<int64_t> strides = contiguous_strides(x[0]->shape);
  int64_t start = 0;  // the element the copy reads first: the last along every reversed axis
  for (int64_t ax : reverse_axes(op, x[0], a)) {
    start += (x[0]->shape[(size_t)ax] - 1) * strides[(size_t)ax];
    strides[(size_t)ax] = -strides[(size_t)ax];
  }
  const size_t es = dtype_size(m.dtype);
  strided_copy(static_cast<const char*>(x[0]->data()) + (size_t)start * es, out->data(), es, m.shape, strides);
  return out;
}

Tensors reverse_grad(GradCtx& ctx) {
  std::vector<int64_t> axes = ctx.attrs.ints("axis");
  for (int64_t& ax : axes) ax += ctx.batch;
  return {call("ReverseV2", {ctx.g}, Attrs().set("axis", axes))};
}

// ---- ExpandDims(x; axis) and Squeeze(x; axis): a view with a 1 inserted at `axis` (0..rank), or with
// the listed axes (distinct, each of size 1) removed. Each one's gradient is the other.
OutMeta expand_dims_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const int64_t axis = a.i("axis");
  if (axis < 0 || axis > x[0]->ndim()) throw InvalidArgument(cat(op.name, ": axis ", axis, " is out of range for ", meta_str(x[0])));
  Shape s = x[0]->shape;
  s.insert(s.begin() + axis, 1);
  return {s, x[0]->dtype};
}

OutMeta squeeze_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  std::vector<bool> drop((size_t)x[0]->ndim(), false);
  for (int64_t ax : a.ints("axis")) {
    if (ax < 0 || ax >= x[0]->ndim() || drop[(size_t)ax] || x[0]->shape[(size_t)ax] != 1)
      throw InvalidArgument(cat(op.name, ": cannot squeeze axis ", ax, " of ", meta_str(x[0])));
    drop[(size_t)ax] = true;
  }
  Shape s;
  for (int d = 0; d < x[0]->ndim(); ++d)
    if (!drop[(size_t)d]) s.push_back(x[0]->shape[(size_t)d]);
  return {s, x[0]->dtype};
}

Tensors expand_dims_grad(GradCtx& ctx) {
  return {call("Squeeze", {ctx.g}, Attrs().set("axis", std::vector<int64_t>{ctx.attrs.i("axis") + ctx.batch}))};
}

// Re-inserting the squeezed axes in increasing order puts each back at its place.
Tensors squeeze_grad(GradCtx& ctx) {
  std::vector<int64_t> axes = ctx.attrs.ints("axis");
  std::sort(axes.begin(), axes.end());
  Tensor g = ctx.g;
  for (int64_t ax : axes) g = call("ExpandDims", {g}, Attrs().set("axis", ax + ctx.batch));
  return {g};
}

// ---- DynamicReshape(x, shape) and DynamicBroadcastTo(x, shape): Reshape and BroadcastTo with the
// target shape read from a 1-D integer tensor (tf.reshape(x, [tf.shape(x)[0], -1]) in a trace that
// serves every batch size), checked by their rules.
// The static op's rule or kernel, with the shape given as its attribute.
template <bool Kernel>
auto as_static(const char* name, const OpDef& op, const Tensors& x, const OutMeta* m = nullptr) {
  const OpDef& fixed = op_def(name);
  const Attrs a = Attrs().set("shape", shape_values(op, x[1]));
  if constexpr (Kernel) return fixed.kernel(fixed, {x[0]}, a, *m);
  else return fixed.infer(fixed, {x[0]}, a);
}

OutMeta dynamic_reshape_infer(const OpDef& op, const Tensors& x, const Attrs&) { return as_static<false>("Reshape", op, x); }
OutMeta dynamic_broadcast_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  return as_static<false>("BroadcastTo", op, x);
}
Tensor dynamic_broadcast_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  return as_static<true>("BroadcastTo", op, x, &m);
}

// ---- ReshapeLike(x, like): x's elements in like's shape (like's values are not read). The gradient
// of a Reshape in a trace whose sizes vary with values (Note [Sizes in traced rules]): a reshape to
// the input's traced shape would keep sizes that change from call to call.
OutMeta reshape_like_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  if (x[0]->size != x[1]->size)
    throw InvalidArgument(cat(op.name, ": cannot give ", meta_str(x[0]), " the shape of ", meta_str(x[1])));
  return {x[1]->shape, x[0]->dtype};
}

}  // namespace

// Note [Gradients of sized copies]: in a trace whose sizes vary with values (Note [Sizes in traced
// rules]), the gradients of ConcatV2, Pad and Tile take the part of g each input filled by gathering
// positions computed from the inputs' run-time shapes (Range): their StridedSlice and Reshape rules
// would keep the traced sizes on every axis.

// x's length along axis at run time: an int64 scalar.
Tensor length_at_run_time(const Tensor& x, int64_t axis) {
  const Attrs at_axis = Attrs().set("begin", std::vector<int64_t>{axis}).set("end", std::vector<int64_t>{axis + 1})
                            .set("strides", std::vector<int64_t>{1}).set("shrink_axis_mask", (int64_t)1);
  return call("StridedSlice", {call("Shape", {x}, Attrs().set("out_type", (int64_t)DType::Int64))}, at_axis);
}

// g's entries begin, begin + 1, ... (length n) along axis.
Tensor run_along(const Tensor& g, int64_t axis, const Tensor& begin, const Tensor& n) {
  return call("GatherV2", {g, call("Range", {begin, begin + n, scalar(1, DType::Int64)})}, Attrs().set("axis", axis));
}

Tensors concat_grad_at_run_time(const Tensor& g, const Tensors& pieces, int64_t axis, const std::vector<bool>& needs) {
  Tensors r(pieces.size());
  Tensor begin = scalar(0, DType::Int64);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Tensor n = length_at_run_time(pieces[i], axis);
    if (needs[i]) r[i] = run_along(g, axis, begin, n);
    begin = begin + n;
  }
  return r;
}

Tensor pad_grad_at_run_time(const Tensor& g, const Tensor& x, const std::vector<int64_t>& paddings) {
  Tensor r = g;
  for (int64_t d = 0; d < x->ndim(); ++d)
    if (paddings[2 * d] || paddings[2 * d + 1])
      r = run_along(r, d, scalar((double)paddings[2 * d], DType::Int64), length_at_run_time(x, d));
  return r;
}

Tensor tile_grad_at_run_time(const Tensor& g, const Tensor& x, const std::vector<int64_t>& multiples) {
  // A multiple of 0 leaves no copy of x in the result: x's gradient is 0 (g has no entries to gather).
  if (std::find(multiples.begin(), multiples.end(), 0) != multiples.end()) return zeros_like(x);
  Tensor r = g;
  for (int64_t d = 0; d < x->ndim(); ++d) {
    if (multiples[d] == 1) continue;
    const Tensor n = length_at_run_time(x, d);
    Tensor sum = run_along(r, d, scalar(0, DType::Int64), n);
    for (int64_t k = 1; k < multiples[d]; ++k) sum = sum + run_along(r, d, n * (double)k, n);
    r = sum;
  }
  return r;
}

void register_sized_by_values_ops() {
  def_op("Where").inputs(1).shape(where_half_infer).forward(half_kernel<where_kernel>).also_types(kHalfTypes).shape_from_values(always, -1, true).not_differentiable();
  def_op("Range").inputs(3).shape(range_infer).forward(range_kernel).shape_from_values(always).not_differentiable();
  def_op("Fill").inputs(2).shape(fill_infer).forward(fill_kernel).shape_from_values(always, 0).gradient(fill_grad)
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) -> Tensor {
        return tx[1] ? call("Fill", {x[0], tx[1]}) : nullptr;
      });
  def_op("ReverseV2").also_types(kAllTypes).shape(reverse_infer).forward(reverse_kernel).batched().gradient(reverse_grad)
      .jvp(linear_jvp("ReverseV2"));
  def_op("ExpandDims").also_types(kAllTypes).shape(expand_dims_infer).forward(as_view).batched().gradient(expand_dims_grad)
      .jvp(linear_jvp("ExpandDims"));
  def_op("DynamicReshape").inputs(2).shape(dynamic_reshape_infer).forward(as_view).shape_from_values(always, 1)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("ReshapeLike", {ctx.g, ctx.x[0]}), nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) -> Tensor {
        return tx[0] ? call("DynamicReshape", {tx[0], x[1]}) : nullptr;
      });
  def_op("DynamicBroadcastTo").inputs(2).shape(dynamic_broadcast_infer).forward(dynamic_broadcast_kernel)
      .shape_from_values(always, 1)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("SumToLike", {ctx.g, ctx.x[0]}), nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) -> Tensor {
        return tx[0] ? call("DynamicBroadcastTo", {tx[0], x[1]}) : nullptr;
      });
  def_op("ReshapeLike").inputs(2).shape(reshape_like_infer).forward(as_view)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("ReshapeLike", {ctx.g, ctx.x[0]}), nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) -> Tensor {
        return tx[0] ? call("ReshapeLike", {tx[0], x[1]}) : nullptr;
      });
  def_op("Squeeze").also_types(kAllTypes).shape(squeeze_infer).forward(as_view).batched().gradient(squeeze_grad).jvp(linear_jvp("Squeeze"));
}

}  // namespace tg
