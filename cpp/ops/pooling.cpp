// pooling.cpp -- NHWC max and average pooling (attr ksize [kh, kw] plus ops/window.h's) and their gradient ops.
//
// MaxPool routes each output's gradient to the first maximum of its window: MaxPoolGrad(x, dy)
// scatters dy there and MaxPoolGradGrad(x, t) gathers t from there. Both are linear in their
// second input and adjoint to each other, and the positions are piecewise constant in x, so the
// derivative with respect to x is zero. AvgPool and AvgPoolGrad (attr orig_input_shape) are a
// linear map and its adjoint.
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/observer.h"
#include "ops/window.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

// The geometry of a pooling op over an input of shape `in`.
Window2D pool_window(const OpDef& op, const Shape& in, const Attrs& a) {
  auto k = pair_attr(op, a, "ksize");
  if (in.size() != 4)
    throw InvalidArgument(cat(op.name, ": input must be 4-D [batch, height, width, channels], got shape ", shape_str(in)));
  for (int64_t d : in)
    if (d < 0) throw InvalidArgument(cat(op.name, ": negative dimension in input shape ", shape_str(in)));
  return window_2d(op, in, k[0], k[1], a, [&] { return cat("input shape ", shape_str(in), " and ksize ", shape_str(k)); });
}

Shape pooled(const Window2D& g) { return {g.n, g.oh, g.ow, g.c}; }

void check_float(const OpDef& op, const Tensor& t, const char* what) {
  if (!is_floating(t->dtype)) throw InvalidArgument(cat(op.name, ": ", what, " must be float32 or float64, got ", meta_str(t)));
}

void check_same(const OpDef& op, const Tensor& t, const Shape& want, DType dt, const char* what) {
  if (t->shape != want || t->dtype != dt)
    throw InvalidArgument(cat(op.name, ": ", what, " ", meta_str(t), " must have shape ", shape_str(want), " and dtype ",
                              dtype_name(dt)));
}

// x -> pooled x
OutMeta pool_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_float(op, x[0], "input");
  return {pooled(pool_window(op, x[0]->shape, a)), x[0]->dtype};
}
// (x, dy pooled-shaped) -> x-shaped
OutMeta scatter_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_float(op, x[0], "orig_input");
  check_same(op, x[1], pooled(pool_window(op, x[0]->shape, a)), x[0]->dtype, "grad");
  return {x[0]->shape, x[0]->dtype};
}
// (x, t x-shaped) -> pooled-shaped
OutMeta gather_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_float(op, x[0], "orig_input");
  check_same(op, x[1], x[0]->shape, x[0]->dtype, "grad");
  return {pooled(pool_window(op, x[0]->shape, a)), x[0]->dtype};
}
// dy -> orig_input_shape
OutMeta avg_grad_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape in = a.ints("orig_input_shape");
  check_float(op, x[0], "grad");
  if (in.size() != 4) throw InvalidArgument(cat(op.name, ": orig_input_shape must have 4 entries, got ", shape_str(in)));
  check_same(op, x[0], pooled(pool_window(op, in, a)), x[0]->dtype, "grad");
  return {in, x[0]->dtype};
}

// Forward kernels whose window comes from the input's shape: one input, or input plus a routed tensor.
template <void (*K)(const Window2D&, const Tensor&, Tensor&)>
Tensor window_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  K(pool_window(op, x[0]->shape, a), x[0], out);
  return out;
}
template <void (*K)(const Window2D&, const Tensor&, const Tensor&, Tensor&)>
Tensor routed_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  K(pool_window(op, x[0]->shape, a), x[0], x[1], out);
  return out;
}
Tensor avg_grad_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  avg_pool_backprop(pool_window(op, m.shape, a), x[0], out);
  return out;
}

// AvgPoolGradLike(dy, like): AvgPoolGrad with orig_input_shape read from like's run-time shape (its
// values are not read). AvgPool's gradient in a trace whose sizes vary with values (Note [Sizes in
// traced rules] in engine/observer.h), where the traced input shape may change from call to call.
OutMeta avg_grad_like_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  return avg_grad_infer(op, {x[0]}, Attrs(a).set("orig_input_shape", x[1]->shape));
}
Tensor avg_grad_like_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  return avg_grad_kernel(op, {x[0]}, a, m);
}

Attrs without(const Attrs& a, const char* name) {
  Attrs r;
  for (auto& kv : a.items)
    if (kv.first != name) r.items.push_back(kv);
  return r;
}

// The rule of MaxPoolGrad (scatter) and MaxPoolGradGrad (gather): the other one applied to g;
// zero with respect to x (the routing is piecewise constant).
JvpFn routed_jvp(const char* op) {
  return [op](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
    return tx[1] ? call(op, {x[0], tx[1]}, a) : nullptr;
  };
}
GradFn routed_grad(const char* adjoint) {
  return [adjoint](GradCtx& ctx) -> Tensors {
    Tensors r(2);
    if (ctx.needs_grad[0]) r[0] = zeros_like(ctx.x[0]);
    if (ctx.needs_grad[1]) r[1] = call(adjoint, {ctx.x[0], ctx.g}, ctx.attrs);
    return r;
  };
}

}  // namespace

void register_pooling_ops() {
  // d max_pool / dx: g routed to each window's maximum; the tangent is read from there.
  def_op("MaxPool").inputs(1).shape(half_infer<pool_infer>).forward(half_kernel<window_kernel<max_pool>>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("MaxPoolGrad", {ctx.x[0], ctx.g}, ctx.attrs)}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) {
        return call("MaxPoolGradGrad", {x[0], tx[0]}, a);
      });
  def_op("MaxPoolGrad").inputs(2).shape(half_infer<scatter_infer>).forward(half_kernel<routed_kernel<max_pool_scatter>>).also_types(kHalfTypes).gradient(routed_grad("MaxPoolGradGrad"))
      .jvp(routed_jvp("MaxPoolGrad"));
  def_op("MaxPoolGradGrad").inputs(2).shape(half_infer<gather_infer>).forward(half_kernel<routed_kernel<max_pool_gather>>).also_types(kHalfTypes).gradient(routed_grad("MaxPoolGrad"))
      .jvp(routed_jvp("MaxPoolGradGrad"));
  // avg_pool is linear: its gradient is the adjoint map, whose gradient is avg_pool again.
  def_op("AvgPool").inputs(1).shape(half_infer<pool_infer>).forward(half_kernel<window_kernel<avg_pool>>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors {
        if (sizes_vary_with_values()) return {call("AvgPoolGradLike", {ctx.g, ctx.x[0]}, ctx.attrs)};
        return {call("AvgPoolGrad", {ctx.g}, Attrs(ctx.attrs).set("orig_input_shape", ctx.x[0]->shape))};
      })
      .jvp(linear_jvp("AvgPool"));
  def_op("AvgPoolGrad").inputs(1).shape(half_infer<avg_grad_infer>).forward(half_kernel<avg_grad_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("AvgPool", {ctx.g}, without(ctx.attrs, "orig_input_shape"))}; })
      .jvp(linear_jvp("AvgPoolGrad"));
  def_op("AvgPoolGradLike").inputs(2).shape(half_infer<avg_grad_like_infer>).forward(half_kernel<avg_grad_like_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("AvgPool", {ctx.g}, ctx.attrs), nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
        return tx[0] ? call("AvgPoolGradLike", {tx[0], x[1]}, a) : nullptr;
      });
}

}  // namespace tg
