// unary.cpp -- elementwise unary ops: forward as a scalar expression, gradient in registered ops.
// Register pass: rows declare OpDefs; kernel passes: rows become loops (see op_macros.h).
#include "kernels/erfinv.h"
#include "kernels/gamma_functions.h"
#include "ops/op_macros.h"

namespace tg {

TG_FAMILY(unary) {
  // d/dx depends on the result:
  TG_UNARY(Exp,     vm::exp(x),                  g * out)                      // d/dx e^x = e^x
  TG_UNARY(Sqrt,    std::sqrt(x),                safe_div(g * 0.5, out))       // 1 / (2 sqrt x)
  TG_UNARY(Rsqrt,   T(1) / std::sqrt(x),         safe_mul(g, out * out * out * -0.5))  // -x^-3/2 / 2
  TG_UNARY(Tanh,    vm::tanh(x),                 tanh_grad(out, g))            // 1 - tanh^2
  TG_UNARY(Sigmoid, vm::sigmoid(x),              sigmoid_grad(out, g))         // s (1 - s)
  TG_UNARY(Reciprocal, T(1) / x,                 safe_mul(g, -(out * out)))    // -1/x^2
  // d/dx depends on the argument:
  TG_UNARY(Log,     vm::log(x),                  safe_div(g, x))               // 1/x
  TG_UNARY(Log1p,   vm::log1p(x),                safe_div(g, x + 1.0))         // 1/(1+x)
  TG_UNARY(Expm1,   vm::expm1(x),                g * exp(x))                   // e^x (out + 1 is 0 below -17 in float)
  TG_UNARY(Softplus, vm::softplus(x),            g * sigmoid(x))               // sigmoid(x)
  TG_UNARY(ExpNegAbs, vm::exp_neg_abs(x),        -(g * out * sign(x)))         // -sign(x) e^-|x|
  // Sigmoid, Softplus and Tanh of x given y = ExpNegAbs(x) (Note [Shared exponentials])
  TG_FUSED_FORM(SigmoidOfExp,  vm::sigmoid_of_exp(x, y))
  TG_FUSED_FORM(SoftplusOfExp, vm::softplus_of_exp(x, y))
  TG_FUSED_FORM(TanhOfExp,     vm::tanh_of_exp(x, y))
  TG_UNARY_RUN(Sin, vm::sin_run,                 g * cos(x))                   // any |x| (Note [Trig range])
  TG_UNARY_RUN(Cos, vm::cos_run,                 -(g * sin(x)))
  TG_UNARY(Tan,     std::tan(x),                 g * (square(out) + 1.0))      // 1 + tan^2
  TG_UNARY(Softsign, x / (T(1) + std::abs(x)), g / square(abs(x) + 1.0))     // 1 / (1 + |x|)^2
  TG_UNARY(Erf,     vm::erf(x),                  g * exp(-square(x)) * 1.1283791670955126)  // 2/sqrt(pi) e^-x^2
  TG_UNARY(Erfinv,  erfinv_scalar(x),            g * exp(square(out)) * 0.88622692545275801)  // sqrt(pi)/2 e^y^2
  TG_UNARY(Lgamma,  lgamma_scalar(x),            g * call("Digamma", {x}))     // log|Gamma(x)|' = digamma(x)
  TG_UNARY(Digamma, digamma_scalar(x),           g * call("Polygamma", {ones_like(x), x}))  // trigamma
  // inverse trigonometric and hyperbolic functions (NaN outside their domains, as TF):
  TG_UNARY(Asin,    std::asin(x),                g * rsqrt(1.0 - square(x)))   // 1 / sqrt(1 - x^2)
  TG_UNARY(Acos,    std::acos(x),                -(g * rsqrt(1.0 - square(x))))
  TG_UNARY(Atan,    std::atan(x),                g / (square(x) + 1.0))        // 1 / (1 + x^2)
  TG_UNARY(Sinh,    std::sinh(x),                g * call("Cosh", {x}))
  TG_UNARY(Cosh,    std::cosh(x),                g * call("Sinh", {x}))
  TG_UNARY(Asinh,   std::asinh(x),               g * rsqrt(square(x) + 1.0))   // 1 / sqrt(x^2 + 1)
  TG_UNARY(Acosh,   std::acosh(x),               g / call("Sinh", {out}))      // 1 / sqrt(x^2 - 1), NaN for x < 1
  TG_UNARY(Atanh,   std::atanh(x),               g / (1.0 - square(x)))        // 1 / (1 - x^2)
  // integers wrap (neg and abs of the lowest value are itself, as TF); abs(-0) = +0
  TG_UNARY_NUMERIC(Neg,    wrap_neg(x),          -g)
  TG_UNARY_NUMERIC(Square, wrap_mul(x, x),       g * x * 2.0)
  TG_UNARY_NUMERIC(Abs,    x < T(0) ? wrap_neg(x) : x + T(0),  g * sign(x))
  // zero gradient almost everywhere; sign(NaN) = NaN:
  TG_UNARY_NUMERIC(Sign,   x != x ? x : T((x > T(0)) - (x < T(0))), zeros_like(x))
  TG_UNARY(Floor,   std::floor(x),               zeros_like(x))
  TG_UNARY(Ceil,    std::ceil(x),                zeros_like(x))
  TG_LOGICAL_NOT()
  TG_UNARY(Round,   std::nearbyint(x),           zeros_like(x))                // half to even, as TF
  // The rows whose TF kernels also take narrow integers (Note [Element types]).
  TG_SIGNED_NARROW_UNARY(Neg,  wrap_neg(x))
  TG_SIGNED_NARROW_UNARY(Abs,  x < T(0) ? wrap_neg(x) : x)
  TG_SIGNED_NARROW_UNARY(Sign, T((x > T(0)) - (x < T(0))))
  TG_NARROW_UNARY(Square,      wrap_mul(x, x))
  TG_BITWISE_UNARY(Invert,     (T)~x)  // tf.bitwise.invert
}

}  // namespace tg
