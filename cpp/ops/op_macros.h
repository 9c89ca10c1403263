// op_macros.h -- the row macros of the elementwise op tables.
//
// An elementwise family file is compiled once as the *register pass* (rows declare OpDefs with
// their dtype rule and gradient rule) and once per ISA level as a *kernel pass* (rows become
// vectorized loops handed to the kernel table, kernels/kernel_table.h). See Note [ISA dispatch] in cpu_dispatch.cpp.
//
// Rows:
//   TG_UNARY(Name, forward_expr_in_x, grad_expr)                  float32/float64
//   TG_BITWISE(Name, expr_in_x_y), TG_BITWISE_UNARY(Name, expr)    integers only (int32, int64, narrow), no gradient
//   TG_NARROW_BINARY / TG_NARROW_UNARY / TG_SIGNED_NARROW_UNARY(Name, expr), and
//     TG_NARROW_SELECT(): kernels of a row above for the narrow and unsigned integers (int8, int16 only
//     for the signed form), which its OpDef then also takes (Note [Element types] in core/dtype.h)
//   TG_UNARY_NUMERIC(Name, forward_expr_in_x, grad_expr)          also int32/int64
//   (unary forward expressions may use T, the element type, and alpha, the op's "alpha" attribute)
//   TG_UNARY_RUN(Name, run, grad_expr)                            float32/float64; the forward is a loop
//     run<T>(const T* x, T* out, int64_t n) instead of an expression (Note [Trig range] in vmath.h)
//   TG_BINARY(Name, forward_expr_in_x_y, grad_x, grad_y)          all numeric dtypes
//   TG_INT_DIV(Name, forward_expr_in_x_y, grad_x, grad_y)         as TG_BINARY; an integer divisor
//     holding a zero raises InvalidArgumentError (run_int_div)
//   TG_BINARY_FLOAT(Name, forward_expr_in_x_y, grad_x, grad_y)    float32/float64
//   TG_BINARY_NO_GRAD(Name, infer_fn, fwd, forward_expr_in_x_y)    all numeric dtypes, no gradient; the
//     forward is `fwd` (run_elementwise plus checks, as run_truncate_div)
//   TG_COMPARE(Name, bool_expr_in_x_y)                            every numeric dtype -> bool, no gradient
//   TG_LOGICAL(Name, bool_expr_in_x_y)                            bool -> bool, no gradient
//   TG_FUSED_FORM(Name, forward_expr_in_x_y)                      float32/float64, no gradient: an op's
//     form given an intermediate computed once for several ops (Note [Shared exponentials])
// Each row's kernel pass also hands the kernel table a *block kernel* per float type (kernel_table.h):
// the same expression over n contiguous elements of the program's float type, booleans as 0/1,
// which fused programs call (Note [Fused nodes], fused_program.h).
// Rules see x (and y), out, g and ctx (see GradCtx); a rule expression that contains a comma
// must be wrapped in parentheses. A gradient is only computed where ctx.needs_grad says so.
#pragma once

#define TG_CAT2(a, b) a##b
#define TG_CAT(a, b) TG_CAT2(a, b)

#ifdef TG_KERNEL_PASS
#include <cmath>
#include <cstdint>
#include "kernels/ew_loops.h"
#include "kernels/int_wrap.h"
#include "kernels/fused_program.h"
#include "kernels/vmath.h"
namespace vm = tg::vmath;
#include <limits>
#include <type_traits>

