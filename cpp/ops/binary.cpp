// binary.cpp -- elementwise binary ops (broadcasting), comparisons, logical ops and Select.
#include "kernels/gamma_functions.h"
#include "ops/op_macros.h"

namespace tg {

TG_FAMILY(binary) {
  // integers wrap on overflow, as TF (wrap_* in op_macros.h)
  TG_BINARY(Add,        wrap_add(x, y),        g, g)
  TG_BINARY(Sub,        wrap_sub(x, y),        g, -g)
  TG_BINARY(Mul,        wrap_mul(x, y),        g * y, g * x)
  // polygamma(a, x) = the a-th derivative of digamma at x; no gradient for the order a (as TF)
  TG_BINARY_FLOAT(Polygamma, polygamma_scalar(x, y), Tensor(), g * call("Polygamma", {x + 1.0, y}))
  // atan2(y, x): the first input is TF's y; d/dy = x / (x^2 + y^2), d/dx = -y / (x^2 + y^2)
  TG_BINARY_FLOAT(Atan2, std::atan2(x, y),      g * y / (square(x) + square(y)), -(g * x / (square(x) + square(y))))
  TG_BINARY_FLOAT(RealDiv, x / y,              safe_div(g, y), safe_mul(g, -(out / y)))  // d/dy x/y = -(x/y)/y
  // a NaN on either side gives NaN, as TF; on ties (-0 and +0 included) x is taken. The gradient
  // goes to x where x >= y (x <= y), else to y, so to a NaN y, as TF
  TG_BINARY(Maximum,    (x < y || y != y) ? y : x, where(greater_equal(x, y), g, zeros_like(g)),
                                               where(greater_equal(x, y), zeros_like(g), g))
  TG_BINARY(Minimum,    (y < x || y != y) ? y : x, where(less_equal(x, y), g, zeros_like(g)),
                                               where(less_equal(x, y), zeros_like(g), g))
  TG_BINARY(SquaredDifference, wrap_mul(wrap_sub(x, y), wrap_sub(x, y)), g * (x - y) * 2.0, -(g * (x - y) * 2.0))
  // x^y: d/dx = y x^(y-1); d/dy = x^y log x (taken as 0 where x <= 0)
  TG_BINARY_ROW_WITH(Pow, infer_binary_numeric, run_pow, pow_any(x, y), safe_mul(g, y * pow(x, y - 1.0)),
                    safe_mul(g, out * where(greater(x, zeros_like(x)), log(x), zeros_like(x))))
  // MulNoNan(x, y) = 0 where y == 0, else x * y.
  TG_BINARY_FLOAT(MulNoNan, y == T(0) ? T(0) : x * y, (call("MulNoNan", {g, y})), (call("MulNoNan", {x, g})))
  // x log y and x / y, 0 where x == 0 (even for a NaN y); x / y, 0 where y == 0. As TF's math_grad:
  // d/dx xlogy = xlogy(x != 0, y), d/dy = xdivy(x, y); d/dx xdivy = xdivy(x != 0, y), d/dy = xdivy(-x, y^2);
  // d/dx divnonan = divnonan(g, y), d/dy = g divnonan(divnonan(-x, y), y)
  TG_BINARY_FLOAT(Xlogy, x == T(0) ? T(0) : x * std::log(y), g * call("Xlogy", {cast(not_equal(x, zeros_like(x)), x->dtype), y}),
                  g * call("Xdivy", {x, y}))
  TG_BINARY_FLOAT(Xdivy, x == T(0) ? T(0) : x / y, g * call("Xdivy", {cast(not_equal(x, zeros_like(x)), x->dtype), y}),
                  g * call("Xdivy", {-x, square(y)}))
  TG_BINARY_FLOAT(DivNoNan, y == T(0) ? T(0) : x / y, call("DivNoNan", {g, y}),
                  g * call("DivNoNan", {call("DivNoNan", {-x, y}), y}))
  // integer division by zero raises (run_int_div), as TF
  TG_INT_DIV(FloorDiv,  floor_div(x, y),       zeros_like(x), zeros_like(y))
  TG_INT_DIV(FloorMod,  floor_mod(x, y),       g, (-(g * call("FloorDiv", {x, y}))))      // x - floor(x/y) y
  // C's truncating division and remainder; an integer zero divisor raises InternalError, as TF's
  // kernels. TruncateDiv has no gradient (as TF); TruncateMod = x - trunc(x/y) y has FloorMod's rule
  // with trunc (TF registers none)
  TG_BINARY_NO_GRAD(TruncateDiv, infer_binary_numeric, run_truncate_div, truncate_div(x, y))
  TG_BINARY_ROW_WITH(TruncateMod, infer_binary_numeric, run_truncate_div, truncate_mod(x, y), g,
                     (-(g * call("TruncateDiv", {x, y}))))
  // the next float after x toward y; d/dx = 1, d/dy = 0 (TF's rule)
  TG_BINARY_FLOAT(NextAfter, std::nextafter(x, y), g, zeros_like(g))
  // Fused backward ops: TanhGrad(t, g) = g (1 - t^2); SigmoidGrad(s, g) = g s (1 - s).
  TG_BINARY_FLOAT(TanhGrad,    y * (T(1) - x * x),  g * y * x * -2.0, tanh_grad(x, g))
  TG_BINARY_FLOAT(SigmoidGrad, y * x * (T(1) - x),  g * y * (1.0 - x * 2.0), sigmoid_grad(x, g))
  // no gradient:
  TG_COMPARE(Less,         x < y)
  TG_COMPARE(LessEqual,    x <= y)
  TG_COMPARE(Greater,      x > y)
  TG_COMPARE(GreaterEqual, x >= y)
  TG_COMPARE(Equal,        x == y)
  TG_COMPARE(NotEqual,     x != y)
  TG_LOGICAL(LogicalAnd,   x && y)
  TG_LOGICAL(LogicalOr,    x || y)
  TG_SELECT()   // Select(c, x, y) = c ? x : y; d/dx = where(c, g, 0), d/dy = where(c, 0, g)
  // The rows whose TF kernels also take the narrow and unsigned integers (Note [Element types]).
  TG_NARROW_BINARY(Add,         wrap_add(x, y))
  TG_NARROW_BINARY(Sub,         wrap_sub(x, y))
  TG_NARROW_BINARY(Mul,         wrap_mul(x, y))
  TG_NARROW_BINARY(Maximum,     x < y ? y : x)
  TG_NARROW_BINARY(Minimum,     y < x ? y : x)
  TG_NARROW_BINARY(FloorDiv,    floor_div(x, y))
  TG_NARROW_BINARY(FloorMod,    floor_mod(x, y))
  TG_NARROW_BINARY(TruncateDiv, truncate_div(x, y))
  TG_NARROW_SELECT()
  // tf.bitwise
  TG_BITWISE(BitwiseAnd, x & y)
  TG_BITWISE(BitwiseOr,  x | y)
  TG_BITWISE(BitwiseXor, x ^ y)
  TG_BITWISE(LeftShift,  shift_left(x, y))
  TG_BITWISE(RightShift, shift_right(x, y))
}

}  // namespace tg
