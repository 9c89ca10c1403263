// layer_norm_rows.h -- row loops of LayerNorm and LayerNormGrad over the last axis: x viewed as
// [rows, n] = shape[0..1], alpha = epsilon.
//   layer_norm_rows:      in[0] = x;           out = (x - mean) / sqrt(var + epsilon)
//   layer_norm_grad_rows: in[0] = x, in[1] = g; out = r (g - mean(g) - xh mean(g xh)), the gradient
//                         of the normalized rows (r = 1/sqrt(var + epsilon), xh = (x - mean) r).
// Compiled once per ISA level with the activation family, so everything has internal linkage.
//
// Note [One pass per row]: a row is read from memory once and written once. Its statistics take
// more sweeps, but over a row that sits in L1 after the first: the mean first, then the variance
// as the mean of squared deviations (not E[x^2] - E[x]^2, which cancels for rows far from zero),
// exactly as the composed ops compute them, so the fused op agrees with them to rounding.
#pragma once
#include <cmath>
#include "kernels/softmax_rows.h"

namespace tg {
namespace {

// mean and 1/sqrt(var + eps) of one row
template <class T> void row_moments(const T* x, int64_t n, T eps, T& mean, T& r) {
  mean = run_sum(x, n) / T(n);
  T acc[16] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int j = 0; j < 16; ++j) { const T d = x[k + j] - mean; acc[j] += d * d; }
  for (; k < n; ++k) { const T d = x[k] - mean; acc[0] += d * d; }
  for (int w = 8; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  r = T(1) / std::sqrt(acc[0] / T(n) + eps);
}

template <class T> void layer_norm_rows(const EwArgs& a) {
  const T* x = static_cast<const T*>(a.in[0]);
  T* y = static_cast<T*>(a.out);
  const int64_t rows = a.shape[0], n = a.shape[1];
  const T eps = T(a.alpha);
#pragma omp parallel for schedule(static) if (a.n >= kParallelMin && rows > 1)
  for (int64_t i = 0; i < rows; ++i) {
    const T* xr = x + i * n;
    T* yr = y + i * n;
    T mean, r;
    row_moments(xr, n, eps, mean, r);
    for (int64_t k = 0; k < n; ++k) yr[k] = (xr[k] - mean) * r;
  }
}

template <class T> void layer_norm_grad_rows(const EwArgs& a) {
  const T* x = static_cast<const T*>(a.in[0]);
  const T* g = static_cast<const T*>(a.in[1]);
  T* y = static_cast<T*>(a.out);
  const int64_t rows = a.shape[0], n = a.shape[1];
  const T eps = T(a.alpha);
#pragma omp parallel for schedule(static) if (a.n >= kParallelMin && rows > 1)
  for (int64_t i = 0; i < rows; ++i) {
    const T *xr = x + i * n, *gr = g + i * n;
    T* yr = y + i * n;
    T mean, r;
    row_moments(xr, n, eps, mean, r);
    T sg[16] = {}, sgx[16] = {};  // sums of g and of g xh
    int64_t k = 0;
    for (; k + 16 <= n; k += 16)
      for (int j = 0; j < 16; ++j) { sg[j] += gr[k + j]; sgx[j] += gr[k + j] * ((xr[k + j] - mean) * r); }
    for (; k < n; ++k) { sg[0] += gr[k]; sgx[0] += gr[k] * ((xr[k] - mean) * r); }
    for (int w = 8; w >= 1; w /= 2)
      for (int j = 0; j < w; ++j) { sg[j] += sg[j + w]; sgx[j] += sgx[j + w]; }
    const T gm = sg[0] / T(n), gxm = sgx[0] / T(n);
    for (int64_t k2 = 0; k2 < n; ++k2) yr[k2] = r * ((gr[k2] - gm) - ((xr[k2] - mean) * r) * gxm);
  }
}

}  // namespace
}  // namespace tg
