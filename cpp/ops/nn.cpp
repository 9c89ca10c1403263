// nn.cpp -- softmax, log-softmax and the fused sparse softmax cross-entropy (attr axis; max-shifted kernels).
// The row loops are compiled per ISA level with the activation family (kernels/softmax_rows.h).
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

// softmax'(x)^T g = y * (g - sum(g * y)) along the axis, y = softmax(x).
Tensor softmax_grad(const Tensor& y, const Tensor& g, int64_t axis) {
  return y * (g - reduce_sum(g * y, {axis}, true));
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
