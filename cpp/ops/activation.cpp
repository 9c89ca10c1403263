// activation.cpp -- elementwise activations of tf.nn (relu family, elu, selu, gelu, silu) and the
// elementwise sigmoid cross-entropy.
#include "ops/op_macros.h"
#ifdef TG_KERNEL_PASS
#include "kernels/layer_norm_rows.h"
#include "kernels/softmax_rows.h"
// Row loops of the nn ops (Softmax and its gradient, LogSoftmax, sparse cross-entropy, LayerNorm) ride along with this family
// to get one build per ISA level; their rows (shape and gradient rules) are in nn.cpp.
#define TG_ROW_KERNELS(Name, loop) \
  set_ew_kernel(#Name, TG_ISA_INDEX, 0, loop<float>); set_ew_kernel(#Name, TG_ISA_INDEX, 1, loop<double>);
#else
#define TG_ROW_KERNELS(Name, loop)
#endif

namespace tg {

// TF's gelu holds 1/sqrt(2) and the cubic coefficient 0.044715 as float32 also for float64
// inputs: the same constants give TF's float64 values (the exact ones differ by ~1e-8 relative).
constexpr double kGeluErfScale = double(0.70710678118654752f), kGeluCubic = double(0.044715f);

#ifndef TG_KERNEL_PASS
namespace {
// gelu(x) = x (1 + erf(c x)) / 2 with c = 1/sqrt(2): d/dx = (1 + erf(c x)) / 2 + x c e^(-c^2 x^2) / sqrt(pi)
Tensor gelu_grad(const Tensor& x, const Tensor& g) {
  const double c = kGeluErfScale;
  return g * ((erf(x * c) + 1.0) * 0.5 + x * exp(square(x) * (-c * c)) * (c * 0.5641895835477563));
}
// gelu ~ x (1 + t) / 2, t = tanh(c (x + k x^3)): d/dx = (1 + t) / 2 + x (1 - t^2) c (1 + 3 k x^2) / 2
Tensor gelu_tanh_grad(const Tensor& x, const Tensor& g) {
  const double c = 0.7978845608028654, k = kGeluCubic;
  Tensor t = tanh((x + x * square(x) * k) * c);
  return g * ((t + 1.0) * 0.5 + tanh_grad(t, x * (square(x) * (3 * k) + 1.0) * (0.5 * c)));
}
// d/dx x s(x) = s + x s (1 - s), s = sigmoid(x)
Tensor silu_grad(const Tensor& x, const Tensor& g) {
  Tensor s = sigmoid(x);
  return g * (s + x * sigmoid_grad(s, ones_like(s)));
}
}  // namespace
#endif

TG_FAMILY(activation) {
  // NaN passes through both and -0 gives +0, as TF
  TG_UNARY_NUMERIC(Relu,  x <= T(0) ? T(0) : x,                         relu_grad(x, g))
  TG_UNARY_NUMERIC(Relu6, x <= T(0) ? T(0) : (x > T(6) ? T(6) : x),
           where(logical_and(greater(x, zeros_like(x)), less(x, scalar_like(x, 6.0))), g, zeros_like(g)))
  // alpha * x for x < 0
  TG_UNARY(LeakyRelu, x > T(0) ? x : alpha * x,
           where(greater(x, zeros_like(x)), g, g * ctx.attrs.f("alpha", 0.2)))
  // d/dx = 1 for x > 0, else e^x = out + 1
  TG_UNARY(Elu,   x > T(0) ? x : vm::expm1(x),                  elu_grad(out, g))
  // scale * (x > 0 ? x : alpha (e^x - 1)), scale = 1.0507..., alpha = 1.6732...
  // (the gradient tests the output, as TF: scale at 0, -0 and NaN)
  TG_UNARY(Selu,  x > T(0) ? T(1.0507009873554805) * x : T(1.7580993408473766) * vm::expm1(x),
           where(less(out, zeros_like(out)), g * (out + 1.7580993408473766), g * 1.0507009873554805))
  // x Phi(x), exact (erf) and tanh-approximated; fused backward helpers above
  TG_UNARY(Gelu,     T(0.5) * x * (T(1) + vm::erf(x * T(kGeluErfScale))),              gelu_grad(x, g))
  TG_UNARY(GeluTanh, T(0.5) * x * (T(1) + vm::tanh(T(0.7978845608028654) * (x + T(kGeluCubic) * x * x * x))),
           gelu_tanh_grad(x, g))
  // x sigmoid(x)
  TG_UNARY(Silu,     x * vm::sigmoid(x),                                               silu_grad(x, g))
  // Fused backward ops (one kernel per rule): ReluGrad(x, g) = x > 0 ? g : 0, whose derivative in x is 0;
  // EluGrad(y, g) = y < 0 ? g (y + 1) : g with y = elu(x) (e^x = y + 1 below 0; g at 0 and NaN, as TF):
  // d/dy = y < 0 ? g_up g : 0, d/dg = EluGrad(y, g_up).
  TG_BINARY_FLOAT(ReluGrad, x > T(0) ? y : T(0),                zeros_like(x), relu_grad(x, g))
  TG_BINARY_FLOAT(EluGrad,  x < T(0) ? y * (x + T(1)) : y,
                  where(less(x, zeros_like(x)), g * y, zeros_like(x)), elu_grad(x, g))
  // (logits x, labels y) -> max(x, 0) - x y + log(1 + e^-|x|), never overflowing;
  // d/dx = sigmoid(x) - y, d/dy = -x
  TG_BINARY_FLOAT(SigmoidCrossEntropyWithLogits,
                  (x > T(0) ? x : T(0)) - x * y + vm::softplus(x < T(0) ? x : -x),
                  g * (sigmoid(x) - y), -(g * x))
  TG_ROW_KERNELS(Softmax, softmax_rows)
  TG_ROW_KERNELS(LogSoftmax, softmax_rows)
  TG_ROW_KERNELS(SoftmaxGrad, softmax_grad_rows)
  TG_ROW_KERNELS(LayerNorm, layer_norm_rows)
  TG_ROW_KERNELS(LayerNormGrad, layer_norm_grad_rows)
  TG_ROW_KERNELS(SparseSoftmaxCrossEntropyWithLogits, sparse_xent_rows)
  TG_ROW_KERNELS(SparseSoftmaxCrossEntropyWithLogitsGrad, sparse_xent_rows)
}

}  // namespace tg
