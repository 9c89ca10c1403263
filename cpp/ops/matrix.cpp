// matrix.cpp -- square-matrix ops on LAPACK (kernels/lapack.h), batched over leading axes:
// MatrixInverse, MatrixDeterminant, LogAbsDeterminant and DeterminantSign (tf.linalg.det, slogdet),
// MatrixSolve, MatrixTriangularSolve, Cholesky and SelfAdjointEig (tf.linalg.eigh). Their gradient rules are written in registered
// ops (MatMul, the solves themselves), so they differentiate again and trace.
//
// Note [Matrix gradients], with Y = A^-1 and g the upstream gradient:
//   inverse             dA = -Y^T g Y^T
//   det                 dA = g det(A) Y^T          log|det|   dA = g Y^T
//   X = solve(A, B)     dB = solve(A^T, g)         dA = -dB X^T
//   X = L^-1 B          dB = L^-T g                dL = -dB X^T, kept on L's triangle
//   L = cholesky(A)     P = L^T g with its upper part dropped and its diagonal halved,
//                       S = L^-T P L^-1, dA = (S + S^T) / 2  (A is taken as symmetric, as in TF)
// (adjoint variants swap the transposes). A singular (or NaN) matrix makes inverse and solve raise, as TF.
#include <cmath>
#include <limits>
#include <vector>
#include "core/error.h"
#include "engine/math.h"
#include "engine/observer.h"
#include "kernels/lapack.h"
#include "ops/matrix_util.h"

namespace tg {

namespace {

// [..., n, n] (and for the solves a right-hand side [..., n, k] with the same leading axes).
void check_square(const OpDef& op, const Tensor& a, const char* what = "input") {
  if (!is_floating(a->dtype))
    throw InvalidArgument(cat(op.name, ": ", what, " must be float32 or float64, got ", meta_str(a)));
  if (a->ndim() < 2) throw InvalidArgument(cat(op.name, ": ", what, " must have rank >= 2, got ", meta_str(a)));
  const int64_t r = a->shape[a->ndim() - 2], c = a->shape[a->ndim() - 1];
  if (r >= 0 && c >= 0 && r != c) throw InvalidArgument(cat(op.name, ": ", what, " must be square matrices, got ", meta_str(a)));
  if (r > INT32_MAX) throw InvalidArgument(cat(op.name, ": matrices of ", meta_str(a), " are too large"));
}

Shape batch_of(const Tensor& a) { return Shape(a->shape.begin(), a->shape.end() - 2); }

OutMeta square_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_square(op, x[0]);
  return {x[0]->shape, x[0]->dtype};
}

OutMeta scalar_per_matrix_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_square(op, x[0]);
  return {batch_of(x[0]), x[0]->dtype};
}

OutMeta solve_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  const Tensor &a = x[0], &b = x[1];
  check_square(op, a, "matrix");
  if (b->dtype != a->dtype) throw InvalidArgument(cat(op.name, ": rhs ", meta_str(b), " must have the dtype of matrix ", meta_str(a)));
  if (b->ndim() != a->ndim() || batch_of(a) != batch_of(b) || b->shape[b->ndim() - 2] != a->shape[a->ndim() - 1])
    throw InvalidArgument(cat(op.name, ": matrix ", meta_str(a), " and rhs ", meta_str(b),
                              " must have the same leading dimensions and as many rhs rows as matrix columns"));
  return {b->shape, b->dtype};
}

template <class F>
void per_matrix(const Tensor& a, F f) {
  const int64_t n = a->ndim() ? a->shape[a->ndim() - 1] : 0, count = n ? a->size / (n * n) : 0;
  for (int64_t i = 0; i < count; ++i) f(i, (int)n);
}

[[noreturn]] void singular(const OpDef& op) { throw InvalidArgument(cat(op.name, ": Input is not invertible.")); }

// After lu_factor: an exactly zero or NaN pivot means no inverse (TF refuses a NaN matrix too).
template <class T>
bool invertible(const T* lu, int n, int info) {
  if (info > 0) return false;
  for (int k = 0; k < n; ++k)
    if (std::isnan(lu[(int64_t)k * n + k])) return false;
  return true;
}

