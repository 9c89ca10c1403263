// softmax_rows.h -- row loops of softmax, log-softmax and sparse softmax cross-entropy, shifted by
// the row max so every exponent is of x - max <= 0 and nothing overflows for finite logits.
// Compiled once per ISA level with the activation family (see Note [ISA dispatch] in
// cpu_dispatch.cpp), so everything here has internal linkage. The loops take an EwArgs:
//   softmax_rows:    in[0] = x viewed as [outer, n, inner] = shape[0..2]; alpha != 0: log-softmax.
//   softmax_grad_rows: in[0] = y = softmax(x), in[1] = g, both [outer, n, inner]; out = y (g - sum(g y))
//                    along n, the gradient of softmax in one kernel.
//   sparse_xent_rows: in[0] = logits [rows, n] = shape[0..1], in[1] = int64 labels (already
//                    validated to lie in [0, n)); alpha == 0: loss per row, logsumexp - x[label];
//                    alpha != 0: the [rows, n] gradient softmax - onehot(label).
#pragma once
#include <limits>
#include <vector>
#include "kernels/ew_loops.h"
#include "kernels/vmath.h"

namespace tg {
namespace {

// NaN-propagating max, as the Max reduction.
template <class T> inline T max_nan(T a, T b) { return (a > b || a != a) ? a : b; }

// Max and sum of a contiguous run with 16 partial accumulators, so the loops vectorize
// without reassociation flags (and the sum is more accurate than a serial one).
template <class T> T run_max(const T* x, int64_t n) {
  T acc[16];
  for (int j = 0; j < 16; ++j) acc[j] = -std::numeric_limits<T>::infinity();
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int j = 0; j < 16; ++j) acc[j] = max_nan(acc[j], x[k + j]);
  for (; k < n; ++k) acc[0] = max_nan(acc[0], x[k]);
  T m = acc[0];
  for (int j = 1; j < 16; ++j) m = max_nan(m, acc[j]);
  return m;
}

template <class T> T run_sum(const T* x, int64_t n) {
  T acc[16] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int j = 0; j < 16; ++j) acc[j] += x[k + j];
  for (; k < n; ++k) acc[0] += x[k];
  for (int w = 8; w >= 1; w /= 2)  // pairwise combination of the partial sums
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0];
}

// One contiguous row of length n (the common last-axis case).
template <class T> void softmax_row(const T* x, T* y, int64_t n, bool log) {
  const T m = run_max(x, n);
  for (int64_t k = 0; k < n; ++k) y[k] = vmath::exp_nonpos(x[k] - m);
  const T s = run_sum(y, n);
  if (log) {  // (x - m) - log s: m + log s would round away log s beside a huge m
    const T ls = vmath::log(s);
    for (int64_t k = 0; k < n; ++k) y[k] = (x[k] - m) - ls;
  } else {
    const T r = T(1) / s;
    for (int64_t k = 0; k < n; ++k) y[k] *= r;
  }
}

// A [n, inner] block reduced over n: the inner index stays contiguous in every pass.
template <class T> void softmax_block(const T* x, T* y, int64_t n, int64_t inner, bool log, T* m, T* s) {
  for (int64_t i = 0; i < inner; ++i) { m[i] = -std::numeric_limits<T>::infinity(); s[i] = 0; }
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < inner; ++i) m[i] = max_nan(m[i], x[k * inner + i]);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t i = 0; i < inner; ++i) {
      const T e = vmath::exp_nonpos(x[k * inner + i] - m[i]);
      y[k * inner + i] = e;
      s[i] += e;
    }
  if (log) {
    for (int64_t i = 0; i < inner; ++i) s[i] = vmath::log(s[i]);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) y[k * inner + i] = (x[k * inner + i] - m[i]) - s[i];
  } else {
    for (int64_t i = 0; i < inner; ++i) s[i] = T(1) / s[i];
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) y[k * inner + i] *= s[i];
  }
}

template <class T> void softmax_rows(const EwArgs& a) {
  const T* x = static_cast<const T*>(a.in[0]);
  T* y = static_cast<T*>(a.out);
  const int64_t outer = a.shape[0], n = a.shape[1], inner = a.shape[2];
  const bool log = a.alpha != 0.0;
  if (inner == 1) {
#pragma omp parallel for schedule(static) if (a.n >= kParallelMin && outer > 1)
    for (int64_t o = 0; o < outer; ++o) softmax_row(x + o * n, y + o * n, n, log);
    return;
  }
  std::vector<T> m(inner), s(inner);
  for (int64_t o = 0; o < outer; ++o)
    softmax_block(x + o * n * inner, y + o * n * inner, n, inner, log, m.data(), s.data());
}

template <class T> void softmax_grad_rows(const EwArgs& a) {
  const T* y = static_cast<const T*>(a.in[0]);
  const T* g = static_cast<const T*>(a.in[1]);
  T* out = static_cast<T*>(a.out);
  const int64_t outer = a.shape[0], n = a.shape[1], inner = a.shape[2];
  if (inner == 1) {
#pragma omp parallel for schedule(static) if (a.n >= kParallelMin && outer > 1)
    for (int64_t o = 0; o < outer; ++o) {
      const T *yr = y + o * n, *gr = g + o * n;
      T acc[16] = {};
      int64_t k = 0;
      for (; k + 16 <= n; k += 16)
        for (int j = 0; j < 16; ++j) acc[j] += gr[k + j] * yr[k + j];
      for (; k < n; ++k) acc[0] += gr[k] * yr[k];
      for (int w = 8; w >= 1; w /= 2)
        for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
      const T s = acc[0];
      for (int64_t k2 = 0; k2 < n; ++k2) out[o * n + k2] = yr[k2] * (gr[k2] - s);
    }
    return;
  }
  std::vector<T> s(inner);
  for (int64_t o = 0; o < outer; ++o) {
    const int64_t base = o * n * inner;
    for (int64_t i = 0; i < inner; ++i) s[i] = 0;
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) s[i] += g[base + k * inner + i] * y[base + k * inner + i];
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i)
        out[base + k * inner + i] = y[base + k * inner + i] * (g[base + k * inner + i] - s[i]);
  }
}

template <class T> void sparse_xent_rows(const EwArgs& a) {
  const T* x = static_cast<const T*>(a.in[0]);
  const int64_t* label = static_cast<const int64_t*>(a.in[1]);
  T* y = static_cast<T*>(a.out);
  const int64_t rows = a.shape[0], n = a.shape[1];
  if (a.alpha != 0.0) {
#pragma omp parallel for schedule(static) if (rows * n >= kParallelMin && rows > 1)
    for (int64_t r = 0; r < rows; ++r) {
      softmax_row(x + r * n, y + r * n, n, false);
      y[r * n + label[r]] -= T(1);
    }
    return;
  }
#pragma omp parallel if (rows * n >= kParallelMin && rows > 1)
  {
    std::vector<T> e(n);  // exponentials of one row
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * n;
      const T m = run_max(xr, n);
      for (int64_t k = 0; k < n; ++k) e[k] = vmath::exp_nonpos(xr[k] - m);
      y[r] = (m - xr[label[r]]) + vmath::log(run_sum(e.data(), n));  // no m + log s (see softmax_row)
    }
  }
}

}  // namespace
}  // namespace tg
