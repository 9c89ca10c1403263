// reduce.cpp -- reductions over axes (attrs: axis = list of ints, absent = all; keepdims), Prod and its
// ProdOthers helper, Any/All, ArgMax/ArgMin, Cumsum and Cumprod.
#include <limits>
#include "core/error.h"
#include "engine/forward.h"
#include "engine/observer.h"
#include "engine/math.h"
#include "kernels/reduce.h"
#include "kernels/half.h"

namespace tg {

namespace {

// Which axes a reduction covers (validated; an axis named twice, as [0, 0] or [0, -2], raises as in TF).
std::vector<bool> reduce_mask(const OpDef& op, const Tensor& x, const Attrs& a) {
  std::vector<bool> mask(x->ndim(), !a.has("axis"));
  for (int64_t ax : a.ints("axis")) {
    if (ax < -x->ndim() || ax >= x->ndim())
      throw InvalidArgument(cat(op.name, ": axis ", ax, " is out of range for input ", meta_str(x)));
    const int64_t d = ax < 0 ? ax + x->ndim() : ax;
    if (mask[d])
      throw InvalidArgument(cat(op.name, ": Invalid reduction arguments: Axes contains duplicate dimension: ", d,
                                " for input ", meta_str(x)));
    mask[d] = true;
  }
  return mask;
}

Shape kept_shape(const Tensor& x, const std::vector<bool>& mask) {
  Shape s = x->shape;
  for (int i = 0; i < x->ndim(); ++i)
    if (mask[i]) s[i] = 1;
  return s;
}

Shape reduced_shape(const OpDef& op, const Tensor& x, const Attrs& a) {
  auto mask = reduce_mask(op, x, a);
  Shape s;
  for (int i = 0; i < x->ndim(); ++i)
    if (!mask[i]) s.push_back(x->shape[i]);
    else if (a.b("keepdims")) s.push_back(1);
  return s;
}

OutMeta reduce_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected a numeric tensor, got ", meta_str(x[0])));
  return {reduced_shape(op, x[0], a), x[0]->dtype};
}

OutMeta bool_reduce_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype != DType::Bool) throw InvalidArgument(cat(op.name, ": expected a bool tensor, got ", meta_str(x[0])));
  return {reduced_shape(op, x[0], a), DType::Bool};
}

OutMeta same_meta_numeric(const OpDef& op, const Tensors& x, const Attrs&) {
  if (x[0]->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected a numeric tensor, got ", meta_str(x[0])));
  return {x[0]->shape, x[0]->dtype};
}

// ArgMax/ArgMin: attr axis (int, default 0), output_type (dtype code, default int64).
OutMeta arg_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const Tensor& t = x[0];
  if (t->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected a numeric tensor, got ", meta_str(t)));
  int64_t ax = a.i("axis", 0), ot = a.i("output_type", (int64_t)DType::Int64);
  if (ot != (int64_t)DType::Int32 && ot != (int64_t)DType::Int64)
    throw InvalidArgument(cat(op.name, ": output_type must be int32 or int64, got dtype code ", ot));
  if (ax < -t->ndim() || ax >= t->ndim())
    throw InvalidArgument(cat(op.name, ": axis ", ax, " is out of range for input ", meta_str(t)));
  int axis = (int)(ax < 0 ? ax + t->ndim() : ax);
  if (t->shape[axis] == 0) throw InvalidArgument(cat(op.name, ": reduction axis ", ax, " is empty in input ", meta_str(t)));
  Shape s;
  for (int i = 0; i < t->ndim(); ++i)
    if (i != axis) s.push_back(t->shape[i]);
  return {s, (DType)ot};
}

template <bool IsMax>
Tensor arg_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  int64_t ax = a.i("axis", 0);
  return arg_reduce(x[0], (int)(ax < 0 ? ax + x[0]->ndim() : ax), IsMax, m.dtype);
}

// Cumsum: attrs axis (int, default 0), exclusive, reverse.
int cumsum_axis(const OpDef& op, const Tensor& t, const Attrs& a) {
  int64_t ax = a.i("axis", 0);
  if (ax < -t->ndim() || ax >= t->ndim())
    throw InvalidArgument(cat(op.name, ": axis ", ax, " is out of range for input ", meta_str(t)));
  return (int)(ax < 0 ? ax + t->ndim() : ax);
}