Tensor inverse_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = copy(x[0]);
  const bool adjoint = a.b("adjoint");
  dispatch_dtype(out->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<int32_t> piv;
      per_matrix(out, [&](int64_t i, int n) {
        T* p = out->data_as<T>() + i * n * n;
        piv.resize(n);
        if (!invertible(p, n, lu_factor(p, n, piv.data())) || lu_inverse(p, n, piv.data()) > 0) singular(op);
        if (adjoint)
          for (int r = 0; r < n; ++r)
            for (int c = r + 1; c < n; ++c) std::swap(p[(int64_t)r * n + c], p[(int64_t)c * n + r]);
      });
    }
    return 0;
  });
  (void)m;
  return out;
}

// det, log|det| or the sign of det, from the LU factors (a zero pivot: det 0, log|det| -inf, sign 0).
enum class DetPart { kValue, kLogAbs, kSign };

template <DetPart Part>
Tensor det_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor lu = copy(x[0]), out = empty(m.shape, m.dtype);
  dispatch_dtype(lu->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<int32_t> piv;
      T* o = out->data_as<T>();
      if (out->size == 1 && lu->size == 0) o[0] = Part == DetPart::kLogAbs ? T(0) : T(1);  // [0, 0]: det 1
      per_matrix(lu, [&](int64_t i, int n) {
        T* p = lu->data_as<T>() + i * n * n;
        piv.resize(n);
        lu_factor(p, n, piv.data());  // info > 0 only marks an exact zero pivot: the product says so
        T sign = 1, logabs = 0, value = 1;
        for (int k = 0; k < n; ++k) {
          const T d = p[(int64_t)k * n + k];
          if (piv[k] != k + 1) sign = -sign;
          if (d < 0) sign = -sign;
          logabs += std::log(std::abs(d));
          value *= d;
          if (piv[k] != k + 1) value = -value;
        }
        if (std::isnan(logabs)) sign = std::numeric_limits<T>::quiet_NaN();
        else if (std::isinf(logabs) && logabs < 0) sign = 0;
        o[i] = Part == DetPart::kValue ? value : Part == DetPart::kLogAbs ? logabs : sign;
      });
      if (lu->size == 0 && out->size > 1)
        for (int64_t i = 0; i < out->size; ++i) o[i] = Part == DetPart::kLogAbs ? T(0) : T(1);
    }
    return 0;
  });
  return out;
}

Tensor solve_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor lu = copy(x[0]), out = copy(x[1]);
  const bool adjoint = a.b("adjoint");
  const int64_t k = out->shape[out->ndim() - 1];
  dispatch_dtype(lu->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<int32_t> piv;
      per_matrix(lu, [&](int64_t i, int n) {
        T* p = lu->data_as<T>() + i * n * n;
        piv.resize(n);
        if (!invertible(p, n, lu_factor(p, n, piv.data()))) singular(op);
        if (k > 0) lu_solve(p, n, piv.data(), out->data_as<T>() + i * n * k, (int)k, adjoint);
      });
    }
    return 0;
  });
  (void)m;
  return out;
}

Tensor triangular_solve_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta&) {
  const Tensor& l = x[0];
  Tensor out = copy(x[1]);
  const bool lower = a.b("lower", true), adjoint = a.b("adjoint");
  const int64_t k = out->shape[out->ndim() - 1];
  dispatch_dtype(l->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>)
      per_matrix(l, [&](int64_t i, int n) {
        triangular_solve(l->data_as<T>() + i * n * n, n, out->data_as<T>() + i * n * k, (int)k, lower, adjoint);
      });
    return 0;
  });
  return out;
}

// A matrix that is not positive definite gives NaN in its lower triangle, as TF's CPU kernel.
Tensor cholesky_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta&) {
  Tensor out = copy(x[0]);
  dispatch_dtype(out->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>)
      per_matrix(out, [&](int64_t i, int n) {
        T* p = out->data_as<T>() + i * n * n;
        if (cholesky_factor(p, n) != 0)
          for (int r = 0; r < n; ++r)
            for (int c = 0; c <= r; ++c) p[(int64_t)r * n + c] = std::numeric_limits<T>::quiet_NaN();
      });
    return 0;
  });
  return out;
}

