// recurrent.cpp -- LSTMSequence, GRUSequence and RNNSequence: a whole recurrent time loop as one op
// (kernels/recurrent.h), its backward through time and its forward-mode tangent as fused ops of their own.
//
// Note [Second derivatives of LSTMSequence]: the fused backward and tangent ops are not
// differentiable. Rather than let an outer tape or accumulator see a silent zero, the rules of
// LSTMSequence, GRUSequence and RNNSequence raise UnimplementedError when their result would itself
// be differentiated.
#include <climits>
#include "core/error.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/tape.h"
#include "kernels/recurrent.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

// The kernels hand B*T, F and the gate width to BLAS as 32-bit ints.
void check_gemm_sizes(const OpDef& op, const Tensor& in, int64_t width, const std::string& all) {
  if (in->shape[0] * in->shape[1] > INT_MAX || in->shape[2] > INT_MAX || width > INT_MAX)
    throw InvalidArgument(cat(op.name, ": batch * timesteps, features and the gate width must be below 2^31", all));
}

// (x [B, T, F], h0 [B, U], c0 [B, U], kernel [F, 4U], recurrent_kernel [U, 4U], bias [4U]).
void check_lstm_inputs(const OpDef& op, const Tensors& x) {
  const Tensor &in = x[0], &h0 = x[1], &c0 = x[2], &W = x[3], &R = x[4], &b = x[5];
  auto all = [&] {
    return cat(" (inputs ", meta_str(in), ", h0 ", meta_str(h0), ", c0 ", meta_str(c0), ", kernel ", meta_str(W),
               ", recurrent_kernel ", meta_str(R), ", bias ", meta_str(b), ")");
  };
  if (!is_floating(in->dtype))
    throw InvalidArgument(cat(op.name, ": inputs must be float32 or float64", all()));
  for (const Tensor& t : x)
    if (t->dtype != in->dtype) throw InvalidArgument(cat(op.name, ": every input must have the dtype of inputs", all()));
  if (in->ndim() != 3) throw InvalidArgument(cat(op.name, ": inputs must have rank 3 [batch, timesteps, features]", all()));
  if (R->ndim() != 2 || R->shape[1] != 4 * R->shape[0])
    throw InvalidArgument(cat(op.name, ": recurrent_kernel must have shape [units, 4 * units]", all()));
  const int64_t B = in->shape[0], F = in->shape[2], U = R->shape[0];
  check_gemm_sizes(op, in, 4 * U, all());
  if (W->shape != Shape{F, 4 * U})
    throw InvalidArgument(cat(op.name, ": kernel must have shape [features, 4 * units] = ", shape_str({F, 4 * U}), all()));
  if (b->shape != Shape{4 * U})
    throw InvalidArgument(cat(op.name, ": bias must have shape [4 * units] = ", shape_str({4 * U}), all()));
  if (h0->shape != Shape{B, U} || c0->shape != Shape{B, U})
    throw InvalidArgument(cat(op.name, ": h0 and c0 must have shape [batch, units] = ", shape_str({B, U}), all()));
}

// [h, c, i, f, c~, o] per step: h and c for the layer, the gates for the backward.
Shape lstm_out_shape(const Tensors& x) { return {x[0]->shape[0], x[0]->shape[1], 6 * x[4]->shape[0]}; }

OutMeta lstm_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_lstm_inputs(op, x);
  return {lstm_out_shape(x), x[0]->dtype};
}

Tensor lstm_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  lstm_sequence_forward(x[0], x[1], x[2], x[3], x[4], x[5], out);
  return out;
}

// The n op inputs, then the op's output (shape out_shape) and more tensors: for the Grad op one of
// the output's shape (g), for the Jvp op one tangent per input.
void check_with_output(const OpDef& op, const Tensors& x, size_t n, const Shape& out_shape, bool grad) {
  if (x[n]->shape != out_shape || x[n]->dtype != x[0]->dtype)
    throw InvalidArgument(cat(op.name, ": the forward output must be ", dtype_name(x[0]->dtype), shape_str(out_shape),
                              ", got ", meta_str(x[n])));
  for (size_t i = n + 1; i < x.size(); ++i) {
    const Tensor& ref = grad ? x[n] : x[i - n - 1];
    if (x[i]->shape != ref->shape || x[i]->dtype != ref->dtype)
      throw InvalidArgument(cat(op.name, ": input ", i, " must be ", meta_str(ref), ", got ", meta_str(x[i])));
  }
}

