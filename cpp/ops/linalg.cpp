// linalg.cpp -- matrix products.
#include <climits>
#include "core/error.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/observer.h"
#include "kernels/matmul.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

// [..., m, k] x [..., k, n] -> [..., m, n]; batch dimensions broadcast.
OutMeta matmul_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const Tensor &A = x[0], &B = x[1];
  auto bad = [&](const char* why) {
    return InvalidArgument(cat(op.name, ": ", why, " for inputs ", meta_str(A), " and ", meta_str(B),
                               a.b("transpose_a") ? " (transpose_a)" : "", a.b("transpose_b") ? " (transpose_b)" : ""));
  };
  if (A->dtype != B->dtype) throw bad("inputs must have the same dtype");
  if (A->dtype == DType::Bool) throw bad("bool inputs are not supported");
  if (A->ndim() < 2 || B->ndim() < 2) throw bad("inputs must have rank >= 2");
  bool ta = a.b("transpose_a"), tb = a.b("transpose_b");
  int64_t m = A->shape[A->ndim() - (ta ? 1 : 2)], k = A->shape[A->ndim() - (ta ? 2 : 1)];
  int64_t k2 = B->shape[B->ndim() - (tb ? 1 : 2)], n = B->shape[B->ndim() - (tb ? 2 : 1)];
  if (k != k2) throw bad("inner dimensions differ");
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) throw bad("matrix dimensions exceed 2^31 - 1");
  Shape ba(A->shape.begin(), A->shape.end() - 2), bb(B->shape.begin(), B->shape.end() - 2), out;
  if (!broadcast_shapes(ba, bb, out)) throw bad("batch dimensions do not broadcast");
  out.push_back(m);
  out.push_back(n);
  return {out, A->dtype};
}

Tensor matmul_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  matmul_into(x[0], x[1], a.b("transpose_a"), a.b("transpose_b"), out);
  return out;
}

// A one-element g standing for c at every element of the output (Note [Uniform gradients] in
// engine/backprop.cpp): dA = c 1 B^T has every row equal to the row sums of op(B) c (a [1, k]
// gradient that broadcasts to A; [k, 1] for transpose_a), and dB = c op(A)^T 1 every column equal
// to the column sums of op(A) c. Multiplying before summing adds the same products the matrix
// product would (an inf c and a zero element give NaN either way). Registered ops: they
// differentiate again.
Tensors matmul_uniform_grad(GradCtx& ctx, bool ta, bool tb) {
  const Tensor &A = ctx.x[0], &B = ctx.x[1];
  const Tensor c = reshape(ctx.g, Shape{});
  Tensors r(2);
  if (ctx.needs_grad[0]) {
    const int64_t k = B->shape[tb ? 1 : 0];
    Tensor sums = reduce_sum(B * c, {tb ? 0 : 1}, false);  // row sums of op(B) c
    r[0] = reshape(sums, ta ? Shape{k, 1} : Shape{1, k});
  }
  if (ctx.needs_grad[1]) {
    const int64_t k = A->shape[ta ? 0 : 1];
    Tensor sums = reduce_sum(A * c, {ta ? 1 : 0}, false);  // column sums of op(A) c
    r[1] = reshape(sums, tb ? Shape{1, k} : Shape{k, 1});
  }
  return r;
}