// SelfAdjointEig: eigenvalues (ascending) and eigenvectors of symmetric matrices (the lower triangle is
// read), packed as [..., n + 1, n]: row 0 the eigenvalues, rows 1..n the eigenvectors as columns
// (tf.linalg.eigh slices them apart, so one decomposition serves both and its gradient sees both).
// Each eigenvector's largest component is made positive, so results do not depend on LAPACK's signs.
// A NaN in the lower triangle raises, an inf gives NaN results (as TF).
OutMeta eig_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_square(op, x[0]);
  Shape s = x[0]->shape;
  s[s.size() - 2] += s[s.size() - 2] >= 0 ? 1 : 0;
  return {s, x[0]->dtype};
}

Tensor eig_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Tensor& a = x[0];
  Tensor out = empty(m.shape, m.dtype);
  dispatch_dtype(a->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<T> work, w;
      per_matrix(a, [&](int64_t i, int n) {
        const T* src = a->data_as<T>() + i * n * n;
        T* dst = out->data_as<T>() + i * (n + 1) * n;
        for (int r = 0; r < n; ++r)
          for (int c = 0; c <= r; ++c)
            if (std::isnan(src[(int64_t)r * n + c]))
              throw InvalidArgument(cat(op.name, ": Self-adjoint eigen decomposition was not successful. The input "
                                                 "might not be valid (NaN in the lower triangle of ", meta_str(a), ")"));
        work.assign(src, src + (int64_t)n * n);
        w.assign(n, T(0));
        if (symmetric_eigen(work.data(), n, w.data()) != 0) {  // (an inf: NaN results, as TF)
          std::fill(dst, dst + (int64_t)(n + 1) * n, std::numeric_limits<T>::quiet_NaN());
          return;
        }
        for (int c = 0; c < n; ++c) {
          int big = 0;
          for (int r = 1; r < n; ++r)
            if (std::abs(work[(int64_t)r * n + c]) > std::abs(work[(int64_t)big * n + c])) big = r;
          if (work[(int64_t)big * n + c] < 0)
            for (int r = 0; r < n; ++r) work[(int64_t)r * n + c] = -work[(int64_t)r * n + c];
        }
        std::copy(w.begin(), w.end(), dst);
        std::copy(work.begin(), work.end(), dst + n);
      });
    }
    return 0;
  });
  return out;
}

// ---- gradient rules (Note [Matrix gradients]), in registered ops

Tensor mT(const Tensor& t) { return last_two_transposed(t); }

Tensor per_matrix_scale(const Tensor& s, const Tensor& like) {  // s [...] as [..., 1, 1]
  if (sizes_vary_with_values()) {  // (s's traced batch may change from call to call)
    const Tensor col = call("ExpandDims", {s}, Attrs().set("axis", (int64_t)s->ndim()));
    return call("ExpandDims", {col}, Attrs().set("axis", (int64_t)s->ndim() + 1));
  }
  Shape shape = s->shape;
  shape.push_back(1);
  shape.push_back(1);
  return reshape(s, shape);
}

// 1 on and below (lower) or on and above the diagonal of n x n, in `like`'s dtype.
Tensor triangle_mask(const Tensor& like, bool lower, double diagonal = 1.0) {
  const int64_t n = like->shape[like->ndim() - 1];
  Tensor m = zeros({n, n}, like->dtype);
  dispatch_dtype(like->dtype, [&](auto v) {
    using T = decltype(v);
    T* p = m->data_as<T>();
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < n; ++c) p[(int64_t)r * n + c] = r == c ? T(diagonal) : (lower ? c < r : c > r) ? T(1) : T(0);
    return 0;
  });
  return m;
}

Tensors inverse_grad(GradCtx& ctx) {
  const Tensor &y = ctx.out, &g = ctx.g;
  if (ctx.attrs.b("adjoint")) return {-matmul(matmul(y, g, false, true), y)};  // -Y g^T Y
  return {-matmul(y, matmul(g, y, false, true), true, false)};                 // -Y^T g Y^T
}

Tensors det_grad(GradCtx& ctx) {
  Tensor inv_t = mT(call("MatrixInverse", {ctx.x[0]}));
  return {per_matrix_scale(ctx.g * ctx.out, ctx.x[0]) * inv_t};
}

Tensors logabsdet_grad(GradCtx& ctx) {
  Tensor inv_t = mT(call("MatrixInverse", {ctx.x[0]}));
  return {per_matrix_scale(ctx.g, ctx.x[0]) * inv_t};
}

