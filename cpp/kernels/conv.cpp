// conv.cpp -- NHWC convolution (im2col + the BLAS GEMM) and pooling kernels; see conv.h.
//
// Note [im2col]: in NHWC a filter [kh, kw, c, o] is a [kh*kw*c, o] matrix, and the input patch of
// one output pixel, read in (ky, kx, c) order, is a row of kh*kw*c values, copied in runs of c.
// A chunk of images becomes a [pixels, kh*kw*c] matrix `col` (padding as zeros), and
//   out = col @ W,   dcol = dy @ W^T (then added back into dx: col2im),   dW = col^T @ dy,
// three GEMMs on the same BLAS as MatMul, chunk by chunk (threads: Note [Conv threads]). A 1x1
// filter with stride 1 and no padding needs no copy: col is x itself; few values per patch take
// a direct kernel (Note [Direct small-K convolution]).
#include "kernels/conv.h"
#include <omp.h>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>
#include "kernels/matmul.h"
#include "kernels/threads.h"

namespace tg {

namespace {

// A chunk's col matrix stays below this (or one image); it comes from the tensor block cache, so
// repeated calls reuse it without page faults.
constexpr int64_t kColBytes = 1 << 20;
constexpr int64_t kParallelWork = 1 << 15;  // elements touched before copies use both cores

template <class F> void dispatch_float(DType d, F&& f) {
  if (d == DType::Float64) f(double{});
  else f(float{});
}

bool is_pointwise(const Window2D& g) {
  return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.pt == 0 && g.pl == 0 && g.oh == g.h && g.ow == g.w;
}

// Calls body(y, x, ky, kx) for each window position of output pixel (oy, ox) inside the input.
template <class F> inline void for_window(const Window2D& g, int64_t oy, int64_t ox, F&& body) {
  for (int64_t ky = 0; ky < g.kh; ++ky) {
    const int64_t y = oy * g.sh - g.pt + ky * g.dh;
    if (y < 0 || y >= g.h) continue;
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const int64_t x = ox * g.sw - g.pl + kx * g.dw;
      if (x >= 0 && x < g.w) body(y, x, ky, kx);
    }
  }
}

// One image's patches as rows of col (Note [im2col]).
template <class T> void im2col(const Window2D& g, const T* x, T* col) {
  const int64_t C = g.c, K = g.kh * g.kw * C;
  for (int64_t oy = 0; oy < g.oh; ++oy)
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      T* row = col + (oy * g.ow + ox) * K;
      std::fill(row, row + K, T(0));
      for_window(g, oy, ox, [&](int64_t y, int64_t xx, int64_t ky, int64_t kx) {
        std::memcpy(row + (ky * g.kw + kx) * C, x + (y * g.w + xx) * C, sizeof(T) * C);
      });
    }
}

// The adjoint of im2col: each row of col added back into the image it was read from.
template <class T> void col2im(const Window2D& g, const T* col, T* x) {
  const int64_t C = g.c, K = g.kh * g.kw * C;
  std::fill(x, x + g.h * g.w * C, T(0));
  for (int64_t oy = 0; oy < g.oh; ++oy)
    for (int64_t ox = 0; ox < g.ow; ++ox) {
      const T* row = col + (oy * g.ow + ox) * K;
      for_window(g, oy, ox, [&](int64_t y, int64_t xx, int64_t ky, int64_t kx) {
        const T* src = row + (ky * g.kw + kx) * C;
        T* dst = x + (y * g.w + xx) * C;
        for (int64_t c = 0; c < C; ++c) dst[c] += src[c];
      });
    }
}

// Images per chunk so that a chunk's col matrix stays under kColBytes.
int64_t chunk_images(const Window2D& g, size_t elem) {
  const int64_t per = std::max<int64_t>(1, g.oh * g.ow * g.kh * g.kw * g.c * (int64_t)elem);
  return std::max<int64_t>(1, std::min<int64_t>(g.n, kColBytes / per));
}

// Runs f(i) for i in [0, n) on both cores when the work is large enough.
template <class F> void parallel_for(int64_t n, int64_t work, F&& f) {
#pragma omp parallel for schedule(static) if (n > 1 && work >= kParallelWork)
  for (int64_t i = 0; i < n; ++i) f(i);
}

