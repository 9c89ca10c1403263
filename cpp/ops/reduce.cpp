// reduce.cpp -- reductions over axes (attrs: axis = list of ints, absent = all; keepdims).
#include <limits>
#include "core/error.h"
#include "engine/math.h"
#include "kernels/reduce.h"

namespace tg {

namespace {

// Which axes a reduction covers (validated, duplicates allowed as in TF).
std::vector<bool> reduce_mask(const OpDef& op, const Tensor& x, const Attrs& a) {
  std::vector<bool> mask(x->ndim(), !a.has("axis"));
  for (int64_t ax : a.ints("axis")) {
    if (ax < -x->ndim() || ax >= x->ndim())
      throw InvalidArgument(cat(op.name, ": axis ", ax, " is out of range for input ", meta_str(x)));
    mask[ax < 0 ? ax + x->ndim() : ax] = true;
  }
  return mask;
}

Shape kept_shape(const Tensor& x, const std::vector<bool>& mask) {
  Shape s = x->shape;
  for (int i = 0; i < x->ndim(); ++i)
    if (mask[i]) s[i] = 1;
  return s;
}

OutMeta reduce_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected a numeric tensor, got ", meta_str(x[0])));
  auto mask = reduce_mask(op, x[0], a);
  Shape s;
  for (int i = 0; i < x[0]->ndim(); ++i)
    if (!mask[i]) s.push_back(x[0]->shape[i]);
    else if (a.b("keepdims")) s.push_back(1);
  return {s, x[0]->dtype};
}

template <ReduceKind K>
Tensor reduce_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor r = reduce(x[0], reduce_mask(op, x[0], a), K);
  return view(r, m.shape);
}

Tensor mean_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  auto mask = reduce_mask(op, x[0], a);
  Tensor r = reduce(x[0], mask, ReduceKind::Sum);
  int64_t n = 1;
  for (int i = 0; i < x[0]->ndim(); ++i)
    if (mask[i]) n *= x[0]->shape[i];
  dispatch_dtype(r->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      T* p = r->data_as<T>();
      // mean of nothing: NaN for floats (as NumPy and TF), 0 for integers
      const T empty_mean = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
      for (int64_t i = 0; i < r->size; ++i) p[i] = n ? (T)(p[i] / (T)n) : empty_mean;
    }
    return 0;
  });
  return view(r, m.shape);
}

// g, reshaped to keep the reduced axes, broadcast back over x.
// (With a batched g the batch axes stay in front; see Note [Batched gradients].)
Tensor spread(const GradCtx& ctx, const OpDef& op, const Tensor& t) {
  const int extra = t->ndim() - ctx.out->ndim();  // batch axes carried by t
  Shape kept = kept_shape(ctx.x[0], reduce_mask(op, ctx.x[0], ctx.attrs)), full = ctx.x[0]->shape;
  kept.insert(kept.begin(), t->shape.begin(), t->shape.begin() + extra);
  full.insert(full.begin(), t->shape.begin(), t->shape.begin() + extra);
  return broadcast_to(reshape(t, kept), full);
}

int64_t reduced_count(const GradCtx& ctx, const OpDef& op) {
  auto mask = reduce_mask(op, ctx.x[0], ctx.attrs);
  int64_t n = 1;
  for (int i = 0; i < ctx.x[0]->ndim(); ++i)
    if (mask[i]) n *= ctx.x[0]->shape[i];
  return n;
}

// d max / dx: g shared equally among the entries equal to the max (as TF).
Tensors extremum_grad(GradCtx& ctx, const OpDef& op) {
  Tensor hit = cast(equal(ctx.x[0], spread(ctx, op, ctx.out)), ctx.x[0]->dtype);
  Tensor count = reshape(call("Sum", {hit}, ctx.attrs), ctx.out->shape);
  return {hit * spread(ctx, op, ctx.g / count)};
}

}  // namespace

void register_reduce_ops() {
  def_op("Sum").shape(reduce_infer).forward(reduce_kernel<ReduceKind::Sum>).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {spread(ctx, op_def("Sum"), ctx.g)}; });  // d/dx sum = 1
  def_op("Mean").shape(reduce_infer).forward(mean_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors {                                                  // 1/n
        const OpDef& op = op_def("Mean");
        return {spread(ctx, op, ctx.g) / (double)reduced_count(ctx, op)};
      });
  def_op("Max").shape(reduce_infer).forward(reduce_kernel<ReduceKind::Max>).batched()
      .gradient([](GradCtx& ctx) { return extremum_grad(ctx, op_def("Max")); });
  def_op("Min").shape(reduce_infer).forward(reduce_kernel<ReduceKind::Min>).batched()
      .gradient([](GradCtx& ctx) { return extremum_grad(ctx, op_def("Min")); });
}

}  // namespace tg