OutMeta cumsum_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  cumsum_axis(op, x[0], a);
  return same_meta_numeric(op, x, a);
}

Tensor cumsum_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta&) {
  return cumsum(x[0], cumsum_axis(op, x[0], a), a.b("exclusive"), a.b("reverse"));
}

Tensor cumprod_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta&) {
  return cumprod(x[0], cumsum_axis(op, x[0], a), a.b("exclusive"), a.b("reverse"));
}

OutMeta prod_others_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->ndim() == 0) throw InvalidArgument(cat(op.name, ": expected a tensor of rank >= 1, got ", meta_str(x[0])));
  return same_meta_numeric(op, x, a);
}

Tensor prod_others_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta&) { return prod_others(x[0]); }

template <ReduceKind K>
Tensor reduce_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor r = reduce(x[0], reduce_mask(op, x[0], a), K);
  return view(r, m.shape);
}

// x as int64 (an int32 or narrower integer mean sums without overflow, as TF; int64 and uint64 sums
// wrap, as TF).
Tensor widened(const Tensor& x) {
  if (!any_integer(x->dtype) || x->dtype == DType::Int64 || x->dtype == DType::UInt64) return x;
  Tensor w = empty(x->shape, DType::Int64);
  int64_t* d = w->data_as<int64_t>();
  dispatch_real(x->dtype, [&](auto v) {
    const auto* s = x->data_as<decltype(v)>();
    for (int64_t i = 0; i < x->size; ++i) d[i] = (int64_t)s[i];
    return 0;
  });
  return w;
}

Tensor mean_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  auto mask = reduce_mask(op, x[0], a);
  Tensor r = reduce(widened(x[0]), mask, ReduceKind::Sum);
  if (is_half(r->dtype)) r = widened_half(r);  // the half sum divided, rounded again (as TF)
  int64_t n = 1;
  for (int i = 0; i < x[0]->ndim(); ++i)
    if (mask[i]) n *= x[0]->shape[i];
  dispatch_real(r->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      T* p = r->data_as<T>();
      // mean of nothing: NaN for floats (as NumPy and TF), 0 for integers
      const T empty_mean = std::numeric_limits<T>::has_quiet_NaN ? std::numeric_limits<T>::quiet_NaN() : T(0);
      for (int64_t i = 0; i < r->size; ++i) p[i] = n ? (T)(p[i] / (T)n) : empty_mean;
    }
    return 0;
  });
  if (r->dtype != m.dtype) {  // back from the widened sum: an integer mean fits its type
    Tensor narrow = empty(r->shape, m.dtype);
    if (is_half(m.dtype)) {
      narrow = rounded_half(r, m.dtype);
    } else {
      const int64_t* src = r->data_as<int64_t>();
      dispatch_real(m.dtype, [&](auto v) {
        auto* d = narrow->data_as<decltype(v)>();
        for (int64_t i = 0; i < r->size; ++i) d[i] = (decltype(v))src[i];
        return 0;
      });
    }
    r = narrow;
  }
  return view(r, m.shape);
}

// g, reshaped to keep the reduced axes, broadcast back over x.
// (With a batched g the batch axes stay in front; see Note [Batched gradients].)
// t (shaped like the output, plus any batch axes) with the reduced axes back as size 1: it
// broadcasts to the input (the engine broadcasts it where needed, Note [Lazy broadcast gradients]).
Tensor keep_dims(const GradCtx& ctx, const OpDef& op, const Tensor& t) {
  const int extra = t->ndim() - ctx.out->ndim();  // batch axes carried by t
  Shape kept = kept_shape(ctx.x[0], reduce_mask(op, ctx.x[0], ctx.attrs));
  kept.insert(kept.begin(), t->shape.begin(), t->shape.begin() + extra);
  return t->shape == kept ? t : reshape(t, traced_shape(kept));
}

Tensor spread(const GradCtx& ctx, const OpDef& op, const Tensor& t) {
  if (sizes_vary_with_values() && t->ndim() == ctx.out->ndim())  // x's size at run time (Note [Sizes in traced rules])
    return call("BroadcastLike", {keep_dims(ctx, op, t), ctx.x[0]});
  Shape full = ctx.x[0]->shape;
  full.insert(full.begin(), t->shape.begin(), t->shape.begin() + (t->ndim() - ctx.out->ndim()));
  return broadcast_to(keep_dims(ctx, op, t), full);
}