// Note [Direct small-K convolution]: with few values per patch (K = kh*kw*c, as in a first layer
// over 1-3 channels) im2col copies more than the GEMM computes. Then each output pixel is a sum of
// K rows of the filter scaled by the patch's values, and the filter gradient a sum of K outer
// products. Both run one output row and one filter tap at a time, with a block of 16, 32 or 64
// output channels in registers (a filter count that is a multiple of 16; others take the im2col
// path) and the row in L1. The float32 loops are cloned for AVX2 and AVX-512 (picked when the
// library loads). LeNet's first layer (64 x 28 x 28 x 1, 32 3x3 filters) on one core: forward
// 1.9 -> 0.56 ms, filter gradient 1.9 -> 0.5 ms against im2col + GEMM.
constexpr int64_t kDirectMaxK = 32;

constexpr int64_t kBlock = 16;  // output channels per register block (one AVX-512 register of floats)

// Image n's output, row by row: for each filter tap, a block of B filter values stays in
// registers while it is added, scaled, into every pixel of the row (which stays in L1).
template <int B, class T>
inline __attribute__((always_inline)) void direct_forward_blocks(const Window2D& g, const T* X, const T* W, T* Y,
                                                                 int64_t O, int64_t n) {
  for (int64_t oy = 0; oy < g.oh; ++oy) {
    T* orow = Y + (n * g.oh + oy) * g.ow * O;
    std::fill(orow, orow + g.ow * O, T(0));
    for (int64_t ky = 0; ky < g.kh; ++ky) {
      const int64_t y = oy * g.sh - g.pt + ky * g.dh;
      if (y < 0 || y >= g.h) continue;
      const T* xrow = X + (n * g.h + y) * g.w * g.c;
      for (int64_t kx = 0; kx < g.kw; ++kx)
        for (int64_t c = 0; c < g.c; ++c)
          for (int64_t jb = 0; jb < O; jb += B) {
            T wv[B];
            const T* k = W + ((ky * g.kw + kx) * g.c + c) * O + jb;
            for (int64_t j = 0; j < B; ++j) wv[j] = k[j];
            for (int64_t ox = 0; ox < g.ow; ++ox) {
              const int64_t xx = ox * g.sw - g.pl + kx * g.dw;
              if (xx < 0 || xx >= g.w) continue;
              const T v = xrow[xx * g.c + c];
              T* o = orow + ox * O + jb;
              for (int64_t j = 0; j < B; ++j) o[j] += v * wv[j];
            }
          }
    }
  }
}

// The widest block that divides O: fewer passes over the window per pixel.
template <class T>
inline __attribute__((always_inline)) void direct_forward_body(const Window2D& g, const T* X, const T* W, T* Y,
                                                               int64_t O, int64_t n) {
  if (O % (4 * kBlock) == 0) direct_forward_blocks<4 * kBlock>(g, X, W, Y, O, n);
  else if (O % (2 * kBlock) == 0) direct_forward_blocks<2 * kBlock>(g, X, W, Y, O, n);
  else direct_forward_blocks<kBlock>(g, X, W, Y, O, n);
}

// acc [K, O] += the filter gradient of images [n0, n1) (O % B == 0). For each output row and
// filter tap, a block of B output channels is summed over the row in registers (the row's
// gradient stays in L1), then added to acc once.
template <int B, class T>
inline __attribute__((always_inline)) void direct_filter_blocks(const Window2D& g, const T* X, const T* DY, T* acc,
                                                                int64_t O, int64_t n0, int64_t n1) {
  for (int64_t n = n0; n < n1; ++n)
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      const T* drow = DY + (n * g.oh + oy) * g.ow * O;
      for (int64_t ky = 0; ky < g.kh; ++ky) {
        const int64_t y = oy * g.sh - g.pt + ky * g.dh;
        if (y < 0 || y >= g.h) continue;
        const T* xrow = X + (n * g.h + y) * g.w * g.c;
        for (int64_t kx = 0; kx < g.kw; ++kx)
          for (int64_t c = 0; c < g.c; ++c)
            for (int64_t jb = 0; jb < O; jb += B) {
              T sum[B] = {};
              for (int64_t ox = 0; ox < g.ow; ++ox) {
                const int64_t xx = ox * g.sw - g.pl + kx * g.dw;
                if (xx < 0 || xx >= g.w) continue;
                const T v = xrow[xx * g.c + c];
                for (int64_t j = 0; j < B; ++j) sum[j] += v * drow[ox * O + jb + j];
              }
              T* k = acc + ((ky * g.kw + kx) * g.c + c) * O + jb;
              for (int64_t j = 0; j < B; ++j) k[j] += sum[j];
            }
      }
    }
}