// Note [One-hot jacobian rows]: a jacobian's batched sweep seeds the rows of an identity, and
// elementwise rules keep each row one value at one place (the jacobian of tanh(W @ x) reaches
// the product as diag(1 - y^2)). For y = A b (b a column), row r of such a g is d_r at i_r, and
// A^T g_r is row i_r of A scaled by d_r: a gather instead of an [R, m] x [m, n] product. The rows
// are found by reading g, so this runs only where nothing records the rule's ops for later
// calls (no tracer: a trace would keep this call's i_r), and only when A is finite (the product
// gives NaN from 0 * inf, the gather would not). The rule is still ops (GatherV2, Mul), so tapes
// differentiate it again.
Tensor one_hot_rows_grad(const Tensor& A, const Tensor& g) {
  const int64_t R = g->shape[0], m = g->shape[1], n = A->shape[1];
  if (A->ndim() != 2 || g->ndim() != 3 || g->shape[2] != 1 || A->shape[0] != m || !is_floating(g->dtype) ||
      g->dtype != A->dtype || R * m < 4096 || observed(OpObserver::kTracer))
    return nullptr;
  Tensor idx = empty({R}, DType::Int64);
  bool fits = true;
  auto scan = [&](auto v) {
    using T = decltype(v);
    const T* G = g->data_as<T>();
    int64_t* at = idx->data_as<int64_t>();
    for (int64_t r = 0; r < R; ++r) {
      const T* row = G + r * m;
      int32_t hits = 0;  // branch-free, so that it vectorizes; NaN != 0 counts as a value
      for (int64_t i = 0; i < m; ++i) hits += row[i] != T(0);
      at[r] = 0;
      if (hits == 1)
        while (row[at[r]] == T(0)) ++at[r];
      fits &= hits <= 1;
    }
    const T* a = A->data_as<T>();
    int32_t bad = 0;  // x - x is 0 for finite x, NaN for inf and NaN (an OR vectorizes, a float sum would not)
    for (int64_t k = 0; k < A->size; ++k) bad |= a[k] - a[k] != T(0);
    fits &= bad == 0;
  };
  if (g->dtype == DType::Float32) scan(float{});
  else scan(double{});
  if (!fits) return nullptr;
  Tensor d = reduce_sum(reshape(g, {R, m}), {1}, true);  // [R, 1]: each row's one value
  Tensor rows = call("GatherV2", {A, idx}, Attrs().set("axis", 0).set("batch_dims", 0));
  return reshape(rows * d, {R, n, 1});
}

// dA = g B^T, dB = A^T g, with the transposes folded into the products.
Tensors matmul_grad(GradCtx& ctx) {
  const Tensor &A = ctx.x[0], &B = ctx.x[1], &g = ctx.g;
  bool ta = ctx.attrs.b("transpose_a"), tb = ctx.attrs.b("transpose_b");
  if (!ctx.batch && g->shape != ctx.out->shape) {  // a uniform g (one element)
    if (A->ndim() == 2 && B->ndim() == 2) return matmul_uniform_grad(ctx, ta, tb);
    const Tensor g_full = broadcast_to(g, ctx.out->shape);
    GradCtx full{ctx.x, ctx.out, g_full, ctx.attrs, ctx.needs_grad, 0};
    return matmul_grad(full);
  }
  Tensors r(2);
  if (ctx.needs_grad[0]) r[0] = ta ? matmul(B, g, tb, true) : matmul(g, B, false, !tb);
  if (ctx.needs_grad[1] && ctx.batch == 1 && !ta && !tb) r[1] = one_hot_rows_grad(A, g);  // Note [One-hot jacobian rows]
  if (ctx.needs_grad[1] && !r[1]) r[1] = tb ? matmul(g, A, true, ta) : matmul(A, g, !ta, false);
  return r;
}

// d(A B) = dA B + A dB, with the same transposes.
Tensor matmul_jvp(const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) {
  Tensor r;
  if (tx[0]) r = call("MatMul", {tx[0], x[1]}, a);
  if (tx[1]) {
    Tensor t = call("MatMul", {x[0], tx[1]}, a);
    r = r ? r + t : t;
  }
  return r;
}

}  // namespace

void register_linalg_ops() {
  // Batch axes of g broadcast as matmul batch dimensions.
  def_op("MatMul").inputs(2).shape(half_infer<matmul_infer>).forward(half_kernel<matmul_kernel>).also_types(kHalfTypes).batched().takes_uniform_grad()
      .gradient(matmul_grad).jvp(matmul_jvp);
}

}  // namespace tg