void check_lstm_with_output(const OpDef& op, const Tensors& x) {
  check_lstm_inputs(op, Tensors(x.begin(), x.begin() + 6));
  check_with_output(op, x, 6, lstm_out_shape(x), op.name == "LSTMSequenceGrad");
}

// Gradients of x, h0, c0, kernel, recurrent_kernel, bias, each flattened, one after another.
OutMeta lstm_grad_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_lstm_with_output(op, x);
  int64_t n = 0;
  for (int i = 0; i < 6; ++i) n += x[i]->size;
  return {{n}, x[0]->dtype};
}

Tensor lstm_grad_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor packed = empty(m.shape, m.dtype);
  lstm_sequence_backward(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], packed);
  return packed;
}

OutMeta lstm_jvp_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_lstm_with_output(op, x);
  return {x[6]->shape, x[0]->dtype};
}

Tensor lstm_jvp_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor tout = empty(m.shape, m.dtype);
  lstm_sequence_jvp(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12], tout);
  return tout;
}

// See Note [Second derivatives of LSTMSequence].
void refuse_second_order(const char* op, const Tensors& x, const char* what) {
  if (should_record(x) || any_tangent(x))
    throw Unimplemented(cat(op, ": the ", what, " of ", op,
                            " is not differentiable; second derivatives through it are not implemented"));
}

// The gradient rule of a sequence op: its fused Grad op, whose packed result is cut back into
// one gradient per input.
Tensors sequence_grad(const char* op, const char* grad_op, GradCtx& ctx) {
  Tensors in(ctx.x.begin(), ctx.x.end());
  in.push_back(ctx.out);
  in.push_back(ctx.g);
  refuse_second_order(op, in, "gradient");
  Tensor packed = call(grad_op, in);
  const int n = (int)ctx.x.size();
  Tensors r(n);
  int64_t at = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t n = ctx.x[i]->size;
    if (ctx.needs_grad[i]) r[i] = reshape(strided_slice(packed, {at}, {at + n}, {1}), ctx.x[i]->shape);
    at += n;
  }
  return r;
}

// The JVP rule of a sequence op: its fused Jvp op, with zeros for inputs without a tangent.
Tensor sequence_jvp(const char* op, const char* jvp_op, const Tensors& x, const Tensor& out, const Tensors& tx) {
  Tensors in(x.begin(), x.end());
  in.push_back(out);
  for (size_t i = 0; i < x.size(); ++i) in.push_back(tx[i] ? tx[i] : zeros_like(x[i]));
  refuse_second_order(op, in, "tangent");
  return call(jvp_op, in);
}

// Ops with one state h (GRUSequence, RNNSequence):
// (x [B, T, F], h0 [B, U], kernel [F, k U], recurrent_kernel [U, k U], bias): k = 3 for GRUSequence
// (bias [2, 3U]), 1 for RNNSequence (bias [U]).
void check_one_state_inputs(const OpDef& op, const Tensors& x) {
  const bool gru = op.name.compare(0, 3, "GRU") == 0;
  const int64_t k = gru ? 3 : 1;
  const Tensor &in = x[0], &h0 = x[1], &W = x[2], &R = x[3], &b = x[4];
  auto all = [&] {
    return cat(" (inputs ", meta_str(in), ", h0 ", meta_str(h0), ", kernel ", meta_str(W), ", recurrent_kernel ",
               meta_str(R), ", bias ", meta_str(b), ")");
  };
  if (!is_floating(in->dtype)) throw InvalidArgument(cat(op.name, ": inputs must be float32 or float64", all()));
  for (size_t i = 0; i < 5; ++i)
    if (x[i]->dtype != in->dtype) throw InvalidArgument(cat(op.name, ": every input must have the dtype of inputs", all()));
  if (in->ndim() != 3) throw InvalidArgument(cat(op.name, ": inputs must have rank 3 [batch, timesteps, features]", all()));
  if (R->ndim() != 2 || R->shape[1] != k * R->shape[0])
    throw InvalidArgument(cat(op.name, ": recurrent_kernel must have shape [units, ", gru ? "3 * " : "", "units]", all()));
  const int64_t B = in->shape[0], F = in->shape[2], U = R->shape[0];
  check_gemm_sizes(op, in, k * U, all());
  if (W->shape != Shape{F, k * U})
    throw InvalidArgument(cat(op.name, ": kernel must have shape [features, ", gru ? "3 * " : "", "units] = ",
                              shape_str({F, k * U}), all()));
  const Shape bias_shape = gru ? Shape{2, 3 * U} : Shape{U};
  if (b->shape != bias_shape)
    throw InvalidArgument(cat(op.name, ": bias must have shape ", gru ? "[2, 3 * units]" : "[units]", " = ",
                              shape_str(bias_shape), all()));
  if (h0->shape != Shape{B, U})
    throw InvalidArgument(cat(op.name, ": h0 must have shape [batch, units] = ", shape_str({B, U}), all()));
}