namespace tg {
namespace {
// Integer arithmetic wraps (kernels/int_wrap.h).
// An op's float attribute (alpha) in the kernel's type: an integer kernel saturates it (NaN is 0),
// since converting a float out of the integer's range is undefined behaviour.
template <class T> T attr_as(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (!(v == v)) return 0;
    if (v <= (double)std::numeric_limits<T>::lowest()) return std::numeric_limits<T>::lowest();
    if (v >= (double)std::numeric_limits<T>::max()) return std::numeric_limits<T>::max();
  }
  return (T)v;
}
// y == -1 for a signed integer (INT_MIN / -1 traps); never for an unsigned one.
template <class T> bool is_minus_one(T y) {
  if constexpr (std::is_signed_v<T>) return y == T(-1);
  else return false;
}
// A shift's amount clamped to [0, bits - 1], as TF's LeftShift / RightShift (1 << 40 in int32 is 1 << 31).
template <class T> int shift_amount(T y) {
  constexpr int top = (int)sizeof(T) * 8 - 1;
  if constexpr (std::is_signed_v<T>) { if (y < 0) return 0; }
  return y > (T)top ? top : (int)y;
}
template <class T> T shift_left(T x, T y) { return (T)((WrapType<T>)(std::make_unsigned_t<T>)x << shift_amount(y)); }
template <class T> T shift_right(T x, T y) { return (T)(x >> shift_amount(y)); }  // arithmetic for signed T
// Python/TF floor semantics; integer division by 0 gives 0 and INT_MIN / -1 wraps, never a trap
// (run_int_div refuses a zero divisor before the kernel runs).
template <class T> T floor_div(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::floor(x / y);
  } else {
    if (y == 0) return 0;
    if (is_minus_one(y)) return wrap_neg(x);
    T q = x / y;
    return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
  }
}
// C's truncating division and remainder (trunc(x / y) and fmod for floats); integer division by 0
// gives 0 and INT_MIN / -1 wraps, as floor_div (run_truncate_div refuses a zero divisor first).
template <class T> T truncate_div(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::trunc(x / y);
  } else {
    if (y == 0) return 0;
    if (is_minus_one(y)) return wrap_neg(x);
    return x / y;
  }
}
template <class T> T truncate_mod(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) return std::fmod(x, y);
  else return y == 0 || is_minus_one(y) ? 0 : x % y;
}
// x^y; integers by repeated squaring (negative exponents are rejected by infer_pow).
template <class T> T pow_any(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::pow(x, y);
  } else {
    using U = WrapType<T>;  // wrap on overflow instead of undefined behaviour
    U r = 1, b = (U)x;
    for (T e = y; e > 0; e >>= 1) {
      if (e & 1) r *= b;
      b *= b;
    }
    return (T)r;
  }
}
template <class T> T floor_mod(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    T r = std::fmod(x, y);
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
  } else {
    if (y == 0 || is_minus_one(y)) return 0;
    T r = x % y;
    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
  }
}
// Block loops of fused programs: every operand is a full block (the program splats scalars);
// a destination is only ever one of the operands at the same positions (a donated input).
template <class T, class F> void block_unary(const void* a, void* d, int64_t n, F f) {
  const T* __restrict x = static_cast<const T*>(a);
  T* __restrict o = static_cast<T*>(d);
  for (int64_t i = 0; i < n; ++i) o[i] = (T)f(x[i]);
}
template <class T, class F> void block_binary(const void* a, const void* b, void* d, int64_t n, F f) {
  const T* __restrict x = static_cast<const T*>(a);
  const T* __restrict y = static_cast<const T*>(b);
  T* __restrict o = static_cast<T*>(d);
  for (int64_t i = 0; i < n; ++i) o[i] = (T)f(x[i], y[i]);
}
template <class T, class F>
void block_ternary(const void* a, const void* b, const void* c, void* d, int64_t n, F f) {
  const T* __restrict x = static_cast<const T*>(a);
  const T* __restrict y = static_cast<const T*>(b);
  const T* __restrict z = static_cast<const T*>(c);
  T* __restrict o = static_cast<T*>(d);
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i], z[i]);
}
}  // namespace
}  // namespace tg

namespace tg {
void set_ew_kernel(const char* op, int isa, int dtype_index, void (*k)(const EwArgs&));
void set_block_kernel(const char* op, int isa, int dtype_index, FusedBlockFn k);
}

