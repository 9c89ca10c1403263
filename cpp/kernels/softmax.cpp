// softmax.cpp -- row-wise softmax kernels: shift by the row max, exponentiate, normalise.
// Every exponent is of x - max <= 0, so no value overflows for any finite logits.
#include "kernels/softmax.h"
#include <cmath>
#include <limits>
#include <vector>
#include "kernels/vmath.h"

namespace tg {

namespace vm = tg::vmath;

AxisSplit split_at_axis(const Shape& s, int axis) {
  AxisSplit a;
  for (int d = 0; d < (int)s.size(); ++d) {
    if (d < axis) a.outer *= s[d];
    else if (d == axis) a.n = s[d];
    else a.inner *= s[d];
  }
  return a;
}

namespace {

// NaN-propagating max, as the Max reduction.
template <class T> inline T max_nan(T a, T b) { return (a > b || a != a) ? a : b; }

// One contiguous row of length n (the common last-axis case).
template <class T> void softmax_row(const T* x, T* y, int64_t n, bool log) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < n; ++k) m = max_nan(m, x[k]);
  T s = 0;
  for (int64_t k = 0; k < n; ++k) {
    y[k] = vm::exp_nonpos(x[k] - m);
    s += y[k];
  }
  if (log) {
    const T shift = m + vm::log(s);  // log sum exp
    for (int64_t k = 0; k < n; ++k) y[k] = x[k] - shift;
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
      T e = vm::exp_nonpos(x[k * inner + i] - m[i]);
      y[k * inner + i] = e;
      s[i] += e;
    }
  if (log) {
    for (int64_t i = 0; i < inner; ++i) s[i] = m[i] + vm::log(s[i]);
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) y[k * inner + i] = x[k * inner + i] - s[i];
  } else {
    for (int64_t i = 0; i < inner; ++i) s[i] = T(1) / s[i];
    for (int64_t k = 0; k < n; ++k)
      for (int64_t i = 0; i < inner; ++i) y[k * inner + i] *= s[i];
  }
}

template <class T> void softmax_typed(const Tensor& x, Tensor& out, int axis, bool log) {
  AxisSplit a = split_at_axis(x->shape, axis);
  const T* px = x->data_as<T>();
  T* py = out->data_as<T>();
  if (a.inner == 1) {
    for (int64_t o = 0; o < a.outer; ++o) softmax_row(px + o * a.n, py + o * a.n, a.n, log);
    return;
  }
  std::vector<T> m(a.inner), s(a.inner);
  for (int64_t o = 0; o < a.outer; ++o)
    softmax_block(px + o * a.n * a.inner, py + o * a.n * a.inner, a.n, a.inner, log, m.data(), s.data());
}

// log sum exp of one contiguous row, shifted by its max.
template <class T> T row_logsumexp(const T* x, int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
  for (int64_t k = 0; k < n; ++k) m = max_nan(m, x[k]);
  T s = 0;
  for (int64_t k = 0; k < n; ++k) s += vm::exp_nonpos(x[k] - m);
  return m + vm::log(s);
}

template <class T, class L> void sparse_xent_typed(const Tensor& logits, const Tensor& labels, Tensor& out, bool grad) {
  const int64_t n = logits->shape.back(), rows = labels->size;
  const T* x = logits->data_as<T>();
  const L* lab = labels->data_as<L>();
  T* y = out->data_as<T>();
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    if (grad) {
      softmax_row(xr, y + r * n, n, false);
      y[r * n + lab[r]] -= T(1);
    } else {
      y[r] = row_logsumexp(xr, n) - xr[lab[r]];
    }
  }
}

}  // namespace

Tensor softmax(const Tensor& x, int axis, bool log) {
  Tensor out = empty(x->shape, x->dtype);
  if (out->size == 0) return out;
  if (x->dtype == DType::Float32) softmax_typed<float>(x, out, axis, log);
  else softmax_typed<double>(x, out, axis, log);
  return out;
}

Tensor sparse_xent(const Tensor& logits, const Tensor& labels, bool grad) {
  Tensor out = empty(grad ? logits->shape : labels->shape, logits->dtype);
  if (out->size == 0) return out;
  const bool f32 = logits->dtype == DType::Float32, i32 = labels->dtype == DType::Int32;
  if (f32 && i32) sparse_xent_typed<float, int32_t>(logits, labels, out, grad);
  else if (f32) sparse_xent_typed<float, int64_t>(logits, labels, out, grad);
  else if (i32) sparse_xent_typed<double, int32_t>(logits, labels, out, grad);
  else sparse_xent_typed<double, int64_t>(logits, labels, out, grad);
  return out;
}

}  // namespace tg
