// svd.cpp -- the singular value decomposition on LAPACK's gesdd, batched over leading axes.
//   Svd        A [..., m, n] -> [..., k + m k + n k], k = min(m, n): the singular values (descending),
//              then U (m x k) and V (n x k) flattened: one decomposition serves tf.linalg.svd's three
//              results (sliced apart in Python) and its gradient sees all three. Each column of U gets
//              its largest component positive (V's column flipped with it), so results do not depend
//              on LAPACK's signs. NaN or inf in A gives NaN results, as TF.
//   SvdValues  A -> [..., k], the values alone (compute_uv=False); its gradient U diag(g) V^T stays
//              finite for rank-deficient A, where the full rule divides by the zero values.
// Note [SVD gradient] (Townsend, "Differentiating the singular value decomposition", 2016), with
// S = diag(s), F_ij = 1 / (s_j^2 - s_i^2) off the diagonal and 0 on it:
//   dA = U [ (F o (U^T gU - gU^T U)) S + diag(gs) + S (F o (V^T gV - gV^T V)) ] V^T
//        + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)
// Equal singular values make F infinite, as in TF.
#include <cmath>
#include <limits>
#include <vector>
#include "core/error.h"
#include "engine/math.h"
#include "kernels/lapack.h"
#include "ops/matrix_util.h"

namespace tg {

namespace {

struct SvdDims {
  int64_t m, n, k, batch;
  Shape batch_shape;
};

SvdDims svd_dims(const OpDef& op, const Tensor& a) {
  if (!is_floating(a->dtype)) throw InvalidArgument(cat(op.name, ": input must be float32 or float64, got ", meta_str(a)));
  if (a->ndim() < 2) throw InvalidArgument(cat(op.name, ": input must have rank >= 2, got ", meta_str(a)));
  SvdDims d;
  d.m = a->shape[a->ndim() - 2];
  d.n = a->shape[a->ndim() - 1];
  if (d.m > INT32_MAX || d.n > INT32_MAX) throw InvalidArgument(cat(op.name, ": matrices of ", meta_str(a), " are too large"));
  d.k = std::min(d.m, d.n);
  d.batch_shape = Shape(a->shape.begin(), a->shape.end() - 2);
  d.batch = 1;
  for (int64_t b : d.batch_shape) d.batch *= b;
  return d;
}

OutMeta svd_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  SvdDims d = svd_dims(op, x[0]);
  Shape s = d.batch_shape;
  s.push_back(d.m < 0 || d.n < 0 ? -1 : d.k * (1 + d.m + d.n));
  return {s, x[0]->dtype};
}

OutMeta values_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  SvdDims d = svd_dims(op, x[0]);
  Shape s = d.batch_shape;
  s.push_back(d.m < 0 || d.n < 0 ? -1 : d.k);
  return {s, x[0]->dtype};
}

// Decomposes every matrix of a; writes the values, and U and V when `vectors`, into out.
template <bool Vectors>
Tensor svd_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& meta) {
  const Tensor& a = x[0];
  const SvdDims d = svd_dims(op, a);
  Tensor out = empty(meta.shape, meta.dtype);
  const int64_t m = d.m, n = d.n, k = d.k, stride = Vectors ? k * (1 + m + n) : k;
  if (k == 0) return out;
  dispatch_dtype(a->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<T> work(m * n), s(k), u(m * k), vt(k * n);
      for (int64_t b = 0; b < d.batch; ++b) {
        const T* src = a->data_as<T>() + b * m * n;
        T* dst = out->data_as<T>() + b * stride;
        work.assign(src, src + m * n);
        bool ok = true;
        for (T value : work) ok &= std::isfinite(value);  // (LAPACK does not return on inf)
        ok = ok && singular_values(work.data(), (int)m, (int)n, s.data(), u.data(), vt.data()) == 0;
        if (!ok) {
          std::fill(dst, dst + stride, std::numeric_limits<T>::quiet_NaN());
          continue;
        }
        std::copy(s.begin(), s.end(), dst);
        if (!Vectors) continue;
        for (int64_t j = 0; j < k; ++j) {  // the sign convention
          int64_t big = 0;
          for (int64_t r = 1; r < m; ++r)
            if (std::abs(u[r * k + j]) > std::abs(u[big * k + j])) big = r;
          const T sign = u[big * k + j] < 0 ? T(-1) : T(1);
          for (int64_t r = 0; r < m; ++r) dst[k + r * k + j] = sign * u[r * k + j];
          for (int64_t c = 0; c < n; ++c) dst[k + m * k + c * k + j] = sign * vt[j * n + c];  // V = vt^T
        }
      }
    }
    return 0;
  });
  return out;
}

struct SvdParts {
  Tensor s, u, v;
};

// The values, U and V held by a packed tensor of the shape Svd gives for A.
SvdParts unpack(const Tensor& packed, const SvdDims& d) {
  const int axis = packed->ndim() - 1;
  Shape su = d.batch_shape, sv = d.batch_shape;
  su.insert(su.end(), {d.m, d.k});
  sv.insert(sv.end(), {d.n, d.k});
  return {slice_axis(packed, axis, 0, d.k), reshape(slice_axis(packed, axis, d.k, d.k + d.m * d.k), su),
          reshape(slice_axis(packed, axis, d.k + d.m * d.k, d.k * (1 + d.m + d.n)), sv)};
}

Tensor as_row(const Tensor& s) {  // [..., k] -> [..., 1, k]
  Shape shape = s->shape;
  shape.insert(shape.end() - 1, 1);
  return reshape(s, shape);
}

Tensors svd_grad(GradCtx& ctx) {  // Note [SVD gradient]
  using M = Tensor;
  const SvdDims d = svd_dims(op_def("Svd"), ctx.x[0]);
  const SvdParts p = unpack(ctx.out, d), g = unpack(ctx.g, d);
  const M eye = identity_matrix(ctx.x[0], d.k), s_row = as_row(p.s), s2 = s_row * s_row;
  const M f = (1.0 - eye) / (s2 - last_two_transposed(s2) + eye);
  const M ut_gu = matmul(p.u, g.u, true, false), vt_gv = matmul(p.v, g.v, true, false);
  const M j = f * (ut_gu - last_two_transposed(ut_gu)), kk = f * (vt_gv - last_two_transposed(vt_gv));
  const M inner = j * s_row + eye * as_row(g.s) + last_two_transposed(s_row) * kk;  // J S + diag(gs) + S K
  M da = matmul(matmul(p.u, inner), p.v, false, true);
  da = da + matmul((g.u - matmul(p.u, ut_gu)) / s_row, p.v, false, true);
  da = da + matmul(p.u, (g.v - matmul(p.v, vt_gv)) / s_row, false, true);
  return {da};
}

Tensors values_grad(GradCtx& ctx) {
  const SvdDims d = svd_dims(op_def("SvdValues"), ctx.x[0]);
  const SvdParts p = unpack(call("Svd", {ctx.x[0]}), d);
  return {matmul(p.u * as_row(ctx.g), p.v, false, true)};
}

}  // namespace

void register_svd_ops() {
  def_op("Svd").inputs(1).shape(svd_infer).forward(svd_kernel<true>).gradient(svd_grad);
  def_op("SvdValues").inputs(1).shape(values_infer).forward(svd_kernel<false>).gradient(values_grad);
}

}  // namespace tg