// The reduced count as ops on Shape(x) (Note [Sizes in traced rules] in engine/observer.h).
Tensor reduced_count_tensor(const GradCtx& ctx, const OpDef& op) {
  auto mask = reduce_mask(op, ctx.x[0], ctx.attrs);
  const int n = ctx.x[0]->ndim();
  Tensor keep = empty({n}, DType::Int64), drop = empty({n}, DType::Int64);  // reduced: size, else 1
  for (int i = 0; i < n; ++i) {
    keep->data_as<int64_t>()[i] = mask[i] ? 1 : 0;
    drop->data_as<int64_t>()[i] = mask[i] ? 0 : 1;
  }
  Tensor shape = call("Shape", {ctx.x[0]}, Attrs().set("out_type", (int64_t)DType::Int64));
  return cast(call("Prod", {shape * keep + drop}), ctx.x[0]->dtype);
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
  Tensor count = call("Sum", {hit}, ctx.attrs);  // (the reduction of Max's own attributes: out's shape)
  if (count->shape != ctx.out->shape) count = reshape(count, ctx.out->shape);
  return {hit * spread(ctx, op, ctx.g / count)};
}

// d/dx_i prod_j x_j = prod_{j != i} x_j. The reduced axes are moved last and flattened so that
// ProdOthers (prefix times suffix products, no division) gives every entry's cofactor.
Tensors prod_grad(GradCtx& ctx) {
  const OpDef& op = op_def("Prod");
  const Tensor& x = ctx.x[0];
  auto mask = reduce_mask(op, x, ctx.attrs);
  std::vector<int64_t> perm, inv(x->ndim());
  Shape flat, moved;
  int64_t n = 1;
  for (int i = 0; i < x->ndim(); ++i)
    if (!mask[i]) { perm.push_back(i); flat.push_back(x->shape[i]); }
  for (int i = 0; i < x->ndim(); ++i)
    if (mask[i]) { perm.push_back(i); n *= x->shape[i]; }
  for (int i = 0; i < x->ndim(); ++i) { inv[perm[i]] = i; moved.push_back(x->shape[perm[i]]); }
  flat.push_back(n);
  if (sizes_vary_with_values() && x->ndim() > 0) {  // axis 0 may have another size at run time
    int at = 0;                                    // its place in flat: kept axes first, then the product
    while (at < (int)perm.size() - 1 && perm[at] != 0) ++at;
    flat[std::min(at, (int)flat.size() - 1)] = -1;
    for (int i = 0; i < x->ndim(); ++i)
      if (perm[i] == 0) moved[i] = -1;
  }
  bool in_order = true;
  for (int i = 0; i < x->ndim(); ++i) in_order = in_order && perm[i] == i;
  Tensor xt = in_order ? x : transpose(x, perm);
  Tensor others = reshape(call("ProdOthers", {reshape(xt, flat)}), moved);
  return {(in_order ? others : transpose(others, inv)) * spread(ctx, op, ctx.g)};
}

// ProdOthers along the last axis: d out_i / d x_j = prod_{k != i, j} x_k for j != i, 0 for j == i.
// Row i of M = x with entry i replaced by 1, so ProdOthers(M)[i, j] is that cofactor (j != i).
// This builds an n x n tensor per row: first derivatives of Prod stay O(n), higher ones cost O(n^2).
Tensors prod_others_grad(GradCtx& ctx) {
  const Tensor& x = ctx.x[0];
  const int64_t n = x->shape.back();
  Tensor eye = empty({n, n}, DType::Bool);
  for (int64_t i = 0; i < n * n; ++i) eye->data_as<bool>()[i] = (i / n == i % n);
  Shape row = x->shape, col = x->shape;
  row.insert(row.end() - 1, 1);   // [..., 1, n]: x_k along the last axis
  col.push_back(1);               // [..., n, 1]: g_i along the second-last axis
  Tensor M = where(eye, scalar_like(x, 1.0), reshape(x, row));
  Tensor cof = where(eye, scalar_like(x, 0.0), call("ProdOthers", {M}));
  return {reduce_sum(reshape(ctx.g, col) * cof, {-2}, false)};
}