template <class T>
inline __attribute__((always_inline)) void direct_filter_body(const Window2D& g, const T* X, const T* DY, T* acc,
                                                              int64_t O, int64_t n0, int64_t n1) {
  if (O % (4 * kBlock) == 0) direct_filter_blocks<4 * kBlock>(g, X, DY, acc, O, n0, n1);
  else if (O % (2 * kBlock) == 0) direct_filter_blocks<2 * kBlock>(g, X, DY, acc, O, n0, n1);
  else direct_filter_blocks<kBlock>(g, X, DY, acc, O, n0, n1);
}

#define TG_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
TG_CLONES void direct_forward_f32(const Window2D& g, const float* X, const float* W, float* Y, int64_t O, int64_t n) {
  direct_forward_body(g, X, W, Y, O, n);
}
TG_CLONES void direct_filter_f32(const Window2D& g, const float* X, const float* DY, float* acc, int64_t O, int64_t n0,
                                 int64_t n1) {
  direct_filter_body(g, X, DY, acc, O, n0, n1);
}
void direct_forward(const Window2D& g, const float* X, const float* W, float* Y, int64_t O, int64_t n) {
  direct_forward_f32(g, X, W, Y, O, n);
}
void direct_forward(const Window2D& g, const double* X, const double* W, double* Y, int64_t O, int64_t n) {
  direct_forward_body(g, X, W, Y, O, n);
}
void direct_filter(const Window2D& g, const float* X, const float* DY, float* acc, int64_t O, int64_t n0, int64_t n1) {
  direct_filter_f32(g, X, DY, acc, O, n0, n1);
}
void direct_filter(const Window2D& g, const double* X, const double* DY, double* acc, int64_t O, int64_t n0,
                   int64_t n1) {
  direct_filter_body(g, X, DY, acc, O, n0, n1);
}

// The filter gradient by direct_filter: the batch split in one part per thread, each with its own
// accumulator, summed at the end.
template <class T> void direct_filter_grad(const Window2D& g, const T* X, const T* DY, T* DW, int64_t O) {
  const int64_t K = g.kh * g.kw * g.c;
  const int64_t parts = std::min<int64_t>(g.n, g.n * g.oh * g.ow * K * O >= kParallelWork ? usable_threads() : 1);
  std::vector<T> acc(parts * K * O, T(0));
  parallel_for(parts, kParallelWork, [&](int64_t i) {
    direct_filter(g, X, DY, acc.data() + i * K * O, O, g.n * i / parts, g.n * (i + 1) / parts);
  });
  std::fill(DW, DW + K * O, T(0));
  for (int64_t i = 0; i < parts; ++i)
    for (int64_t k = 0; k < K * O; ++k) DW[k] += acc[i * K * O + k];
}

// Note [Conv threads]: a convolution's im2col path splits the batch into chunks of images and
// runs each chunk's copies and GEMM together on one OpenMP thread, with OpenBLAS held to one
// thread meanwhile: one parallel region per call. Letting OpenBLAS thread each GEMM instead
// alternates two thread pools many times per call, and every switch waits for the other pool's
// threads (badly so when another process holds a core). Small convolutions run their chunks in
// order on the calling thread, where OpenBLAS keeps its own threads.
constexpr int64_t kParallelMacs = 1 << 22;  // multiply-adds before the chunks use both cores

// The batch in chunks of `images` images (the last may be smaller), on `threads` threads.
struct Chunks {
  int64_t n, images;
  int threads;
  Chunks(const Window2D& g, size_t elem, int64_t macs) : n(g.n) {
    adapt_blas_threads();  // Note [Free CPUs]: one thread here leaves the GEMMs to OpenBLAS's, capped alike
    threads = macs >= kParallelMacs && g.n > 1 ? usable_threads() : 1;
    images = std::max<int64_t>(1, std::min(chunk_images(g, elem), (g.n + threads - 1) / threads));
  }
  // body(first image, images in the chunk, thread index)
  template <class F> void run(F&& body) const {
    const int64_t count = (n + images - 1) / images;
    if (threads == 1) {
      for (int64_t i = 0; i < count; ++i) body(i * images, std::min(images, n - i * images), 0);
      return;
    }
    OneBlasThread one;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (int64_t i = 0; i < count; ++i) body(i * images, std::min(images, n - i * images), omp_get_thread_num());
  }
};

}  // namespace

