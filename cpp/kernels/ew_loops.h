// ew_loops.h -- loop templates for elementwise kernels: contiguous, scalar-broadcast and N-d paths.
// Everything here has internal linkage: see Note [ISA dispatch] in cpu_dispatch.cpp.
#pragma once
#include <cstdint>
#include <cstring>
#include <type_traits>
#include "kernels/ew_args.h"
#include "kernels/work_pool.h"

namespace tg {
namespace {

// Below this many elements a second thread costs more than it saves.
constexpr int64_t kParallelMin = 1 << 16;
// The shortest chunk of elements the pool hands out (Note [Dynamic chunks] in work_pool.cpp), and the
// element multiple chunks start at, so vector loops start aligned.
constexpr int64_t kChunkGrain = 1 << 13;
constexpr int64_t kChunkAlign = 64;

// f(lo, hi) over [0, n) in dynamically claimed chunks.
template <class F>
void element_chunks(int64_t n, F f) {
  parallel_ranges(n, kChunkGrain, kChunkAlign, f);
}

// f(r) for each of `rows` rows of `inner` elements, in dynamically claimed chunks of rows.
template <class F>
void row_chunks(int64_t rows, int64_t inner, F f) {
  auto range = [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) f(r);
  };
  parallel_ranges(rows, (kChunkGrain + inner - 1) / (inner ? inner : 1), 1, range);
}

template <class T, class R, class F>
void unary_loop(const EwArgs& a, F f) {
  const T* x = static_cast<const T*>(a.in[0]);
  R* o = static_cast<R*>(a.out);
  const int64_t n = a.n;
  if (n >= kParallelMin) {
    element_chunks(n, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) o[i] = f(x[i]);
    });
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  }
}

// A unary op given as a loop run(x, out, n) over contiguous elements: one chunk per thread.
template <class T, class Run>
void unary_run_loop(const EwArgs& a, Run run) {
  const T* x = static_cast<const T*>(a.in[0]);
  T* o = static_cast<T*>(a.out);
  const int64_t n = a.n;
  if (n < kParallelMin) return run(x, o, n);
  element_chunks(n, [&](int64_t lo, int64_t hi) { run(x + lo, o + lo, hi - lo); });
}

// Inner loop over the last dimension with strides 0 or 1 specialised so the compiler vectorizes.
template <class T, class R, class F>
inline void binary_row(const T* x, int64_t sx, const T* y, int64_t sy, R* o, int64_t n, F f) {
  if (sx == 1 && sy == 1) for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
  else if (sx == 1 && sy == 0) { T b = y[0]; for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], b); }
  else if (sx == 0 && sy == 1) { T b = x[0]; for (int64_t i = 0; i < n; ++i) o[i] = f(b, y[i]); }
  else for (int64_t i = 0; i < n; ++i) o[i] = f(x[i * sx], y[i * sy]);
}

template <class T, class R, class F>
void binary_loop(const EwArgs& a, F f) {
  const T* x = static_cast<const T*>(a.in[0]);
  const T* y = static_cast<const T*>(a.in[1]);
  R* o = static_cast<R*>(a.out);
  const int last = a.ndim - 1;
  const int64_t inner = a.shape[last];
  const int64_t rows = a.n / (inner ? inner : 1);
  if (rows == 1) {
    if (a.n >= kParallelMin) {
      const int64_t sx = a.stride[0][last], sy = a.stride[1][last];
      element_chunks(inner, [&](int64_t lo, int64_t hi) {  // the single row split between threads
        binary_row(x + lo * sx, sx, y + lo * sy, sy, o + lo, hi - lo, f);
      });
    } else {
      binary_row(x, a.stride[0][last], y, a.stride[1][last], o, inner, f);
    }
    return;
  }
  auto row = [&](int64_t r) {
    int64_t ox = 0, oy = 0, rem = r;
    for (int d = last - 1; d >= 0; --d) {
      int64_t idx = rem % a.shape[d];
      rem /= a.shape[d];
      ox += idx * a.stride[0][d];
      oy += idx * a.stride[1][d];
    }
    binary_row(x + ox, a.stride[0][last], y + oy, a.stride[1][last], o + r * inner, inner, f);
  };
  if (a.n >= kParallelMin) {
    row_chunks(rows, inner, row);
  } else {
    for (int64_t r = 0; r < rows; ++r) row(r);
  }
}

// c ? x : y without a branch (a data-dependent branch mispredicts on about half of random conditions:
// 3-4 ns per element instead of a vectorized blend); the chosen value's bits are copied unchanged.
template <class T>
inline T select_bits(bool c, T x, T y) {
  using U = std::conditional_t<sizeof(T) == 8, uint64_t,
            std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;
  static_assert(sizeof(U) == sizeof(T), "select_bits: unsupported size");
  U ux, uy;
  std::memcpy(&ux, &x, sizeof(T));
  std::memcpy(&uy, &y, sizeof(T));
  const U mask = U(0) - U(c);
  const U r = (ux & mask) | (uy & U(~mask));
  T out;
  std::memcpy(&out, &r, sizeof(T));
  return out;
}

// Ternary counterpart of binary_row: unit strides specialised so the select vectorizes.
template <class C, class T, class F>
inline void ternary_row(const C* c, int64_t sc, const T* x, int64_t sx, const T* y, int64_t sy, T* o, int64_t n, F f) {
  if (sc == 1 && sx == 1 && sy == 1) for (int64_t i = 0; i < n; ++i) o[i] = f(c[i], x[i], y[i]);
  else if (sc == 1 && sx == 1 && sy == 0) { const T b = y[0]; for (int64_t i = 0; i < n; ++i) o[i] = f(c[i], x[i], b); }
  else if (sc == 1 && sx == 0 && sy == 1) { const T a = x[0]; for (int64_t i = 0; i < n; ++i) o[i] = f(c[i], a, y[i]); }
  else for (int64_t i = 0; i < n; ++i) o[i] = f(c[i * sc], x[i * sx], y[i * sy]);
}

template <class C, class T, class F>
void ternary_loop(const EwArgs& a, F f) {
  const C* c = static_cast<const C*>(a.in[0]);
  const T* x = static_cast<const T*>(a.in[1]);
  const T* y = static_cast<const T*>(a.in[2]);
  T* o = static_cast<T*>(a.out);
  const int last = a.ndim - 1;
  const int64_t inner = a.shape[last];
  const int64_t rows = a.n / (inner ? inner : 1);
  const int64_t sc = a.stride[0][last], sx = a.stride[1][last], sy = a.stride[2][last];
  if (rows == 1) {
    auto span = [&](int64_t lo, int64_t hi) { ternary_row(c + lo * sc, sc, x + lo * sx, sx, y + lo * sy, sy, o + lo, hi - lo, f); };
    if (a.n >= kParallelMin) element_chunks(inner, span);
    else span(0, inner);
    return;
  }
  auto row = [&](int64_t r) {
    int64_t oc = 0, ox = 0, oy = 0, rem = r;
    for (int d = last - 1; d >= 0; --d) {
      int64_t idx = rem % a.shape[d];
      rem /= a.shape[d];
      oc += idx * a.stride[0][d];
      ox += idx * a.stride[1][d];
      oy += idx * a.stride[2][d];
    }
    ternary_row(c + oc, sc, x + ox, sx, y + oy, sy, o + r * inner, inner, f);
  };
  if (a.n >= kParallelMin) {
    row_chunks(rows, inner, row);
  } else {
    for (int64_t r = 0; r < rows; ++r) row(r);
  }
}

}  // namespace
}  // namespace tg
