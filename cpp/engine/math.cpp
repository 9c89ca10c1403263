// math.cpp -- thin C++ wrappers over registered ops used by gradient rules.
#include "engine/math.h"
#include "core/error.h"
#include "core/flush_denormal.h"
#include "engine/observer.h"
#include "kernels/elementwise.h"

namespace tg {

// Rules name ops by string literal: remember each literal's OpDef (per thread, since sweeps may run
// without the GIL) instead of a map lookup by std::string on every call.
static const OpDef& cached_op(const char* op) {
  thread_local std::vector<std::pair<const char*, const OpDef*>> seen;
  for (auto& kv : seen)
    if (kv.first == op) return *kv.second;
  const OpDef& d = op_def(op);
  seen.emplace_back(op, &d);
  return d;
}

Tensor call(const char* op, const Tensors& x, const Attrs& attrs) { return apply(cached_op(op), x, attrs); }

// Each wrapper looks its OpDef up once; RegisterGradient edits OpDefs in place, so this stays valid.
#define TG_DEFINE_UNARY(fn, op) \
  Tensor fn(const Tensor& x) { static const OpDef& d = op_def(op); return tg::apply(d, Tensors(1, x)); }
#define TG_DEFINE_BINARY(fn, op) \
  Tensor fn(const Tensor& x, const Tensor& y) { static const OpDef& d = op_def(op); return tg::apply2(d, x, y); }
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

// Note [Gradient sums in place]: when nothing observes ops (no tape records, no forward accumulator,
// tracer or check_numerics) and the partial sum is a tensor only the sweep holds (TensorImpl and
// storage uniquely owned: no Python object, view or tape entry can see it), the further gradient is
// added into its buffer: one op dispatch and one tensor less per tensor read twice.
void add_into(Tensor& acc, const Tensor& g) {
  static const OpDef& d = op_def("Add");
  if (!any_observer() && !g_check_numerics && acc.use_count() == 1 && acc->storage && acc->storage.use_count() == 1 &&
      !acc->is_variable && g->storage && acc->dtype == g->dtype && acc->shape == g->shape) {
    const TensorImpl* x[2] = {acc.get(), g.get()};
    ScopedFlushDenormal ftz;  // Note [Flush denormals]
    if (run_elementwise_into(d, x, 2, *acc)) return;
  }
  acc = tg::apply2(d, acc, g);
}

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
// In a trace whose sizes vary with values, x's run-time shape (Note [Sizes in traced rules]).
Tensor zeros_like(const Tensor& x) {
  return sizes_vary_with_values() ? call("BroadcastLike", {scalar(0.0, x->dtype), x}) : zeros(x->shape, x->dtype);
}
Tensor ones_like(const Tensor& x) {
  return sizes_vary_with_values() ? call("BroadcastLike", {scalar(1.0, x->dtype), x}) : full(x->shape, x->dtype, 1.0);
}
Tensor scalar_like(const Tensor& x, double v) { return scalar(v, x->dtype); }

Tensor sum_to(const Tensor& g, const Shape& shape, const Shape& batch_prefix) {
  const int batch = (int)batch_prefix.size();
  Shape want = batch_prefix;
  want.insert(want.end(), shape.begin(), shape.end());
  if (g->shape == want) return g;
  Shape b;
  if (broadcast_shapes(g->shape, want, b) && b == want) return broadcast_to(g, want);  // e.g. a scalar gradient
  int lead = g->ndim() - (int)want.size();  // broadcast axes between the batch axes and the shape
  if (lead < 0)
    throw InvalidArgument(cat("a gradient of ", meta_str(g), " cannot be reduced to shape ", shape_str(want)));
  std::vector<int64_t> axes;
  for (int i = batch; i < g->ndim(); ++i)
    if (i < batch + lead || (want[i - lead] == 1 && g->shape[i] != 1)) axes.push_back(i);
  if (axes.empty()) return g->shape == want ? g : reshape(g, want);
  // Only leading axes summed away (a bias, say): one reduction without keepdims has the shape.
  bool leading_only = true;
  for (int64_t a : axes) leading_only &= a < batch + lead;
  Tensor s = reduce_sum(g, axes, !leading_only);
  return s->shape == want ? s : reshape(s, want);
}

Shape batched_shape(const GradCtx& ctx, const Shape& shape) {
  Shape s(ctx.g->shape.begin(), ctx.g->shape.begin() + ctx.batch);
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

Shape traced_shape(Shape shape) {
  if (shape.size() < 2 || !sizes_at_run_time()) return shape;
  int64_t rest = 1;
  for (size_t i = 1; i < shape.size(); ++i) rest *= shape[i];
  if (rest > 0) shape[0] = -1;
  return shape;
}

int64_t batched_axis(const GradCtx& ctx, int64_t axis, int ndim) { return (axis < 0 ? axis + ndim : axis) + ctx.batch; }

Tensor strided_slice(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
                     const std::vector<int64_t>& strides) {
  return call("StridedSlice", {x}, Attrs().set("begin", begin).set("end", end).set("strides", strides));
}

Tensor concat(const Tensors& xs, int64_t axis) {
  return xs.size() == 1 ? xs[0] : call("ConcatV2", xs, Attrs().set("axis", axis));
}

}  // namespace tg