// d max = the mean of the tangents at the entries equal to the max (the rule's tie split, forward).
Tensor extremum_jvp(const OpDef& op, const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& a) {
  Tensor kept = reshape(out, kept_shape(x[0], reduce_mask(op, x[0], a)));
  Tensor hit = cast(equal(x[0], broadcast_to(kept, x[0]->shape)), x[0]->dtype);
  return call("Sum", {hit * tx[0]}, a) / call("Sum", {hit}, a);
}

}  // namespace

void register_reduce_ops() {
  def_op("Sum").also_types(kNarrowInts | kHalfTypes).shape(reduce_infer).forward(reduce_kernel<ReduceKind::Sum>).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {keep_dims(ctx, op_def("Sum"), ctx.g)}; })  // d/dx sum = 1
      .jvp(linear_jvp("Sum"));
  def_op("Mean").also_types(kNarrowInts | kHalfTypes).shape(reduce_infer).forward(mean_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors {                                                  // 1/n
        const OpDef& op = op_def("Mean");
        if (sizes_at_run_time() && ctx.x[0]->ndim() > 0)  // Note [Sizes in traced rules]
          return {keep_dims(ctx, op, ctx.g) / reduced_count_tensor(ctx, op)};
        return {keep_dims(ctx, op, ctx.g) / (double)reduced_count(ctx, op)};
      })
      .jvp(linear_jvp("Mean"));
  def_op("Max").also_types(kNarrowInts | kHalfTypes).shape(reduce_infer).forward(reduce_kernel<ReduceKind::Max>).batched()
      .gradient([](GradCtx& ctx) { return extremum_grad(ctx, op_def("Max")); })
      .jvp([](const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& a) {
        return extremum_jvp(op_def("Max"), x, out, tx, a);
      });
  def_op("Min").also_types(kNarrowInts | kHalfTypes).shape(reduce_infer).forward(reduce_kernel<ReduceKind::Min>).batched()
      .gradient([](GradCtx& ctx) { return extremum_grad(ctx, op_def("Min")); })
      .jvp([](const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& a) {
        return extremum_jvp(op_def("Min"), x, out, tx, a);
      });
  def_op("Prod").also_types(kNarrowInts | kHalfTypes).shape(reduce_infer).forward(reduce_kernel<ReduceKind::Prod>).gradient(prod_grad);
  def_op("ProdOthers").shape(prod_others_infer).forward(prod_others_kernel).gradient(prod_others_grad);
  def_op("Cumsum").also_types(kNarrowInts | kHalfTypes).shape(cumsum_infer).forward(cumsum_kernel)
      .gradient([](GradCtx& ctx) -> Tensors {          // d/dx cumsum = cumsum of g run the other way
        Attrs a = ctx.attrs;
        return {call("Cumsum", {ctx.g}, a.set("reverse", !ctx.attrs.b("reverse")))};
      })
      .jvp(linear_jvp("Cumsum"));
  // TF's rule: the running sum, run the other way, of out * g, over x, and 0 where x is 0 (TF's
  // div_no_nan; the exact value there is the product of the others, which this rule does not give)
  def_op("Cumprod").also_types(kNarrowInts | kHalfTypes).shape(cumsum_infer).forward(cumprod_kernel)
      .gradient([](GradCtx& ctx) -> Tensors {
        Attrs a = ctx.attrs;
        return {call("DivNoNan", {call("Cumsum", {ctx.out * ctx.g}, a.set("reverse", !ctx.attrs.b("reverse"))), ctx.x[0]})};
      });
  // no gradient
  def_op("Any").shape(bool_reduce_infer).forward(reduce_kernel<ReduceKind::Max>).not_differentiable();
  def_op("All").shape(bool_reduce_infer).forward(reduce_kernel<ReduceKind::Min>).not_differentiable();
  def_op("ArgMax").also_types(kNarrowInts | kHalfTypes).shape(arg_infer).forward(arg_kernel<true>).not_differentiable();
  def_op("ArgMin").also_types(kNarrowInts | kHalfTypes).shape(arg_infer).forward(arg_kernel<false>).not_differentiable();
}

}  // namespace tg