void conv2d_forward(const Window2D& g, const Tensor& x, const Tensor& w, Tensor& out, const Epilogue& ep) {
  const int64_t O = out->shape[3], K = g.kh * g.kw * g.c, P = g.oh * g.ow;
  if (out->size == 0) return;
  dispatch_float(out->dtype, [&](auto v) {
    using T = decltype(v);
    const T *X = x->data_as<T>(), *W = w->data_as<T>();
    T* Y = out->data_as<T>();
    if (K == 0) {
      std::fill(Y, Y + out->size, T(0));
      apply_epilogue(ep, out);
      return;
    }
    if (is_pointwise(g)) {
      blas_gemm<T>(false, false, g.n * P, O, K, X, K, W, O, T(0), Y, O);
      apply_epilogue(ep, out);
      return;
    }
    if (K <= kDirectMaxK && O % kBlock == 0) {  // Note [Direct small-K convolution]
      parallel_for(g.n, out->size * K, [&](int64_t n) {
        direct_forward(g, X, W, Y, O, n);
        if (ep.active()) apply_epilogue_rows(ep, Y + n * P * O, P, O);
      });
      return;
    }
    Chunks c(g, sizeof(T), g.n * P * K * O);
    Tensor col_buf = empty({c.threads * c.images * P * K}, out->dtype);
    c.run([&](int64_t b0, int64_t m, int tid) {
      T* col = col_buf->data_as<T>() + tid * c.images * P * K;
      for (int64_t i = 0; i < m; ++i) im2col(g, X + (b0 + i) * g.h * g.w * g.c, col + i * P * K);
      blas_gemm<T>(false, false, m * P, O, K, col, K, W, O, T(0), Y + b0 * P * O, O);
      if (ep.active()) apply_epilogue_rows(ep, Y + b0 * P * O, m * P, O);
    });
  });
}

void conv2d_backprop_input(const Window2D& g, const Tensor& w, const Tensor& dy, Tensor& dx) {
  const int64_t O = dy->shape[3], K = g.kh * g.kw * g.c, P = g.oh * g.ow;
  if (dx->size == 0) return;
  dispatch_float(dx->dtype, [&](auto v) {
    using T = decltype(v);
    const T *W = w->data_as<T>(), *DY = dy->data_as<T>();
    T* DX = dx->data_as<T>();
    if (P == 0 || O == 0) {
      std::fill(DX, DX + dx->size, T(0));
      return;
    }
    if (is_pointwise(g)) {
      blas_gemm<T>(false, true, g.n * P, K, O, DY, O, W, O, T(0), DX, K);
      return;
    }
    Chunks c(g, sizeof(T), g.n * P * K * O);
    Tensor col_buf = empty({c.threads * c.images * P * K}, dx->dtype);
    c.run([&](int64_t b0, int64_t m, int tid) {
      T* col = col_buf->data_as<T>() + tid * c.images * P * K;
      blas_gemm<T>(false, true, m * P, K, O, DY + b0 * P * O, O, W, O, T(0), col, K);
      for (int64_t i = 0; i < m; ++i) col2im(g, col + i * P * K, DX + (b0 + i) * g.h * g.w * g.c);
    });
  });
}

