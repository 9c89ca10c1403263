// nn.cpp -- softmax (and its fused gradient), log-softmax, the fused sparse softmax cross-entropy (attr
// axis; max-shifted kernels) and LayerNorm over the last axis with its fused gradient (attr epsilon).
// The row loops are compiled per ISA level with the activation family (kernels/softmax_rows.h,
// kernels/layer_norm_rows.h).
#include "core/error.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "kernels/elementwise.h"
#include "kernels/ew_args.h"
#include "kernels/kernel_table.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

int softmax_axis(const OpDef& op, const Tensor& x, const Attrs& a) {
  return normalize_axis(a.i("axis", -1), x->ndim(), op.name.c_str());
}

OutMeta softmax_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (!is_floating(x[0]->dtype) || x[0]->ndim() < 1)
    throw InvalidArgument(cat(op.name, ": logits must be a float32/float64 tensor of rank >= 1, got ", meta_str(x[0])));
  softmax_axis(op, x[0], a);
  return {x[0]->shape, x[0]->dtype};
}

// The row loop of `op` for dtype dt at the active ISA level (or the best lower one).
EwKernel row_kernel(const OpDef& op, DType dt) {
  if (EwKernel k = ew_kernel(op, dt, active_isa())) return k;
  throw InvalidArgument(cat(op.name, ": no kernel for dtype ", dtype_name(dt)));
}

template <bool Log>
Tensor softmax_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  if (out->size == 0) return out;
  const int axis = softmax_axis(op, x[0], a);
  EwArgs e{};
  e.in[0] = x[0]->data();
  e.out = out->data();
  e.n = out->size;
  e.shape[0] = e.shape[1] = e.shape[2] = 1;  // [outer, n, inner] around the axis
  for (int d = 0; d < x[0]->ndim(); ++d) e.shape[d < axis ? 0 : d == axis ? 1 : 2] *= x[0]->shape[d];
  e.alpha = Log ? 1.0 : 0.0;
  row_kernel(op, m.dtype)(e);
  return out;
}

// (logits [..., n], labels [...] of int32/int64) -> per-example loss [...] (or [..., n] for the Grad op).
OutMeta sparse_xent_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  const Tensor &logits = x[0], &labels = x[1];
  if (!is_floating(logits->dtype) || logits->ndim() < 1)
    throw InvalidArgument(cat(op.name, ": logits must be a float32/float64 tensor of rank >= 1, got ", meta_str(logits)));
  if (!is_integer(labels->dtype))
    throw InvalidArgument(cat(op.name, ": labels must be int32 or int64 class indices, got ", meta_str(labels)));
  Shape batch(logits->shape.begin(), logits->shape.end() - 1);
  if (labels->shape != batch)
    throw InvalidArgument(cat(op.name, ": labels ", meta_str(labels), " must have the shape of logits ",
                              meta_str(logits), " without its last (class) axis, ", shape_str(batch)));
  bool grad = op.name.size() > 4 && op.name.compare(op.name.size() - 4, 4, "Grad") == 0;
  return {grad ? logits->shape : batch, logits->dtype};
}

// Labels are data, so they are checked here, before any row is read through them.
template <bool Grad>
Tensor sparse_xent_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Tensor &logits = x[0], &labels = x[1];
  const int64_t n = logits->shape.back();
  std::vector<int64_t> label(labels->size);
  for (int64_t r = 0; r < labels->size; ++r) {
    label[r] = labels->dtype == DType::Int32 ? labels->data_as<int32_t>()[r] : labels->data_as<int64_t>()[r];
    if (label[r] < 0 || label[r] >= n)
      throw InvalidArgument(cat(op.name, ": received a label value of ", label[r], " which is outside the valid range of [0, ",
                                n, ") for logits ", meta_str(logits)));
  }
  Tensor out = empty(m.shape, m.dtype);
  if (out->size == 0) return out;
  EwArgs e{};
  e.in[0] = logits->data();
  e.in[1] = label.data();
  e.out = out->data();
  e.n = out->size;
  e.shape[0] = labels->size;
  e.shape[1] = n;
  e.alpha = Grad ? 1.0 : 0.0;
  row_kernel(op, m.dtype)(e);
  return out;
}

// (y, g) of one shape and floating dtype: SoftmaxGrad's operands.
OutMeta softmax_grad_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (!is_floating(x[0]->dtype) || x[0]->ndim() < 1 || x[1]->dtype != x[0]->dtype || x[1]->shape != x[0]->shape)
    throw InvalidArgument(cat(op.name, ": softmax and its gradient must be float tensors of one shape and dtype, got ",
                              meta_str(x[0]), " and ", meta_str(x[1])));
  softmax_axis(op, x[0], a);
  return {x[0]->shape, x[0]->dtype};
}

