// math.h -- the vocabulary gradient rules are written in: each function runs one registered op,
// so a rule built from them is recorded by outer tapes and differentiates again.
#pragma once
#include "engine/eager.h"

namespace tg {

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
// A number on one side becomes a scalar of the tensor's dtype.
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);

// acc + g, written into acc's buffer when nobody else can see it (Note [Gradient sums in place]).
void add_into(Tensor& acc, const Tensor& g);

Tensor call(const char* op, const Tensors& x, const Attrs& attrs = {});
#define TG_RULE_VOCAB_UNARY(X) \
  X(exp, "Exp") X(log, "Log") X(sqrt, "Sqrt") X(rsqrt, "Rsqrt") X(square, "Square") \
  X(sin, "Sin") X(cos, "Cos") X(tanh, "Tanh") X(sigmoid, "Sigmoid") X(sign, "Sign") \
  X(reciprocal, "Reciprocal") X(abs, "Abs") X(softplus, "Softplus") X(log1p, "Log1p") \
  X(expm1, "Expm1") X(erf, "Erf") X(stop_gradient, "StopGradient") X(identity, "Identity") \
  X(logical_not, "LogicalNot")
#define TG_RULE_VOCAB_BINARY(X) \
  X(pow, "Pow") X(maximum, "Maximum") X(minimum, "Minimum") X(greater, "Greater") \
  X(greater_equal, "GreaterEqual") X(less, "Less") X(less_equal, "LessEqual") X(equal, "Equal") \
  X(not_equal, "NotEqual") X(logical_and, "LogicalAnd") X(logical_or, "LogicalOr") \
  X(tanh_grad, "TanhGrad") X(sigmoid_grad, "SigmoidGrad") X(relu_grad, "ReluGrad") X(elu_grad, "EluGrad")
#define TG_DECLARE_UNARY(fn, op) Tensor fn(const Tensor& x);
#define TG_DECLARE_BINARY(fn, op) Tensor fn(const Tensor& x, const Tensor& y);
TG_RULE_VOCAB_UNARY(TG_DECLARE_UNARY)
TG_RULE_VOCAB_BINARY(TG_DECLARE_BINARY)
#undef TG_DECLARE_UNARY
#undef TG_DECLARE_BINARY

Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);   // Select
Tensor cast(const Tensor& x, DType dtype);
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm);
Tensor reduce_sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims);
Tensor matmul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
Tensor scalar_like(const Tensor& x, double v);   // a 0-d tensor of x's dtype
// Sums g over broadcast dimensions so that it has `shape` (see Note [Broadcast reduction]);
// with a batch prefix the result has shape prefix + shape (see Note [Batched gradients]).
Tensor sum_to(const Tensor& g, const Shape& shape, const Shape& batch_prefix = {});
// `shape` with the batch axes of ctx.g in front, and an axis shifted past them.
Shape batched_shape(const GradCtx& ctx, const Shape& shape);
int64_t batched_axis(const GradCtx& ctx, int64_t axis, int ndim);
// A reshape target for a rule: while sizes are taken at run time (Note [Sizes in traced rules]),
// the first dimension becomes -1 (inferred) when the others hold elements.
Shape traced_shape(Shape shape);
Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& strides);
Tensor concat(const Tensors& xs, int64_t axis);

}  // namespace tg