void conv2d_backprop_filter(const Window2D& g, const Tensor& x, const Tensor& dy, Tensor& dw) {
  const int64_t O = dy->shape[3], K = g.kh * g.kw * g.c, P = g.oh * g.ow;
  if (dw->size == 0) return;
  dispatch_float(dw->dtype, [&](auto v) {
    using T = decltype(v);
    const T *X = x->data_as<T>(), *DY = dy->data_as<T>();
    T* DW = dw->data_as<T>();
    if (g.n == 0 || P == 0) {
      std::fill(DW, DW + dw->size, T(0));
      return;
    }
    if (is_pointwise(g)) {
      blas_gemm<T>(true, false, K, O, g.n * P, X, K, DY, O, T(0), DW, O);
      return;
    }
    if (K <= kDirectMaxK && O % kBlock == 0) {  // Note [Direct small-K convolution]
      direct_filter_grad(g, X, DY, DW, O);
      return;
    }
    // One partial filter gradient per thread, summed at the end.
    Chunks c(g, sizeof(T), g.n * P * K * O);
    Tensor col_buf = empty({c.threads * c.images * P * K}, dw->dtype);
    Tensor part_buf = zeros({c.threads * K * O}, dw->dtype);
    T* part = part_buf->data_as<T>();
    c.run([&](int64_t b0, int64_t m, int tid) {
      T* col = col_buf->data_as<T>() + tid * c.images * P * K;
      for (int64_t i = 0; i < m; ++i) im2col(g, X + (b0 + i) * g.h * g.w * g.c, col + i * P * K);
      blas_gemm<T>(true, false, K, O, m * P, col, K, DY + b0 * P * O, O, T(1), part + tid * K * O, O);
    });
    std::copy(part, part + K * O, DW);
    for (int t = 1; t < c.threads; ++t)
      for (int64_t k = 0; k < K * O; ++k) DW[k] += part[t * K * O + k];
  });
}

// Depthwise: output channel c * M + j = sum over the window of x[.., c] * w[ky, kx, c, j].
void depthwise_forward(const Window2D& g, const Tensor& x, const Tensor& w, Tensor& out) {
  const int64_t CM = out->shape[3], M = g.c ? CM / g.c : 0, P = g.oh * g.ow;
  if (out->size == 0) return;
  dispatch_float(out->dtype, [&](auto v) {
    using T = decltype(v);
    const T *X = x->data_as<T>(), *W = w->data_as<T>();
    T* Y = out->data_as<T>();
    parallel_for(g.n, out->size * g.kh * g.kw, [&](int64_t n) {
      const T* xi = X + n * g.h * g.w * g.c;
      for (int64_t p = 0; p < P; ++p) {
        T* o = Y + (n * P + p) * CM;
        std::fill(o, o + CM, T(0));
        for_window(g, p / g.ow, p % g.ow, [&](int64_t y, int64_t xx, int64_t ky, int64_t kx) {
          const T* a = xi + (y * g.w + xx) * g.c;
          const T* k = W + (ky * g.kw + kx) * CM;
          if (M == 1) {  // the common multiplier: one loop over channels, vectorized
            for (int64_t c = 0; c < g.c; ++c) o[c] += a[c] * k[c];
            return;
          }
          for (int64_t c = 0; c < g.c; ++c)
            for (int64_t j = 0; j < M; ++j) o[c * M + j] += a[c] * k[c * M + j];
        });
      }
    });
  });
}

void depthwise_backprop_input(const Window2D& g, const Tensor& w, const Tensor& dy, Tensor& dx) {
  const int64_t CM = dy->shape[3], M = g.c ? CM / g.c : 0, P = g.oh * g.ow;
  if (dx->size == 0) return;
  dispatch_float(dx->dtype, [&](auto v) {
    using T = decltype(v);
    const T *W = w->data_as<T>(), *DY = dy->data_as<T>();
    T* DX = dx->data_as<T>();
    std::fill(DX, DX + dx->size, T(0));
    parallel_for(g.n, dy->size * g.kh * g.kw, [&](int64_t n) {
      T* di = DX + n * g.h * g.w * g.c;
      for (int64_t p = 0; p < P; ++p) {
        const T* d = DY + (n * P + p) * CM;
        for_window(g, p / g.ow, p % g.ow, [&](int64_t y, int64_t xx, int64_t ky, int64_t kx) {
          T* a = di + (y * g.w + xx) * g.c;
          const T* k = W + (ky * g.kw + kx) * CM;
          if (M == 1) {
            for (int64_t c = 0; c < g.c; ++c) a[c] += d[c] * k[c];
            return;
          }
          for (int64_t c = 0; c < g.c; ++c) {
            T s = 0;
            for (int64_t j = 0; j < M; ++j) s += d[c * M + j] * k[c * M + j];
            a[c] += s;
          }
        });
      }
    });
  });
}