Tensor softmax_grad_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  if (out->size == 0) return out;
  const int axis = softmax_axis(op, x[0], a);
  EwArgs e{};
  e.in[0] = x[0]->data();
  e.in[1] = x[1]->data();
  e.out = out->data();
  e.n = out->size;
  e.shape[0] = e.shape[1] = e.shape[2] = 1;
  for (int d = 0; d < x[0]->ndim(); ++d) e.shape[d < axis ? 0 : d == axis ? 1 : 2] *= x[0]->shape[d];
  row_kernel(op, m.dtype)(e);
  return out;
}

// softmax'(x)^T g = y * (g - sum(g * y)) along the axis, y = softmax(x): one SoftmaxGrad kernel when
// the operands match (always, from Softmax's rule), else the composed ops.
Tensor softmax_grad(const Tensor& y, const Tensor& g, int64_t axis) {
  if (g->shape == y->shape && g->dtype == y->dtype && is_floating(y->dtype))
    return call("SoftmaxGrad", {y, g}, Attrs().set("axis", axis));
  return y * (g - reduce_sum(g * y, {axis}, true));
}

// LayerNorm(x) = (x - mean) / sqrt(var + epsilon) over the last axis (x floating, rank >= 1);
// LayerNormGrad(x, g) takes g of x's shape and dtype.
OutMeta layer_norm_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (!is_floating(x[0]->dtype) || x[0]->ndim() < 1)
    throw InvalidArgument(cat(op.name, ": x must be a float tensor of rank >= 1, got ", meta_str(x[0])));
  if (x.size() > 1 && (x[1]->dtype != x[0]->dtype || x[1]->shape != x[0]->shape))
    throw InvalidArgument(cat(op.name, ": the gradient ", meta_str(x[1]), " must have the shape and dtype of x ",
                              meta_str(x[0])));
  const double eps = a.f("epsilon", 1e-3);
  if (!(eps >= 0.0))
    throw InvalidArgument(cat(op.name, ": epsilon must be >= 0, got ", eps));
  return {x[0]->shape, x[0]->dtype};
}

Tensor layer_norm_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  if (out->size == 0) return out;
  EwArgs e{};
  for (size_t i = 0; i < x.size(); ++i) e.in[i] = x[i]->data();
  e.out = out->data();
  e.n = out->size;
  e.shape[1] = x[0]->shape.back();
  e.shape[0] = out->size / e.shape[1];
  e.alpha = a.f("epsilon", 1e-3);
  row_kernel(op, m.dtype)(e);
  return out;
}

Attrs epsilon_of(const Attrs& a) { return Attrs().set("epsilon", a.f("epsilon", 1e-3)); }

// The statistics of LayerNormGrad's second-order rule, as registered ops over the last axis.
struct RowStats {
  Tensor xh, r2;  // the normalized x and 1/(var + epsilon)
};
Tensor last_mean(const Tensor& t) { return call("Mean", {t}, Attrs().set("axis", std::vector<int64_t>{-1}).set("keepdims", true)); }
RowStats row_stats(const Tensor& x, double eps) {
  Tensor d = x - last_mean(x);
  Tensor r2 = reciprocal(last_mean(square(d)) + eps);
  return {d * sqrt(r2), r2};
}

// d softmax(x) = y * (t - sum(t * y)) along the axis (the Jacobian is symmetric: the rule applied to t).
Tensor softmax_jvp(const Tensors&, const Tensor& out, const Tensors& tx, const Attrs& a) {
  return softmax_grad(out, tx[0], a.i("axis", -1));
}

// d log_softmax(x) = t - sum(softmax(x) * t) along the axis.
Tensor log_softmax_jvp(const Tensors&, const Tensor& out, const Tensors& tx, const Attrs& a) {
  return tx[0] - reduce_sum(exp(out) * tx[0], {a.i("axis", -1)}, true);
}

Tensor softmax_last(const Tensor& x) { return call("Softmax", {x}, Attrs().set("axis", int64_t(-1))); }

}  // namespace