Shape one_state_out_shape(const Tensors& x) { return {x[0]->shape[0], x[0]->shape[1], x[3]->shape[0]}; }

OutMeta one_state_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_one_state_inputs(op, x);
  return {one_state_out_shape(x), x[0]->dtype};
}

using Forward5 = void (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, Tensor&);
using Backward5 = void (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                           const Tensor&, Tensor&);
using Jvp5 = void (*)(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&,
                      const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&, Tensor&);

template <Forward5 F>
Tensor one_state_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  F(x[0], x[1], x[2], x[3], x[4], out);
  return out;
}

OutMeta one_state_grad_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_one_state_inputs(op, x);
  check_with_output(op, x, 5, one_state_out_shape(x), true);
  int64_t n = 0;
  for (int i = 0; i < 5; ++i) n += x[i]->size;
  return {{n}, x[0]->dtype};
}

template <Backward5 F>
Tensor one_state_grad_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor packed = empty(m.shape, m.dtype);
  F(x[0], x[1], x[2], x[3], x[4], x[5], x[6], packed);
  return packed;
}

OutMeta one_state_jvp_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_one_state_inputs(op, x);
  check_with_output(op, x, 5, one_state_out_shape(x), false);
  return {x[5]->shape, x[0]->dtype};
}

template <Jvp5 F>
Tensor one_state_jvp_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor tout = empty(m.shape, m.dtype);
  F(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], tout);
  return tout;
}

}  // namespace

// One recurrent family: the sequence op (n inputs), its fused backward `name`Grad (the inputs, the
// output and g -> packed gradients) and tangent `name`Jvp (the inputs, the output and one tangent
// per input -> the output's tangent); see Note [Second derivatives of LSTMSequence]. The half types run
// through the float32 kernels (Note [Half types through float32]): the packed steps and gradients are
// rounded to the half type, as TF keeps a half LSTM's activations.
template <InferFn infer, KernelFn kernel, InferFn grad_infer, KernelFn grad_kernel, InferFn jvp_infer,
          KernelFn jvp_kernel>
void def_sequence(const std::string& name, int n) {
  const std::string grad = name + "Grad", jvp = name + "Jvp";
  def_op(name.c_str()).inputs(n).shape(half_infer<infer>).forward(half_kernel<kernel>).also_types(kHalfTypes)
      .gradient([name, grad](GradCtx& ctx) { return sequence_grad(name.c_str(), grad.c_str(), ctx); })
      .jvp([name, jvp](const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs&) {
        return sequence_jvp(name.c_str(), jvp.c_str(), x, out, tx);
      });
  def_op(grad.c_str()).inputs(n + 2).shape(half_infer<grad_infer>).forward(half_kernel<grad_kernel>)
      .also_types(kHalfTypes).not_differentiable();
  def_op(jvp.c_str()).inputs(2 * n + 1).shape(half_infer<jvp_infer>).forward(half_kernel<jvp_kernel>)
      .also_types(kHalfTypes).not_differentiable();
}

void register_recurrent_ops() {
  // (x, h0, c0, kernel, recurrent_kernel, bias) -> [h, c, i, f, c~, o] of every step, [B, T, 6U].
  def_sequence<lstm_infer, lstm_kernel, lstm_grad_infer, lstm_grad_kernel, lstm_jvp_infer, lstm_jvp_kernel>(
      "LSTMSequence", 6);
  // (x, h0, kernel, recurrent_kernel, bias [2, 3U]) -> h_t of every step [B, T, U] (GRU, reset_after).
  def_sequence<one_state_infer, one_state_kernel<gru_sequence_forward>, one_state_grad_infer,
               one_state_grad_kernel<gru_sequence_backward>, one_state_jvp_infer,
               one_state_jvp_kernel<gru_sequence_jvp>>("GRUSequence", 5);
  // (x, h0, kernel [F, U], recurrent_kernel [U, U], bias [U]) -> h_t = tanh(x_t W + h_{t-1} R + b), [B, T, U].
  def_sequence<one_state_infer, one_state_kernel<rnn_sequence_forward>, one_state_grad_infer,
               one_state_grad_kernel<rnn_sequence_backward>, one_state_jvp_infer,
               one_state_jvp_kernel<rnn_sequence_jvp>>("RNNSequence", 5);
}

}  // namespace tg