void depthwise_backprop_filter(const Window2D& g, const Tensor& x, const Tensor& dy, Tensor& dw) {
  const int64_t CM = dy->shape[3], M = g.c ? CM / g.c : 0, P = g.oh * g.ow;
  if (dw->size == 0) return;
  dispatch_float(dw->dtype, [&](auto v) {
    using T = decltype(v);
    const T *X = x->data_as<T>(), *DY = dy->data_as<T>();
    T* DW = dw->data_as<T>();
    std::fill(DW, DW + dw->size, T(0));
    // One filter tap per thread: taps are written by nobody else.
    parallel_for(g.kh * g.kw, dy->size * g.kh * g.kw, [&](int64_t tap) {
      const int64_t ky = tap / g.kw, kx = tap % g.kw;
      T* k = DW + tap * CM;
      for (int64_t n = 0; n < g.n; ++n)
        for (int64_t oy = 0; oy < g.oh; ++oy) {
          const int64_t y = oy * g.sh - g.pt + ky * g.dh;
          if (y < 0 || y >= g.h) continue;
          for (int64_t ox = 0; ox < g.ow; ++ox) {
            const int64_t xx = ox * g.sw - g.pl + kx * g.dw;
            if (xx < 0 || xx >= g.w) continue;
            const T* a = X + ((n * g.h + y) * g.w + xx) * g.c;
            const T* d = DY + ((n * g.oh + oy) * g.ow + ox) * CM;
            if (M == 1) {
              for (int64_t c = 0; c < g.c; ++c) k[c] += a[c] * d[c];
              continue;
            }
            for (int64_t c = 0; c < g.c; ++c)
              for (int64_t j = 0; j < M; ++j) k[c * M + j] += a[c] * d[c * M + j];
          }
        }
    });
  });
}

namespace {

// The maximum of each channel over one window (NaN wins), as max_pool computes it.
template <class T> void window_max(const Window2D& g, const T* xi, int64_t p, T* top) {
  std::fill(top, top + g.c, -std::numeric_limits<T>::infinity());
  for_window(g, p / g.ow, p % g.ow, [&](int64_t y, int64_t xx, int64_t, int64_t) {
    const T* a = xi + (y * g.w + xx) * g.c;
    for (int64_t c = 0; c < g.c; ++c) top[c] = (a[c] > top[c] || a[c] != a[c]) ? a[c] : top[c];
  });
}

// For each output pixel p of image n, the input pixel (y * w + x) holding each channel's first
// maximum (NaN counts as the largest value), or -1 for a window with no valid position; then
// use(n, p, idx). The selects are branch-free, so the channel loop vectorizes.
template <class T, class F> void for_first_max(const Window2D& g, const T* X, F&& use) {
  const int64_t P = g.oh * g.ow, C = g.c;
  parallel_for(g.n, g.n * P * C * g.kh * g.kw, [&](int64_t n) {
    std::vector<T> top_v(C);
    std::vector<int32_t> idx_v(C);
    T* __restrict top = top_v.data();
    int32_t* __restrict idx = idx_v.data();
    const T* xi = X + n * g.h * g.w * C;
    for (int64_t p = 0; p < P; ++p) {
      std::fill(idx, idx + C, -1);
      bool first = true;
      for_window(g, p / g.ow, p % g.ow, [&](int64_t y, int64_t xx, int64_t, int64_t) {
        const int32_t pos = (int32_t)(y * g.w + xx);
        const T* __restrict a = xi + (int64_t)pos * C;
        if (first) {  // the window's first valid position
          for (int64_t c = 0; c < C; ++c) top[c] = a[c], idx[c] = pos;
          first = false;
          return;
        }
        for (int64_t c = 0; c < C; ++c) {
          const T av = a[c], tv = top[c];
          // a new maximum, or the first NaN (bitwise, so that the loop needs no branch)
          const bool better = (av > tv) | ((av != av) & (tv == tv));
          top[c] = better ? av : tv;
          idx[c] = better ? pos : idx[c];
        }
      });
      use(n, p, (const int32_t*)idx);
    }
  });
}

}  // namespace

void max_pool(const Window2D& g, const Tensor& x, Tensor& out) {
  const int64_t P = g.oh * g.ow, C = g.c;
  if (out->size == 0) return;
  dispatch_float(out->dtype, [&](auto v) {
    using T = decltype(v);
    const T* X = x->data_as<T>();
    T* Y = out->data_as<T>();
    parallel_for(g.n, out->size * g.kh * g.kw, [&](int64_t n) {
      for (int64_t p = 0; p < P; ++p) window_max(g, X + n * g.h * g.w * C, p, Y + (n * P + p) * C);
    });
  });
}