void register_nn_ops() {
  def_op("Softmax").inputs(1).shape(half_infer<softmax_infer>).forward(half_kernel<softmax_kernel<false>>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {softmax_grad(ctx.out, ctx.g, ctx.attrs.i("axis", -1))}; })
      .jvp(softmax_jvp);
  // z = SoftmaxGrad(y, g) = y (g - S), S = sum(g y), with upstream h:
  // dz/dy^T h = h (g - S) - g sum(h y); dz/dg^T h = y (h - sum(h y)) = SoftmaxGrad(y, h).
  def_op("SoftmaxGrad").inputs(2).shape(half_infer<softmax_grad_infer>).forward(half_kernel<softmax_grad_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors {
        const int64_t axis = ctx.attrs.i("axis", -1);
        const Tensor &y = ctx.x[0], &g = ctx.x[1];
        return {ctx.g * (g - reduce_sum(g * y, {axis}, true)) - g * reduce_sum(ctx.g * y, {axis}, true),
                call("SoftmaxGrad", {y, ctx.g}, ctx.attrs)};
      })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
        const int64_t axis = a.i("axis", -1);
        const Tensor &y = x[0], &g = x[1];
        Tensor out;
        if (tx[0]) out = tx[0] * (g - reduce_sum(g * y, {axis}, true)) - y * reduce_sum(g * tx[0], {axis}, true);
        if (tx[1]) {
          Tensor t = call("SoftmaxGrad", {y, tx[1]}, a);
          out = out ? out + t : t;
        }
        return out;
      });
  // The Jacobian of LayerNorm is symmetric (r (I - 1/n - xh xh^T / n)): the VJP and the JVP are both
  // LayerNormGrad(x, .).
  def_op("LayerNorm").inputs(1).shape(half_infer<layer_norm_infer>).forward(half_kernel<layer_norm_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("LayerNormGrad", {ctx.x[0], ctx.g}, epsilon_of(ctx.attrs))}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) {
        return call("LayerNormGrad", {x[0], tx[0]}, epsilon_of(a));
      });
  // z = LayerNormGrad(x, g) = J(x) g. With upstream h, U = mean(g xh), W = mean(h xh),
  // M = mean(h g) - mean(h) mean(g): dz/dx^T h = -r^2 ((M - 3 U W) xh + W (g - mean g) + U (h - mean h)),
  // and dz/dg^T h = J h = LayerNormGrad(x, h). Means only, so no size is baked into a traced graph.
  def_op("LayerNormGrad").inputs(2).shape(half_infer<layer_norm_infer>).forward(half_kernel<layer_norm_kernel>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors {
        const Tensor &x = ctx.x[0], &g = ctx.x[1], &h = ctx.g;
        RowStats st = row_stats(x, ctx.attrs.f("epsilon", 1e-3));
        Tensor gm = last_mean(g), hm = last_mean(h);
        Tensor U = last_mean(g * st.xh), W = last_mean(h * st.xh), M = last_mean(h * g) - hm * gm;
        Tensor dx = -(st.r2 * ((M - 3.0 * U * W) * st.xh + W * (g - gm) + U * (h - hm)));
        return {dx, call("LayerNormGrad", {x, h}, epsilon_of(ctx.attrs))};
      })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
        // <h, J'(x)[t] g> is symmetric in (g, h, t) up to the roles above: J'(x)[t] g = dx rule with h := t
        const Tensor &xx = x[0], &g = x[1];
        Tensor out;
        if (tx[0]) {
          const Tensor& t = tx[0];
          RowStats st = row_stats(xx, a.f("epsilon", 1e-3));
          Tensor gm = last_mean(g), tm = last_mean(t);
          Tensor U = last_mean(g * st.xh), W = last_mean(t * st.xh), M = last_mean(t * g) - tm * gm;
          out = -(st.r2 * ((M - 3.0 * U * W) * st.xh + W * (g - gm) + U * (t - tm)));
        }
        if (tx[1]) {
          Tensor t = call("LayerNormGrad", {xx, tx[1]}, epsilon_of(a));
          out = out ? out + t : t;
        }
        return out;
      });
  // d/dx log_softmax(x)^T g = g - softmax(x) * sum(g) along the axis, softmax(x) = exp(out).
  def_op("LogSoftmax").inputs(1).shape(half_infer<softmax_infer>).forward(half_kernel<softmax_kernel<true>>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors {
        return {ctx.g - exp(ctx.out) * reduce_sum(ctx.g, {ctx.attrs.i("axis", -1)}, true)};
      })
      .jvp(log_softmax_jvp);
  // loss = logsumexp(logits) - logits[label]; d loss / d logits = softmax(logits) - onehot(label).
  // g is one loss gradient per row, or one value for every row (Note [Uniform gradients]); it is
  // reshaped with -1 leading so that a traced graph serves every batch size (Note [Sizes in traced rules]).
  def_op("SparseSoftmaxCrossEntropyWithLogits").inputs(2).shape(half_infer<sparse_xent_infer>).forward(half_kernel<sparse_xent_kernel<false>>).also_types(kHalfTypes)
      .takes_uniform_grad()
      .gradient([](GradCtx& ctx) -> Tensors {
        Shape gs = ctx.g->shape;
        gs.push_back(1);
        if (gs.size() >= 2 && ctx.g->size > 0) gs[0] = -1;
        return {reshape(ctx.g, gs) * call("SparseSoftmaxCrossEntropyWithLogitsGrad", {ctx.x[0], ctx.x[1]}), nullptr};
      })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) {  // sum((softmax - onehot) t)
        return reduce_sum(call("SparseSoftmaxCrossEntropyWithLogitsGrad", {x[0], x[1]}) * tx[0], {-1}, false);
      });
  // The fused backward op softmax(logits) - onehot(label); the onehot is constant in logits.
  def_op("SparseSoftmaxCrossEntropyWithLogitsGrad").inputs(2).shape(half_infer<sparse_xent_infer>).forward(half_kernel<sparse_xent_kernel<true>>).also_types(kHalfTypes)
      .gradient([](GradCtx& ctx) -> Tensors { return {softmax_grad(softmax_last(ctx.x[0]), ctx.g, -1), nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) {  // the softmax JVP
        return softmax_grad(softmax_last(x[0]), tx[0], -1);
      });
}

}  // namespace tg
