// shape.cpp -- ops that change shape or dtype: Reshape (a view), Cast, BroadcastTo, Transpose,
// Identity and StopGradient.
#include "core/error.h"
#include "engine/math.h"
#include "kernels/copy.h"
#include <limits>

namespace tg {

namespace {

Tensor view_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) { return view(x[0], m.shape); }

OutMeta same_meta(const OpDef&, const Tensors& x, const Attrs&) { return {x[0]->shape, x[0]->dtype}; }

OutMeta reshape_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape s = a.ints("shape");
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer_at >= 0) throw InvalidArgument(cat(op.name, ": only one dimension may be -1, got shape ", shape_str(s)));
      infer_at = (int)i;
    } else if (s[i] < 0) {
      throw InvalidArgument(cat(op.name, ": invalid target shape ", shape_str(s)));
    } else {
      known *= s[i];
    }
  }
  if (infer_at >= 0) {
    if (known == 0 || x[0]->size % known != 0)
      throw InvalidArgument(cat(op.name, ": cannot reshape ", meta_str(x[0]), " to ", shape_str(s)));
    s[infer_at] = x[0]->size / known;
  } else if (known != x[0]->size) {
    throw InvalidArgument(cat(op.name, ": cannot reshape ", meta_str(x[0]), " (", x[0]->size, " elements) to ",
                              shape_str(s), " (", known, " elements)"));
  }
  return {s, x[0]->dtype};
}

OutMeta cast_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  int64_t d = a.i("dtype", -1);
  if (d < 0 || d > 4) throw InvalidArgument(cat(op.name, ": invalid target dtype code ", d));
  return {x[0]->shape, (DType)d};
}

Tensor cast_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  dispatch_dtype(x[0]->dtype, [&](auto a) {
    using S = decltype(a);
    return dispatch_dtype(m.dtype, [&](auto b) {
      using D = decltype(b);
      const S* s = x[0]->data_as<S>();
      D* d = out->data_as<D>();
      for (int64_t i = 0; i < out->size; ++i) {
        if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
          // float -> int: truncate, with NaN and out-of-range values saturating instead of UB
          S v = s[i];
          d[i] = v != v ? D(0) : v >= (S)std::numeric_limits<D>::max() ? std::numeric_limits<D>::max()
                 : v <= (S)std::numeric_limits<D>::lowest() ? std::numeric_limits<D>::lowest() : (D)v;
        } else {
          d[i] = (D)s[i];
        }
      }
      return 0;
    });
  });
  return out;
}

OutMeta broadcast_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape target = a.ints("shape"), out;
  if (!broadcast_shapes(x[0]->shape, target, out) || out != target)
    throw InvalidArgument(cat(op.name, ": cannot broadcast ", meta_str(x[0]), " to shape ", shape_str(target)));
  return {target, x[0]->dtype};
}

Tensor broadcast_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  auto src = contiguous_strides(x[0]->shape);
  std::vector<int64_t> st(m.shape.size(), 0);
  int off = (int)m.shape.size() - x[0]->ndim();
  for (int d = 0; d < x[0]->ndim(); ++d) st[d + off] = x[0]->shape[d] == 1 ? 0 : src[d];
  strided_copy(x[0]->data(), out->data(), dtype_size(m.dtype), m.shape, st);
  return out;
}

OutMeta transpose_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  auto perm = a.ints("perm");
  const int nd = x[0]->ndim();
  if (!a.has("perm")) for (int i = 0; i < nd; ++i) perm.push_back(nd - 1 - i);
  std::vector<bool> seen(nd, false);
  if ((int)perm.size() != nd) throw InvalidArgument(cat(op.name, ": perm has ", perm.size(), " entries for input ", meta_str(x[0])));
  Shape s;
  for (int64_t p : perm) {
    if (p < 0 || p >= nd || seen[p]) throw InvalidArgument(cat(op.name, ": perm is not a permutation of 0..", nd - 1));
    seen[p] = true;
    s.push_back(x[0]->shape[p]);
  }
  return {s, x[0]->dtype};
}

std::vector<int64_t> full_perm(const Tensor& x, const Attrs& a) {
  auto perm = a.ints("perm");
  if (!a.has("perm")) for (int i = 0; i < x->ndim(); ++i) perm.push_back(x->ndim() - 1 - i);
  return perm;
}

Tensor transpose_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  auto src = contiguous_strides(x[0]->shape);
  auto perm = full_perm(x[0], a);
  std::vector<int64_t> st;
  for (int64_t p : perm) st.push_back(src[p]);
  strided_copy(x[0]->data(), out->data(), dtype_size(m.dtype), m.shape, st);
  return out;
}

}  // namespace

void register_shape_ops() {
  def_op("Reshape").shape(reshape_infer).forward(view_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {reshape(ctx.g, batched_shape(ctx, ctx.x[0]->shape))}; });
  def_op("Cast").shape(cast_infer).forward(cast_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors {                       // float -> float only
        bool ok = is_floating(ctx.x[0]->dtype) && is_floating(ctx.out->dtype);
        return {ok ? cast(ctx.g, ctx.x[0]->dtype) : nullptr};
      });
  def_op("BroadcastTo").shape(broadcast_infer).forward(broadcast_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {ctx.g}; });  // summed back by the engine
  def_op("Transpose").shape(transpose_infer).forward(transpose_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors {                       // transpose by the inverse perm
        auto perm = full_perm(ctx.x[0], ctx.attrs);
        std::vector<int64_t> inv(ctx.batch + perm.size());
        for (int b = 0; b < ctx.batch; ++b) inv[b] = b;
        for (size_t i = 0; i < perm.size(); ++i) inv[ctx.batch + perm[i]] = ctx.batch + (int64_t)i;
        return {transpose(ctx.g, inv)};
      });
  def_op("Identity").shape(same_meta).forward(view_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {ctx.g}; });
  def_op("StopGradient").shape(same_meta).forward(view_kernel).not_differentiable();
}

}  // namespace tg