void max_pool_scatter(const Window2D& g, const Tensor& x, const Tensor& dy, Tensor& dx) {
  const int64_t P = g.oh * g.ow, C = g.c;
  if (dx->size == 0) return;
  dispatch_float(dx->dtype, [&](auto v) {
    using T = decltype(v);
    const T* DY = dy->data_as<T>();
    T* DX = dx->data_as<T>();
    const int64_t image = g.h * g.w * C;
    if (P == 0) std::fill(DX, DX + dx->size, T(0));
    for_first_max(g, x->data_as<T>(), [&](int64_t n, int64_t p, const int32_t* idx) {
      T* di = DX + n * image;
      if (p == 0) std::fill(di, di + image, T(0));  // by the thread that scatters into it, while it is in cache
      const T* d = DY + (n * P + p) * C;
      for (int64_t c = 0; c < C; ++c)
        if (idx[c] >= 0) di[(int64_t)idx[c] * C + c] += d[c];
    });
  });
}

void max_pool_gather(const Window2D& g, const Tensor& x, const Tensor& t, Tensor& out) {
  const int64_t P = g.oh * g.ow, C = g.c;
  if (out->size == 0) return;
  dispatch_float(out->dtype, [&](auto v) {
    using T = decltype(v);
    const T* TT = t->data_as<T>();
    T* Y = out->data_as<T>();
    for_first_max(g, x->data_as<T>(), [&](int64_t n, int64_t p, const int32_t* idx) {
      const T* ti = TT + n * g.h * g.w * C;
      T* o = Y + (n * P + p) * C;
      for (int64_t c = 0; c < C; ++c) o[c] = idx[c] >= 0 ? ti[(int64_t)idx[c] * C + c] : T(0);
    });
  });
}

void avg_pool(const Window2D& g, const Tensor& x, Tensor& out) {
  const int64_t P = g.oh * g.ow, C = g.c;
  if (out->size == 0) return;
  dispatch_float(out->dtype, [&](auto v) {
    using T = decltype(v);
    const T* X = x->data_as<T>();
    T* Y = out->data_as<T>();
    parallel_for(g.n, out->size * g.kh * g.kw, [&](int64_t n) {
      const T* xi = X + n * g.h * g.w * C;
      for (int64_t p = 0; p < P; ++p) {
        T* o = Y + (n * P + p) * C;
        std::fill(o, o + C, T(0));
        int64_t count = 0;
        for_window(g, p / g.ow, p % g.ow, [&](int64_t y, int64_t xx, int64_t, int64_t) {
          const T* a = xi + (y * g.w + xx) * C;
          for (int64_t c = 0; c < C; ++c) o[c] += a[c];
          ++count;
        });
        const T scale = count ? T(1) / T(count) : T(0);
        for (int64_t c = 0; c < C; ++c) o[c] *= scale;
      }
    });
  });
}

void avg_pool_backprop(const Window2D& g, const Tensor& dy, Tensor& dx) {
  const int64_t P = g.oh * g.ow, C = g.c;
  if (dx->size == 0) return;
  dispatch_float(dx->dtype, [&](auto v) {
    using T = decltype(v);
    const T* DY = dy->data_as<T>();
    T* DX = dx->data_as<T>();
    std::fill(DX, DX + dx->size, T(0));
    parallel_for(g.n, dy->size * g.kh * g.kw, [&](int64_t n) {
      T* di = DX + n * g.h * g.w * C;
      for (int64_t p = 0; p < P; ++p) {
        int64_t count = 0;
        for_window(g, p / g.ow, p % g.ow, [&](int64_t, int64_t, int64_t, int64_t) { ++count; });
        if (!count) continue;
        const T scale = T(1) / T(count);
        const T* d = DY + (n * P + p) * C;
        for_window(g, p / g.ow, p % g.ow, [&](int64_t y, int64_t xx, int64_t, int64_t) {
          T* a = di + (y * g.w + xx) * C;
          for (int64_t c = 0; c < C; ++c) a[c] += d[c] * scale;
        });
      }
    });
  });
}

}  // namespace tg
