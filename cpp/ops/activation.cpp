// activation.cpp -- elementwise activations of tf.nn (relu family, elu, selu).
#include "ops/op_macros.h"

namespace tg {

TG_FAMILY(activation) {
  TG_UNARY(Relu,  x > T(0) ? x : T(0),                          where(greater(x, zeros_like(x)), g, zeros_like(g)))
  TG_UNARY(Relu6, x > T(0) ? (x < T(6) ? x : T(6)) : T(0),
           where(logical_and(greater(x, zeros_like(x)), less(x, scalar_like(x, 6.0))), g, zeros_like(g)))
  // alpha * x for x < 0
  TG_UNARY(LeakyRelu, x > T(0) ? x : alpha * x,
           where(greater(x, zeros_like(x)), g, g * ctx.attrs.f("alpha", 0.2)))
  // d/dx = 1 for x > 0, else e^x = out + 1
  TG_UNARY(Elu,   x > T(0) ? x : vm::expm1(x),                  where(greater(x, zeros_like(x)), g, g * (out + 1.0)))
  // scale * (x > 0 ? x : alpha (e^x - 1)), scale = 1.0507..., alpha = 1.6732...
  TG_UNARY(Selu,  x > T(0) ? T(1.0507009873554805) * x : T(1.7580993408473766) * vm::expm1(x),
           where(greater(x, zeros_like(x)), g * 1.0507009873554805, g * (out + 1.7580993408473766)))
}

}  // namespace tg
