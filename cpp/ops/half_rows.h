// half_rows.h -- rows whose float32 shape rule and kernel also serve the half types (Note [Half types
// through float32]).
#pragma once
#include "core/error.h"
#include "engine/registry.h"
#include "kernels/half.h"

namespace tg {

// Note [Half types through float32]: an op with no kernels of its own for float16 or bfloat16
// (MatMul, the convolutions, pools, softmax) takes them through its float32 row: the shape rule sees
// float32 stand-ins for the half inputs (their metadata only), the kernel runs on the inputs widened
// to float32 (exactly), and a float32 result is rounded to the half type once. TF's CPU kernels
// compute half values in float the same way (Eigen's half GEMM and oneDNN's bfloat16 GEMM accumulate
// in float32). A row wraps its functions as shape(half_infer<f>).forward(half_kernel<k>) and lists
// kHalfTypes; every floating input must then have the one half type (MatMul of float16 and float32 is
// refused, as TF). Gradient rules are written in registered ops, so a half forward gets half gradients
// through the same rows.
DType half_input_type(const OpDef& op, const Tensors& x);  // Float32 when no input is a half type
Tensors float32_stand_ins(const Tensors& x);
Tensors widened_inputs(const Tensors& x);

template <InferFn F> OutMeta half_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const DType h = half_input_type(op, x);
  if (h == DType::Float32) return F(op, x, a);
  OutMeta m = F(op, float32_stand_ins(x), a);
  if (m.dtype == DType::Float32) m.dtype = h;
  return m;
}

template <KernelFn K> Tensor half_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (!is_half(m.dtype) && half_input_type(op, x) == DType::Float32) return K(op, x, a, m);
  const Tensors wide = widened_inputs(x);
  if (!is_half(m.dtype)) return K(op, wide, a, m);
  return rounded_half(K(op, wide, a, {m.shape, DType::Float32}), m.dtype);
}

}  // namespace tg
