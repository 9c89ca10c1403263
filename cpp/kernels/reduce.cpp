// reduce.cpp -- reductions as [outer, reduced, inner] passes; sums use 8 partial accumulators
// per block and pairwise combination of blocks (accurate and vectorizable).
#include "kernels/reduce.h"
#include <cmath>
#include <algorithm>
#include <limits>
#include <type_traits>

namespace tg {

namespace {

// Accumulator type: float sums stay float (pairwise blocks keep the error small), ints widen.
template <class T> using Acc = std::conditional_t<std::is_floating_point_v<T>, T, int64_t>;

// Integer sums and products wrap (two's complement, as TF) instead of overflowing into undefined
// behaviour; floats are untouched.
template <class A> inline A add(A a, A b) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
    return (A)((std::make_unsigned_t<A>)a + (std::make_unsigned_t<A>)b);
  else return a + b;
}
template <class A> inline A mul(A a, A b) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
    return (A)((std::make_unsigned_t<A>)a * (std::make_unsigned_t<A>)b);
  else return a * b;
}

template <class T> Acc<T> identity(ReduceKind k) {
  switch (k) {
    case ReduceKind::Sum: return 0;
    case ReduceKind::Prod: return 1;
    case ReduceKind::Max:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
    case ReduceKind::Min:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  return 0;
}

template <class T> inline Acc<T> combine(ReduceKind k, Acc<T> a, Acc<T> b) {
  switch (k) {
    case ReduceKind::Sum: return add(a, b);
    case ReduceKind::Prod: return mul(a, b);
    // NaN propagates, as in TF and NumPy.
    case ReduceKind::Max: return (a > b || a != a) ? a : b;
    case ReduceKind::Min: return (a < b || a != a) ? a : b;
  }
  return a;
}

// Pairwise sum of a contiguous run.
template <class T> Acc<T> sum_run(const T* x, int64_t n) {
  if (n <= 256) {
    Acc<T> acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) acc[j] = add(acc[j], (Acc<T>)x[i + j]);
    Acc<T> s = add(add(add(acc[0], acc[1]), add(acc[2], acc[3])), add(add(acc[4], acc[5]), add(acc[6], acc[7])));
    for (; i < n; ++i) s = add(s, (Acc<T>)x[i]);
    return s;
  }
  int64_t h = (n / 2 + 7) / 8 * 8;
  return add(sum_run(x, h), sum_run(x + h, n - h));
}

template <class T>
void reduce_block(const T* x, T* out, int64_t outer, int64_t r, int64_t inner, ReduceKind k) {
  for (int64_t o = 0; o < outer; ++o) {
    const T* xo = x + o * r * inner;
    T* oo = out + o * inner;
    if (inner == 1) {
      Acc<T> a;
      if (k == ReduceKind::Sum) a = sum_run(xo, r);
      else {
        a = identity<T>(k);
        for (int64_t i = 0; i < r; ++i) a = combine<T>(k, a, (Acc<T>)xo[i]);
      }
      oo[0] = (T)a;
    } else {
      std::vector<Acc<T>> acc(inner, identity<T>(k));
      for (int64_t i = 0; i < r; ++i) {
        const T* row = xo + i * inner;
        if (k == ReduceKind::Sum) for (int64_t j = 0; j < inner; ++j) acc[j] = add(acc[j], (Acc<T>)row[j]);
        else for (int64_t j = 0; j < inner; ++j) acc[j] = combine<T>(k, acc[j], (Acc<T>)row[j]);
      }
      for (int64_t j = 0; j < inner; ++j) oo[j] = (T)acc[j];
    }
  }
}

}  // namespace

Tensor reduce(const Tensor& x, const std::vector<bool>& mask, ReduceKind kind) {
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
        dispatch_dtype(x->dtype, [&](auto v) {
          using T = decltype(v);
          T id = (T)identity<T>(kind);
          for (int64_t i = 0; i < out->size; ++i) out->data_as<T>()[i] = id;
          return 0;
        });
      } else {
        dispatch_dtype(x->dtype, [&](auto v) {
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
  Shape out_shape;
  int64_t outer = 1, r = x->shape[axis], inner = 1;
  for (int i = 0; i < x->ndim(); ++i) {
    if (i < axis) outer *= x->shape[i];
    if (i > axis) inner *= x->shape[i];
    if (i != axis) out_shape.push_back(x->shape[i]);
  }
  Tensor out = empty(out_shape, out_dtype);
  dispatch_dtype(x->dtype, [&](auto v) {
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
  Tensor out = empty(x->shape, x->dtype);
  int64_t outer, r, inner;
  split_at(x, axis, outer, r, inner);
  dispatch_dtype(x->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* p = x->data_as<T>();
      T* q = out->data_as<T>();
      std::vector<T> acc(inner);
      for (int64_t o = 0; o < outer; ++o) {
        std::fill(acc.begin(), acc.end(), T(Product ? 1 : 0));
        for (int64_t s = 0; s < r; ++s) {
          const int64_t i = reverse ? r - 1 - s : s;
          const T* row = p + (o * r + i) * inner;
          T* dst = q + (o * r + i) * inner;
          for (int64_t j = 0; j < inner; ++j) {
            const T next = Product ? mul(acc[j], row[j]) : add(acc[j], row[j]);
            dst[j] = exclusive ? acc[j] : next;
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
        for (int64_t i = 0; i < n; ++i) { q[i] = left; left = mul(left, p[i]); }                // exclusive prefix
        for (int64_t i = n - 1; i >= 0; --i) { q[i] = mul(q[i], right); right = mul(right, p[i]); }  // times exclusive suffix
      }
    }
    return 0;
  });
  return out;
}

}  // namespace tg
