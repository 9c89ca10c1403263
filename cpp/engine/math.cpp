// math.cpp -- thin C++ wrappers over registered ops used by gradient rules.
#include "engine/math.h"

namespace tg {

Tensor call(const char* op, const Tensors& x, const Attrs& attrs) { return apply(op_def(op), x, attrs); }

// Each wrapper looks its OpDef up once; RegisterGradient edits OpDefs in place, so this stays valid.
#define TG_DEFINE_UNARY(fn, op) \
  Tensor fn(const Tensor& x) { static const OpDef& d = op_def(op); return apply(d, {x}); }
#define TG_DEFINE_BINARY(fn, op) \
  Tensor fn(const Tensor& x, const Tensor& y) { static const OpDef& d = op_def(op); return apply(d, {x, y}); }
TG_RULE_VOCAB_UNARY(TG_DEFINE_UNARY)
TG_RULE_VOCAB_BINARY(TG_DEFINE_BINARY)
TG_DEFINE_BINARY(add, "Add")
TG_DEFINE_BINARY(sub, "Sub")
TG_DEFINE_BINARY(mul, "Mul")
TG_DEFINE_BINARY(div, "RealDiv")
TG_DEFINE_UNARY(neg, "Neg")

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, double b) { return add(a, scalar_like(a, b)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, scalar_like(a, b)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, scalar_like(a, b)); }
Tensor operator/(const Tensor& a, double b) { return div(a, scalar_like(a, b)); }
Tensor operator+(double a, const Tensor& b) { return add(scalar_like(b, a), b); }
Tensor operator-(double a, const Tensor& b) { return sub(scalar_like(b, a), b); }
Tensor operator*(double a, const Tensor& b) { return mul(scalar_like(b, a), b); }
Tensor operator/(double a, const Tensor& b) { return div(scalar_like(b, a), b); }

Tensor where(const Tensor& c, const Tensor& x, const Tensor& y) { return call("Select", {c, x, y}); }
Tensor cast(const Tensor& x, DType dtype) {
  return x->dtype == dtype ? x : call("Cast", {x}, Attrs().set("dtype", (int64_t)dtype));
}
Tensor reshape(const Tensor& x, const Shape& shape) { return call("Reshape", {x}, Attrs().set("shape", shape)); }
Tensor transpose(const Tensor& x, const std::vector<int64_t>& perm) {
  return call("Transpose", {x}, Attrs().set("perm", perm));
}
Tensor reduce_sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdims) {
  return call("Sum", {x}, Attrs().set("axis", axes).set("keepdims", keepdims));
}
Tensor matmul(const Tensor& a, const Tensor& b, bool ta, bool tb) {
  return call("MatMul", {a, b}, Attrs().set("transpose_a", ta).set("transpose_b", tb));
}
Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  return x->shape == shape ? x : call("BroadcastTo", {x}, Attrs().set("shape", shape));
}
Tensor zeros_like(const Tensor& x) { return zeros(x->shape, x->dtype); }
Tensor ones_like(const Tensor& x) { return full(x->shape, x->dtype, 1.0); }
Tensor scalar_like(const Tensor& x, double v) { return scalar(v, x->dtype); }

Tensor sum_to(const Tensor& g, const Shape& shape) {
  if (g->shape == shape) return g;
  Shape b;
  if (broadcast_shapes(g->shape, shape, b) && b == shape) return broadcast_to(g, shape);  // e.g. a scalar gradient
  int lead = g->ndim() - (int)shape.size();
  std::vector<int64_t> axes;
  for (int i = 0; i < g->ndim(); ++i)
    if (i < lead || (shape[i - lead] == 1 && g->shape[i] != 1)) axes.push_back(i);
  Tensor s = axes.empty() ? g : reduce_sum(g, axes, true);
  return s->shape == shape ? s : reshape(s, shape);
}

}  // namespace tg