#define TG_FAMILY(family) void TG_CAT(TG_CAT(family, _kernels_), TG_ISA)()
#define TG_EW_SET(Name, Ty, dt, ...) \
  set_ew_kernel(#Name, TG_ISA_INDEX, dt, [](const EwArgs& a) { __VA_ARGS__; });
#define TG_BLOCK_SET(Name, Ty, dt, ...)                                                             \
  set_block_kernel(#Name, TG_ISA_INDEX, dt,                                                         \
                   [](const void* pa, const void* pb, const void* pc, void* pd, int64_t n, double alpha_) { \
                     (void)pb; (void)pc; (void)alpha_; __VA_ARGS__;                                 \
                   });
#define TG_UNARY_KERNEL(Name, Ty, dt, expr) \
  TG_EW_SET(Name, Ty, dt, const Ty alpha = attr_as<Ty>(a.alpha); (void)alpha; \
            unary_loop<Ty, Ty>(a, [alpha](Ty x) -> Ty { using T = Ty; (void)alpha; return (expr); }))
#define TG_UNARY_BLOCK(Name, Ty, dt, expr) \
  TG_BLOCK_SET(Name, Ty, dt, const Ty alpha = attr_as<Ty>(alpha_); \
               block_unary<Ty>(pa, pd, n, [alpha](Ty x) -> Ty { using T = Ty; (void)alpha; return (expr); }))
#define TG_BINARY_KERNEL(Name, Ty, R, dt, expr) \
  TG_EW_SET(Name, Ty, dt, binary_loop<Ty, R>(a, [](Ty x, Ty y) -> R { using T = Ty; return (expr); }))
#define TG_BINARY_BLOCK(Name, Ty, dt, expr) \
  TG_BLOCK_SET(Name, Ty, dt, \
               block_binary<Ty>(pa, pb, pd, n, [](Ty x, Ty y) -> Ty { using T = Ty; return (Ty)(expr); }))
// Block kernels in float32 and float64 (fused programs hold booleans as 0/1 of their float type).
#define TG_UNARY_BLOCKS(Name, expr) TG_UNARY_BLOCK(Name, float, 0, expr) TG_UNARY_BLOCK(Name, double, 1, expr)
#define TG_BINARY_BLOCKS(Name, expr) TG_BINARY_BLOCK(Name, float, 0, expr) TG_BINARY_BLOCK(Name, double, 1, expr)
#define TG_UNARY(Name, expr, rule) \
  TG_UNARY_KERNEL(Name, float, 0, expr) TG_UNARY_KERNEL(Name, double, 1, expr) TG_UNARY_BLOCKS(Name, expr)
#define TG_UNARY_RUN_KERNEL(Name, Ty, dt, run) \
  TG_EW_SET(Name, Ty, dt, unary_run_loop<Ty>(a, run<Ty>))
#define TG_UNARY_RUN(Name, run, rule)                                                                \
  TG_UNARY_RUN_KERNEL(Name, float, 0, run) TG_UNARY_RUN_KERNEL(Name, double, 1, run)                 \
  TG_BLOCK_SET(Name, float, 0, run<float>(static_cast<const float*>(pa), static_cast<float*>(pd), n)) \
  TG_BLOCK_SET(Name, double, 1, run<double>(static_cast<const double*>(pa), static_cast<double*>(pd), n))
#define TG_UNARY_NUMERIC(Name, expr, rule) \
  TG_UNARY(Name, expr, rule) TG_UNARY_KERNEL(Name, int32_t, 2, expr) TG_UNARY_KERNEL(Name, int64_t, 3, expr)
#define TG_BINARY_FLOAT(Name, expr, gx, gy) \
  TG_BINARY_KERNEL(Name, float, float, 0, expr) TG_BINARY_KERNEL(Name, double, double, 1, expr) \
  TG_BINARY_BLOCKS(Name, expr)
#define TG_BINARY(Name, expr, gx, gy) \
  TG_BINARY_FLOAT(Name, expr, gx, gy) TG_BINARY_KERNEL(Name, int32_t, int32_t, 2, expr) \
  TG_BINARY_KERNEL(Name, int64_t, int64_t, 3, expr)
#define TG_BINARY_ROW_WITH(Name, infer_fn, fwd, expr, gx, gy) TG_BINARY(Name, expr, gx, gy)
#define TG_INT_DIV(Name, expr, gx, gy) TG_BINARY(Name, expr, gx, gy)
#define TG_BINARY_NO_GRAD(Name, infer_fn, fwd, expr) TG_BINARY(Name, expr, , )
#define TG_COMPARE(Name, expr) \
  TG_BINARY_KERNEL(Name, float, bool, 0, expr) TG_BINARY_KERNEL(Name, double, bool, 1, expr) \
  TG_BINARY_KERNEL(Name, int32_t, bool, 2, expr) TG_BINARY_KERNEL(Name, int64_t, bool, 3, expr) \
  TG_BINARY_KERNEL(Name, bool, bool, 4, expr) TG_BINARY_BLOCKS(Name, expr) TG_NARROW_COMPARE(Name, expr)
#define TG_LOGICAL(Name, expr) TG_BINARY_KERNEL(Name, bool, bool, 4, expr) TG_BINARY_BLOCKS(Name, expr)
#define TG_FUSED_FORM(Name, expr) TG_BINARY_FLOAT(Name, expr, , )
// Select(c, x, y) = c ? x : y
#define TG_SELECT_KERNEL(Ty, dt) \
  TG_EW_SET(Select, Ty, dt, ternary_loop<bool, Ty>(a, [](bool c, Ty x, Ty y) -> Ty { return select_bits(c, x, y); }))
#define TG_SELECT_BLOCK(Ty, dt) \
  TG_BLOCK_SET(Select, Ty, dt, block_ternary<Ty>(pa, pb, pc, pd, n, [](Ty c, Ty x, Ty y) -> Ty { \
                 return select_bits(c != Ty(0), x, y); }))
#define TG_SELECT() \
  TG_SELECT_KERNEL(float, 0) TG_SELECT_KERNEL(double, 1) TG_SELECT_KERNEL(int32_t, 2) \
  TG_SELECT_KERNEL(int64_t, 3) TG_SELECT_KERNEL(bool, 4) TG_SELECT_BLOCK(float, 0) TG_SELECT_BLOCK(double, 1)
#define TG_LOGICAL_NOT_EXPR !x
#define TG_LOGICAL_NOT()                                                                                \
  TG_EW_SET(LogicalNot, bool, 4, unary_loop<bool, bool>(a, [](bool x) -> bool { return TG_LOGICAL_NOT_EXPR; })) \
  TG_UNARY_BLOCKS(LogicalNot, TG_LOGICAL_NOT_EXPR)
// Kernels for the narrow and unsigned integers (dtype codes 6-11, Note [Element types]); the
// signed ones only (int8, int16) where TF's kernel takes no unsigned type.
#define TG_NARROW_KERNELS(K, Name, R, expr) \
  K(Name, uint8_t, R(uint8_t), 6, expr) K(Name, int8_t, R(int8_t), 7, expr) K(Name, int16_t, R(int16_t), 8, expr) \
  K(Name, uint16_t, R(uint16_t), 9, expr) K(Name, uint32_t, R(uint32_t), 10, expr) \
  K(Name, uint64_t, R(uint64_t), 11, expr)
#define TG_SAME(T) T
#define TG_BOOL(T) bool
#define TG_UNARY_KERNEL_R(Name, Ty, R, dt, expr) TG_UNARY_KERNEL(Name, Ty, dt, expr)
#define TG_NARROW_BINARY(Name, expr) TG_NARROW_KERNELS(TG_BINARY_KERNEL, Name, TG_SAME, expr)
#define TG_NARROW_COMPARE(Name, expr) TG_NARROW_KERNELS(TG_BINARY_KERNEL, Name, TG_BOOL, expr)
#define TG_NARROW_UNARY(Name, expr) TG_NARROW_KERNELS(TG_UNARY_KERNEL_R, Name, TG_SAME, expr)
#define TG_SIGNED_NARROW_UNARY(Name, expr) \
  TG_UNARY_KERNEL(Name, int8_t, 7, expr) TG_UNARY_KERNEL(Name, int16_t, 8, expr)
// Integer-only rows (tf.bitwise): int32, int64 and the narrow integers.
#define TG_BITWISE(Name, expr) \
  TG_BINARY_KERNEL(Name, int32_t, int32_t, 2, expr) TG_BINARY_KERNEL(Name, int64_t, int64_t, 3, expr) \
  TG_NARROW_KERNELS(TG_BINARY_KERNEL, Name, TG_SAME, expr)
#define TG_BITWISE_UNARY(Name, expr) \
  TG_UNARY_KERNEL(Name, int32_t, 2, expr) TG_UNARY_KERNEL(Name, int64_t, 3, expr) \
  TG_NARROW_KERNELS(TG_UNARY_KERNEL_R, Name, TG_SAME, expr)
// Select moves elements: the half types (codes 12, 13) are moved as their bits.
#define TG_NARROW_SELECT() \
  TG_SELECT_KERNEL(uint8_t, 6) TG_SELECT_KERNEL(int8_t, 7) TG_SELECT_KERNEL(int16_t, 8) \
  TG_SELECT_KERNEL(uint16_t, 9) TG_SELECT_KERNEL(uint32_t, 10) TG_SELECT_KERNEL(uint64_t, 11) \
  TG_SELECT_KERNEL(uint16_t, 12) TG_SELECT_KERNEL(uint16_t, 13)
// Rows outside the elementwise macros exist only in the register pass.
#define TG_REGISTER_ONLY(...)

#else  // register pass
#include "engine/forward.h"
#include "engine/math.h"
#include "ops/elementwise_rules.h"

#define TG_FAMILY(family) void TG_CAT(register_, TG_CAT(family, _ops))()
#define TG_RULE_LOCALS                                                           \
  const Tensor& x = ctx.x[0]; const Tensor& out = ctx.out; const Tensor& g = ctx.g; \
  (void)x; (void)out; (void)g;
// Every elementwise row's JVP is its gradient rule applied to the tangents (see elementwise_jvp).
#define TG_EW_JVP(Name)                                                                      \
  .jvp([](const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& a) -> Tensor { \
    static const OpDef& d = op_def(#Name);                                                  \
    return elementwise_jvp(d, x, out, tx, a);                                               \
  })
#define TG_UNARY_ROW(Name, infer_fn, rule)                                              \
  def_op(#Name).also_types(kHalfTypes).inputs(1).shape(infer_fn).forward(run_elementwise).batched().elementwise_grad().gradient( \
      [](GradCtx& ctx) -> Tensors { TG_RULE_LOCALS return {rule}; }) TG_EW_JVP(Name);
#define TG_UNARY(Name, expr, rule) TG_UNARY_ROW(Name, infer_unary_float, rule)
#define TG_UNARY_RUN(Name, run, rule) TG_UNARY_ROW(Name, infer_unary_float, rule)
#define TG_UNARY_NUMERIC(Name, expr, rule) TG_UNARY_ROW(Name, infer_unary_numeric, rule)
#define TG_BINARY_ROW(Name, infer_fn, gx, gy) TG_BINARY_ROW_FWD(Name, infer_fn, run_elementwise, gx, gy)
#define TG_BINARY_ROW_FWD(Name, infer_fn, fwd, gx, gy)                                  \
  def_op(#Name).also_types(kHalfTypes).inputs(2).shape(infer_fn).forward(fwd).batched().elementwise_grad().gradient( \
      [](GradCtx& ctx) -> Tensors {                                                      \
        TG_RULE_LOCALS const Tensor& y = ctx.x[1]; (void)y;                              \
        Tensors r(2);                                                                    \
        if (ctx.needs_grad[0]) r[0] = (gx);                                              \
        if (ctx.needs_grad[1]) r[1] = (gy);                                              \
        return r;                                                                        \
      }) TG_EW_JVP(Name);
#define TG_BINARY(Name, expr, gx, gy) TG_BINARY_ROW(Name, infer_binary_numeric, gx, gy)
#define TG_BINARY_ROW_WITH(Name, infer_fn, fwd, expr, gx, gy) TG_BINARY_ROW_FWD(Name, infer_fn, fwd, gx, gy)
#define TG_INT_DIV(Name, expr, gx, gy) TG_BINARY_ROW_FWD(Name, infer_binary_numeric, run_int_div, gx, gy)
#define TG_BINARY_NO_GRAD(Name, infer_fn, fwd, expr) \
  def_op(#Name).also_types(kHalfTypes).inputs(2).shape(infer_fn).forward(fwd).not_differentiable();
#define TG_BINARY_FLOAT(Name, expr, gx, gy) TG_BINARY_ROW(Name, infer_binary_float, gx, gy)
#define TG_COMPARE(Name, expr) \
  def_op(#Name).also_types(kNarrowInts | kHalfTypes).inputs(2).shape(infer_compare).forward(run_elementwise).not_differentiable();
#define TG_LOGICAL(Name, expr) \
  def_op(#Name).inputs(2).shape(infer_logical).forward(run_elementwise).not_differentiable();
#define TG_FUSED_FORM(Name, expr) \
  def_op(#Name).also_types(kHalfTypes).inputs(2).shape(infer_binary_float).forward(run_elementwise).not_differentiable();
#define TG_SELECT()                                                                        \
  def_op("Select").inputs(3).shape(infer_select).forward(run_elementwise).batched().elementwise_grad().gradient( \
      [](GradCtx& ctx) -> Tensors {                                                         \
        const Tensor &c = ctx.x[0], &g = ctx.g;                                             \
        Tensor z = zeros_like(g);                                                           \
        return {nullptr, ctx.needs_grad[1] ? where(c, g, z) : nullptr,                      \
                ctx.needs_grad[2] ? where(c, z, g) : nullptr};                              \
      }).jvp([](const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs&) -> Tensor { \
        Tensor z = zeros_like(out);  /* the tangent of the chosen branch */                  \
        return where(x[0], tx[1] ? broadcast_to(tx[1], out->shape) : z,                    \
                     tx[2] ? broadcast_to(tx[2], out->shape) : z);                          \
      });
#define TG_LOGICAL_NOT() \
  def_op("LogicalNot").inputs(1).shape(infer_logical).forward(run_elementwise).not_differentiable();
#define TG_REGISTER_ONLY(...) __VA_ARGS__
#define TG_NARROW_BINARY(Name, expr) mutable_op(#Name).also_types(kNarrowInts);
#define TG_NARROW_UNARY(Name, expr) mutable_op(#Name).also_types(kNarrowInts);
#define TG_SIGNED_NARROW_UNARY(Name, expr) \
  mutable_op(#Name).also_types(dtype_bit(DType::Int8) | dtype_bit(DType::Int16));
#define TG_NARROW_SELECT() mutable_op("Select").also_types(kNarrowInts | kHalfTypes);
#define TG_BITWISE(Name, expr) \
  def_op(#Name).only_types(kIntTypes).inputs(2).shape(infer_binary_numeric).forward(run_elementwise).not_differentiable();
#define TG_BITWISE_UNARY(Name, expr) \
  def_op(#Name).only_types(kIntTypes).inputs(1).shape(infer_unary_numeric).forward(run_elementwise).not_differentiable();

namespace tg {
// Rule helpers for ops singular at a finite input: exactly zero where the upstream gradient
// is exactly zero, so a masked lane (where(x > 0, sqrt(x), 0)) never turns 0 * inf into NaN.
inline Tensor safe_mul(const Tensor& g, const Tensor& d) { return call("MulNoNan", {d, g}); }
inline Tensor safe_div(const Tensor& g, const Tensor& x) { return safe_mul(g, reciprocal(x)); }
}  // namespace tg
#endif