Tensors solve_grad(GradCtx& ctx) {
  const bool adjoint = ctx.attrs.b("adjoint");
  Tensor db = call("MatrixSolve", {ctx.x[0], ctx.g}, Attrs().set("adjoint", !adjoint));
  Tensor da = adjoint ? -matmul(ctx.out, db, false, true) : -matmul(db, ctx.out, false, true);
  return {ctx.needs_grad[0] ? da : nullptr, db};
}

Tensors triangular_solve_grad(GradCtx& ctx) {
  const bool lower = ctx.attrs.b("lower", true), adjoint = ctx.attrs.b("adjoint");
  Tensor db = call("MatrixTriangularSolve", {ctx.x[0], ctx.g}, Attrs().set("lower", lower).set("adjoint", !adjoint));
  Tensor dl;
  if (ctx.needs_grad[0])
    dl = (adjoint ? -matmul(ctx.out, db, false, true) : -matmul(db, ctx.out, false, true)) * triangle_mask(ctx.x[0], lower);
  return {dl, db};
}

// Rows [from, to) of the last-but-one axis.
Tensor rows_of(const Tensor& t, int64_t from, int64_t to) { return slice_axis(t, t->ndim() - 2, from, to); }

// With e the eigenvalues (a row), V the eigenvectors and F_ij = 1 / (e_j - e_i) off the diagonal:
// G = V (diag(g_e) + F * (V^T g_V)) V^T, and as the op reads A's lower triangle, dA = tril(G + G^T)
// with the diagonal counted once (TF's rule).
Tensors eig_grad(GradCtx& ctx) {
  const int64_t n = ctx.out->shape[ctx.out->ndim() - 1];
  const Tensor e = rows_of(ctx.out, 0, 1), v = rows_of(ctx.out, 1, n + 1);
  const Tensor ge = rows_of(ctx.g, 0, 1), gv = rows_of(ctx.g, 1, n + 1);
  const Tensor eye = identity_matrix(ctx.out, n);
  const Tensor f = reciprocal(e - mT(e) + eye) * (1.0 - eye);  // (the diagonal's 1 / 1 is masked out)
  const Tensor inner = eye * ge + f * matmul(v, gv, true, false);
  const Tensor g = matmul(matmul(v, inner), v, false, true);
  return {(g + mT(g)) * triangle_mask(ctx.out, true, 0.5)};
}

Tensors cholesky_grad(GradCtx& ctx) {
  const Tensor &l = ctx.out, &g = ctx.g;
  Tensor p = matmul(l, g, true, false) * triangle_mask(l, true, 0.5);  // Φ(L^T g)
  const int64_t n = l->shape[l->ndim() - 1];
  Tensor eye = identity_matrix(l, n);
  const Tensor eyes = sizes_vary_with_values() ? call("BroadcastLike", {eye, l}) : broadcast_to(eye, l->shape);
  Tensor linv = call("MatrixTriangularSolve", {l, eyes}, Attrs().set("lower", true));
  Tensor s = matmul(matmul(linv, p, true, false), linv);  // L^-T P L^-1
  return {(s + mT(s)) * 0.5};
}

}  // namespace

void register_matrix_ops() {
  def_op("MatrixInverse").inputs(1).shape(square_infer).forward(inverse_kernel).gradient(inverse_grad);
  def_op("MatrixDeterminant").inputs(1).shape(scalar_per_matrix_infer).forward(det_kernel<DetPart::kValue>)
      .gradient(det_grad);
  def_op("LogAbsDeterminant").inputs(1).shape(scalar_per_matrix_infer).forward(det_kernel<DetPart::kLogAbs>)
      .gradient(logabsdet_grad);
  def_op("DeterminantSign").inputs(1).shape(scalar_per_matrix_infer).forward(det_kernel<DetPart::kSign>)
      .not_differentiable();
  def_op("MatrixSolve").inputs(2).shape(solve_infer).forward(solve_kernel).gradient(solve_grad);
  def_op("MatrixTriangularSolve").inputs(2).shape(solve_infer).forward(triangular_solve_kernel)
      .gradient(triangular_solve_grad);
  def_op("SelfAdjointEig").inputs(1).shape(eig_infer).forward(eig_kernel).gradient(eig_grad);
  def_op("Cholesky").inputs(1).shape(square_infer).forward(cholesky_kernel).gradient(cholesky_grad);
}

}  // namespace tg
