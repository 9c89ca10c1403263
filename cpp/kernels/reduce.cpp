// reduce.cpp -- reductions as [outer, reduced, inner] passes; sums use 8 partial accumulators
// per block and pairwise combination of blocks (accurate and vectorizable).
#include "kernels/reduce.h"
#include "kernels/half.h"
#include "kernels/int_wrap.h"
#include <cmath>
#include <algorithm>
#include <limits>
#include <type_traits>

namespace tg {

namespace {

// Sums and products accumulate floats in their own type (pairwise blocks keep a sum's error small)
// and integers in uint64, where they wrap by definition (two's complement, as TF), stored back in
// the integer's width at the end. (Accumulating in int64 through casts back from uint64 was
// miscompiled by GCC 12's loop vectorizer for 8-bit inputs: a sum of 16 uint8 came out wrong.)
// Max and min compare in the element type itself.
template <class T> using Acc = std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>;

template <class T> inline Acc<T> widen(T v) {
  if constexpr (std::is_floating_point_v<T>) return v;
  else return (uint64_t)(int64_t)v;  // sign-extended: the sum's low bits are the same
}

// The value of a reduction over nothing.
template <class T> T identity(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return T(0);
    case ReduceKind::Prod: return T(1);
    case ReduceKind::Max:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    case ReduceKind::Min:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  return T(0);
}

// NaN propagates, as in TF and NumPy.
template <class T> inline T pick(ReduceKind k, T a, T b) {
  if (k == ReduceKind::Max) return (a > b || a != a) ? a : b;
  return (a < b || a != a) ? a : b;
}

// Pairwise sum of a contiguous run.
template <class T> Acc<T> sum_run(const T* x, int64_t n) {
  if (n <= 256) {
    Acc<T> acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) acc[j] += widen(x[i + j]);
    Acc<T> s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) s += widen(x[i]);
    return s;
  }
  int64_t h = (n / 2 + 7) / 8 * 8;
  return sum_run(x, h) + sum_run(x + h, n - h);
}

template <class T>
void reduce_block(const T* x, T* out, int64_t outer, int64_t r, int64_t inner, ReduceKind k) {
  const bool folds = k == ReduceKind::Sum || k == ReduceKind::Prod;
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = x + o * r * inner;
    T* oo = out + o * inner;
    if (inner == 1) {
      if (k == ReduceKind::Sum) {
        oo[0] = (T)sum_run(xo, r);
      } else if (folds) {
        Acc<T> a = 1;
        for (int64_t i = 0; i < r; ++i) a *= widen(xo[i]);
        oo[0] = (T)a;
      } else {
        T a = identity<T>(k);
        for (int64_t i = 0; i < r; ++i) a = pick(k, a, xo[i]);
        oo[0] = a;
      }
    } else if (folds) {
      std::vector<Acc<T>> acc(inner, k == ReduceKind::Sum ? Acc<T>(0) : Acc<T>(1));
      for (int64_t i = 0; i < r; ++i) {
        const T* row = xo + i * inner;
        if (k == ReduceKind::Sum) for (int64_t j = 0; j < inner; ++j) acc[j] += widen(row[j]);
        else for (int64_t j = 0; j < inner; ++j) acc[j] *= widen(row[j]);
      }
      for (int64_t j = 0; j < inner; ++j) oo[j] = (T)acc[j];
    } else {
      std::vector<T> acc(inner, identity<T>(k));
      for (int64_t i = 0; i < r; ++i) {
        const T* row = xo + i * inner;
        for (int64_t j = 0; j < inner; ++j) acc[j] = pick<T>(k, acc[j], row[j]);
      }
      for (int64_t j = 0; j < inner; ++j) oo[j] = acc[j];
    }
  }
}

}  // namespace

Tensor reduce(const Tensor& x, const std::vector<bool>& mask, ReduceKind kind) {
  // float16 accumulates in float32 and rounds once. (TF's CPU kernels accumulate in float16 along
  // an outer axis and in float32 blocks along the innermost: its sums depend on the layout.)
  if (is_half(x->dtype)) return rounded_half(reduce(widened_half(x), mask, kind), x->dtype);
  Tensor cur = x;
  Shape shape = x->shape;
  const int nd = (int)shape.size();
  // Reduce one run of adjacent flagged axes at a time, innermost first.
  int d = nd - 1;
  bool any = false;
  while (d >= 0) {
    if (!mask[d]) { --d; continue; }
    int hi = d;
    while (d >= 0 && mask[d]) --d;
    int lo = d + 1;
    int64_t outer = 1, r = 1, inner = 1;
    for (int i = 0; i < lo; ++i) outer *= shape[i];
    for (int i = lo; i <= hi; ++i) r *= shape[i];
    for (int i = hi + 1; i < nd; ++i) inner *= shape[i];
    Shape next = shape;
    for (int i = lo; i <= hi; ++i) next[i] = 1;
    Tensor out = empty(next, x->dtype);
    if (out->size > 0) {
      if (r == 0) {
        dispatch_real(x->dtype, [&](auto v) {
          using T = decltype(v);
          T id = identity<T>(kind);
          for (int64_t i = 0; i < out->size; ++i) out->data_as<T>()[i] = id;
          return 0;
        });
      } else {
        dispatch_real(x->dtype, [&](auto v) {
          using T = decltype(v);
          reduce_block<T>(cur->data_as<T>(), out->data_as<T>(), outer, r, inner, kind);
          return 0;
        });
      }
    }
    cur = out;
    shape = next;
    any = true;
  }
  return any ? cur : copy(x);
}

Tensor arg_reduce(const Tensor& x, int axis, bool is_max, DType out_dtype) {
  if (is_half(x->dtype)) return arg_reduce(widened_half(x), axis, is_max, out_dtype);  // same order
  Shape out_shape;
  int64_t outer = 1, r = x->shape[axis], inner = 1;
  for (int i = 0; i < x->ndim(); ++i) {
    if (i < axis) outer *= x->shape[i];
    if (i > axis) inner *= x->shape[i];
    if (i != axis) out_shape.push_back(x->shape[i]);
  }
  Tensor out = empty(out_shape, out_dtype);
  dispatch_real(x->dtype, [&](auto v) {
    using T = decltype(v);
    const T* p = x->data_as<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        // NaN is skipped, as TF (a leading NaN is replaced by the extreme finite value); the
        // first of equal values wins; a slice of NaN only gives 0
        int64_t best = 0;
        T bv = p[o * r * inner + j];
        if (bv != bv) bv = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
        for (int64_t i = 1; i < r; ++i) {
          T val = p[(o * r + i) * inner + j];
          if (is_max ? (val > bv) : (val < bv)) { bv = val; best = i; }
        }
        if (out_dtype == DType::Int64) out->data_as<int64_t>()[o * inner + j] = best;
        else out->data_as<int32_t>()[o * inner + j] = (int32_t)best;
      }
    return 0;
  });
  return out;
}

// Views x as [outer, r, inner] around `axis`.
static void split_at(const Tensor& x, int axis, int64_t& outer, int64_t& r, int64_t& inner) {
  outer = 1, inner = 1, r = x->shape[axis];
  for (int i = 0; i < x->ndim(); ++i) {
    if (i < axis) outer *= x->shape[i];
    if (i > axis) inner *= x->shape[i];
  }
}

// Running sums (Product = false) or products along `axis`.
template <bool Product>
static Tensor running(const Tensor& x, int axis, bool exclusive, bool reverse) {
  // float16: running sums and products in float32, each rounded once (TF's round at every step)
  if (is_half(x->dtype)) return rounded_half(running<Product>(widened_half(x), axis, exclusive, reverse), x->dtype);
  Tensor out = empty(x->shape, x->dtype);
  int64_t outer, r, inner;
  split_at(x, axis, outer, r, inner);
  dispatch_real(x->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* p = x->data_as<T>();
      T* q = out->data_as<T>();
      std::vector<Acc<T>> acc(inner);
      for (int64_t o = 0; o < outer; ++o) {
        std::fill(acc.begin(), acc.end(), Acc<T>(Product ? 1 : 0));
        for (int64_t s = 0; s < r; ++s) {
          const int64_t i = reverse ? r - 1 - s : s;
          const T* row = p + (o * r + i) * inner;
          T* dst = q + (o * r + i) * inner;
          for (int64_t j = 0; j < inner; ++j) {
            const Acc<T> next = Product ? acc[j] * widen(row[j]) : acc[j] + widen(row[j]);
            dst[j] = (T)(exclusive ? acc[j] : next);
            acc[j] = next;
          }
        }
      }
    }
    return 0;
  });
  return out;
}

Tensor cumsum(const Tensor& x, int axis, bool exclusive, bool reverse) { return running<false>(x, axis, exclusive, reverse); }
Tensor cumprod(const Tensor& x, int axis, bool exclusive, bool reverse) { return running<true>(x, axis, exclusive, reverse); }

Tensor prod_others(const Tensor& x) {
  Tensor out = empty(x->shape, x->dtype);
  const int64_t n = x->ndim() ? x->shape.back() : 1;
  const int64_t rows = n ? x->size / n : 0;
  dispatch_dtype(x->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      for (int64_t o = 0; o < rows; ++o) {
        const T* p = x->data_as<T>() + o * n;
        T* q = out->data_as<T>() + o * n;
        T left = 1, right = 1;
        for (int64_t i = 0; i < n; ++i) { q[i] = left; left = wrap_mul(left, p[i]); }                     // exclusive prefix
        for (int64_t i = n - 1; i >= 0; --i) { q[i] = wrap_mul(q[i], right); right = wrap_mul(right, p[i]); }  // times exclusive suffix
      }
    }
    return 0;
  });
  return out;
}

}  // namespace tg
