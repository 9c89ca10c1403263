// recurrent.cpp -- fused LSTM, GRU and SimpleRNN time loops: one GEMM for the input projection of all steps, one per
// step for the recurrence, and the gate arithmetic in plain loops between them.
#include "kernels/recurrent.h"
#include <algorithm>
#include <optional>
#include "core/allocator.h"
#include "kernels/matmul.h"
#include "kernels/threads.h"
#include "kernels/vmath.h"

namespace tg {

namespace {

// Gate activations of one row [i f c o] (each `u` wide) in place: sigmoid, sigmoid, tanh, sigmoid.
// Three plain loops so that each vectorizes (vmath: branch-free polynomials).
template <class T>
void activate_gates(T* z, int64_t u) {
  for (int64_t j = 0; j < 2 * u; ++j) z[j] = vmath::sigmoid(z[j]);
  for (int64_t j = 2 * u; j < 3 * u; ++j) z[j] = vmath::tanh(z[j]);
  for (int64_t j = 3 * u; j < 4 * u; ++j) z[j] = vmath::sigmoid(z[j]);
}

// A scratch buffer from the tensor block cache (a std::vector of this size would fault its
// pages in again at every call).
template <class T>
struct Scratch {
  T* p;
  int size_class;
  explicit Scratch(int64_t n) : p(static_cast<T*>(allocate_block(size_t(n > 0 ? n : 1) * sizeof(T), size_class))) {}
  ~Scratch() { release_block(p, size_class); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* data() const { return p; }
  T& operator[](int64_t i) const { return p[i]; }
};

// Columns per unit of an LSTMSequence output row: h, c and the four activated gates.
constexpr int64_t kLstmWidth = 6;

struct Dims {
  int64_t B, T, F, U;
};

Dims dims_of(const Tensor& x, const Tensor& R) { return {x->shape[0], x->shape[1], x->shape[2], R->shape[0]}; }

// Note [Recurrent row blocks]: the batch rows of a recurrence never meet, so the time loop runs as
// independent loops over blocks of rows, one per OpenMP thread, each with its own small GEMMs at one
// OpenBLAS thread (waking BLAS's threads for every step's small product costs more than it saves).
// run(first row, rows) is called once per block; a batch too small to split runs as one block.
constexpr int64_t kMinBlockRows = 8;
constexpr int64_t kMinBlockWork = 1 << 18;  // step-GEMM multiply-adds per step and block worth a thread

template <class F> void row_blocks(const Dims& d, int64_t gates, F&& run) {
  const int64_t by_rows = d.B / kMinBlockRows, by_work = d.B * gates * d.U * d.U / kMinBlockWork;
  const int threads = (int)std::max<int64_t>(1, std::min<int64_t>({(int64_t)usable_threads(), by_rows, by_work}));
  OneBlasThread one_thread;
  if (threads == 1) {
    run(int64_t(0), d.B);
    return;
  }
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int i = 0; i < threads; ++i) {
    const int64_t r0 = d.B * i / threads, r1 = d.B * (i + 1) / threads;
    run(r0, r1 - r0);
  }
}

// hprev [B*T, U] (row b*T + t) gets h_{t-1} (h0 at t = 0), read from an output whose rows are
// out_width wide with h first.
template <class T>
void previous_states(const Dims& d, const T* h0, const T* out, int64_t out_width, T* hprev) {
  const int64_t B = d.B, S = d.T, U = d.U;
  for (int64_t r = 0; r < B; ++r)
    for (int64_t t = 0; t < S; ++t) {
      const T* src = t == 0 ? h0 + r * U : out + (r * S + t - 1) * out_width;
      std::copy(src, src + U, hprev + (r * S + t) * U);
    }
}

// c = f c_prev + i c~ and h = o tanh(c) for one row of activated gates z = [i f c~ o]; the output
// row o gets [h, c, i, f, c~, o].
template <class T>
void lstm_cell_update(const T* __restrict z, const T* __restrict cp, T* __restrict o, int64_t U) {
  for (int64_t j = 0; j < U; ++j) {
    const T c = z[U + j] * cp[j] + z[j] * z[2 * U + j];
    o[U + j] = c;
    o[j] = z[3 * U + j] * vmath::tanh(c);
  }
  for (int64_t j = 0; j < 4 * U; ++j) o[2 * U + j] = z[j];
}

// One row of the backward step: gate gradients dz (pre-activation) from the output row o =
// [h, c, i, f, c~, o], its upstream gradient gr (same layout), the carried dh and dc (dc is
// replaced by the carry to step t-1).
template <class T>
void lstm_cell_backward(const T* __restrict o, const T* __restrict gr, const T* __restrict cp,
                        const T* __restrict dh, T* __restrict dc, T* __restrict z, int64_t U) {
  const T* __restrict a = o + 2 * U;
  const T* __restrict ga = gr + 2 * U;
  for (int64_t j = 0; j < U; ++j) {
    const T ig = a[j], fg = a[U + j], cg = a[2 * U + j], og = a[3 * U + j];
    const T tc = vmath::tanh(o[U + j]);
    const T h_bar = gr[j] + dh[j];
    const T c_bar = gr[U + j] + dc[j] + h_bar * og * (T(1) - tc * tc);
    z[j] = (c_bar * cg + ga[j]) * ig * (T(1) - ig);
    z[U + j] = (c_bar * cp[j] + ga[U + j]) * fg * (T(1) - fg);
    z[2 * U + j] = (c_bar * ig + ga[2 * U + j]) * (T(1) - cg * cg);
    z[3 * U + j] = (h_bar * tc + ga[3 * U + j]) * og * (T(1) - og);
    dc[j] = c_bar * fg;
  }
}

template <class T>
void forward(const Dims& d, const T* x, const T* h0, const T* c0, const T* W, const T* R, const T* b, T* out) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 4 * U, O = kLstmWidth * U;
  Scratch<T> xp(B * S * G), z(B * G);
  blas_gemm<T>(false, false, B * S, G, F, x, F, W, G, T(0), xp.data(), G);  // input projection of every step
  row_blocks(d, 4, [&](int64_t r0, int64_t rows) {
    for (int64_t t = 0; t < S; ++t) {
      const T* hp = t == 0 ? h0 + r0 * U : out + (r0 * S + t - 1) * O;
      const int64_t ldh = t == 0 ? U : S * O;
      T* zb = z.data() + r0 * G;
      blas_gemm<T>(false, false, rows, G, U, hp, ldh, R, G, T(0), zb, G);
      for (int64_t r = r0; r < r0 + rows; ++r) {
        const T* p = xp.data() + (r * S + t) * G;
        T* zr = z.data() + r * G;
        const T* cp = t == 0 ? c0 + r * U : out + (r * S + t - 1) * O + U;
        for (int64_t j = 0; j < G; ++j) zr[j] += p[j] + b[j];
        activate_gates(zr, U);
        lstm_cell_update(zr, cp, out + (r * S + t) * O, U);
      }
    }
  });
}

template <class T>
void backward(const Dims& d, const T* x, const T* h0, const T* c0, const T* W, const T* R, const T* out, const T* g,
              T* packed) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 4 * U, O = kLstmWidth * U;
  Scratch<T> hprev(B * S * U), dz(B * S * G), dh(B * U), dc(B * U);
  previous_states<T>(d, h0, out, O, hprev.data());
  std::fill_n(dh.data(), B * U, T(0));
  std::fill_n(dc.data(), B * U, T(0));
  T* dx = packed;
  T* dh0 = dx + B * S * F;
  T* dc0 = dh0 + B * U;
  T* dW = dc0 + B * U;
  T* dR = dW + F * G;
  T* db = dR + U * G;
  row_blocks(d, 4, [&](int64_t r0, int64_t rows) {
    for (int64_t t = S - 1; t >= 0; --t) {
      for (int64_t r = r0; r < r0 + rows; ++r) {
        const int64_t row = r * S + t;
        const T* cp = t == 0 ? c0 + r * U : out + (row - 1) * O + U;
        lstm_cell_backward(out + row * O, g + row * O, cp, dh.data() + r * U, dc.data() + r * U, dz.data() + row * G, U);
      }
      // dh_{t-1} = dz_t R^T over the block's rows of step t (stride S*G).
      blas_gemm<T>(false, true, rows, U, G, dz.data() + r0 * S * G + t * G, S * G, R, G, T(0), dh.data() + r0 * U, U);
    }
  });
  std::copy_n(dh.data(), B * U, dh0);
  std::copy_n(dc.data(), B * U, dc0);
  blas_gemm<T>(false, true, B * S, F, G, dz.data(), G, W, G, T(0), dx, F);
  blas_gemm<T>(true, false, F, G, B * S, x, F, dz.data(), G, T(0), dW, G);
  blas_gemm<T>(true, false, U, G, B * S, hprev.data(), U, dz.data(), G, T(0), dR, G);
  for (int64_t j = 0; j < G; ++j) db[j] = T(0);
  for (int64_t row = 0; row < B * S; ++row) {
    const T* __restrict zr = dz.data() + row * G;
    for (int64_t j = 0; j < G; ++j) db[j] += zr[j];
  }
}

template <class T>
void jvp(const Dims& d, const T* x, const T* h0, const T* c0, const T* W, const T* R, const T* out, const T* tx,
         const T* th0, const T* tc0, const T* tW, const T* tR, const T* tb, T* tout) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 4 * U, O = kLstmWidth * U;
  Scratch<T> hprev(B * S * U), tp(B * S * G);
  previous_states<T>(d, h0, out, O, hprev.data());
  // Tangent of the pre-activations, except the th_{t-1} R term added per step.
  blas_gemm<T>(false, false, B * S, G, F, tx, F, W, G, T(0), tp.data(), G);
  blas_gemm<T>(false, false, B * S, G, F, x, F, tW, G, T(1), tp.data(), G);
  blas_gemm<T>(false, false, B * S, G, U, hprev.data(), U, tR, G, T(1), tp.data(), G);
  for (int64_t row = 0; row < B * S; ++row)
    for (int64_t j = 0; j < G; ++j) tp[row * G + j] += tb[j];
  for (int64_t t = 0; t < S; ++t) {
    const T* thp = t == 0 ? th0 : tout + (t - 1) * O;
    const int64_t ldh = t == 0 ? U : S * O;
    blas_gemm<T>(false, false, B, G, U, thp, ldh, R, G, T(1), tp.data() + t * G, S * G);
    for (int64_t r = 0; r < B; ++r) {
      const int64_t row = r * S + t;
      const T* __restrict a = out + row * O + 2 * U;
      const T* __restrict p = tp.data() + row * G;
      const T* __restrict c = out + row * O + U;
      const T* __restrict cp = t == 0 ? c0 + r * U : out + (row - 1) * O + U;
      const T* __restrict tcp = t == 0 ? tc0 + r * U : tout + (row - 1) * O + U;
      T* __restrict o = tout + row * O;
      for (int64_t j = 0; j < U; ++j) {
        const T ig = a[j], fg = a[U + j], cg = a[2 * U + j], og = a[3 * U + j];
        const T ti = ig * (T(1) - ig) * p[j], tf = fg * (T(1) - fg) * p[U + j];
        const T tg = (T(1) - cg * cg) * p[2 * U + j], to = og * (T(1) - og) * p[3 * U + j];
        const T tc = vmath::tanh(c[j]);
        const T dc = tf * cp[j] + fg * tcp[j] + ti * cg + ig * tg;
        o[U + j] = dc;
        o[j] = to * tc + og * (T(1) - tc * tc) * dc;
        o[2 * U + j] = ti;
        o[3 * U + j] = tf;
        o[4 * U + j] = tg;
        o[5 * U + j] = to;
      }
    }
  }
}

template <class T> const T* p(const Tensor& t) { return t->data_as<T>(); }

// The time loop's GEMMs are small ([batch, units] x [units, 4 units]) and come 50 or more in a
// row: waking OpenBLAS's second thread for each costs more than it saves, and against spinning
// OpenMP threads it made a training step 50x slower here. While any time loop runs, OpenBLAS
// uses one thread (OneBlasThread, kernels/threads.h).

// ---- GRU (reset_after) ----

// Recomputes, for every step (row b*T + t): xp = x W + b_in [.., 3U], rc = h_{t-1} R + b_rec
// [.., 3U], and a = [z, r, h~] [.., 3U]; hprev [.., U] gets h_{t-1}.
template <class T>
void gru_recompute(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* b, const T* out,
                   T* xp, T* rc, T* a, T* hprev) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 3 * U;
  for (int64_t r = 0; r < B; ++r)
    for (int64_t t = 0; t < S; ++t) {
      const T* src = t == 0 ? h0 + r * U : out + (r * S + t - 1) * U;
      std::copy(src, src + U, hprev + (r * S + t) * U);
    }
  blas_gemm<T>(false, false, B * S, G, F, x, F, W, G, T(0), xp, G);
  blas_gemm<T>(false, false, B * S, G, U, hprev, U, R, G, T(0), rc, G);
  for (int64_t row = 0; row < B * S; ++row) {
    T* __restrict xr = xp + row * G;
    T* __restrict cr = rc + row * G;
    T* __restrict ar = a + row * G;
    for (int64_t j = 0; j < G; ++j) {
      xr[j] += b[j];
      cr[j] += b[G + j];
    }
    for (int64_t j = 0; j < 2 * U; ++j) ar[j] = vmath::sigmoid(xr[j] + cr[j]);
    for (int64_t j = 0; j < U; ++j) ar[2 * U + j] = vmath::tanh(xr[2 * U + j] + ar[U + j] * cr[2 * U + j]);
  }
}

// h = z hp + (1 - z) tanh(xh + r rh) for one row, from xp (bias added) and rc (bias added).
template <class T>
void gru_cell(const T* __restrict xp, const T* __restrict rc, const T* __restrict hp, T* __restrict h, int64_t U) {
  for (int64_t j = 0; j < U; ++j) {
    const T z = vmath::sigmoid(xp[j] + rc[j]);
    const T r = vmath::sigmoid(xp[U + j] + rc[U + j]);
    const T hh = vmath::tanh(xp[2 * U + j] + r * rc[2 * U + j]);
    h[j] = z * hp[j] + (T(1) - z) * hh;
  }
}

template <class T>
void gru_forward(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* b, T* out) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 3 * U;
  Scratch<T> xp(B * S * G), rc(B * G);
  blas_gemm<T>(false, false, B * S, G, F, x, F, W, G, T(0), xp.data(), G);
  for (int64_t row = 0; row < B * S; ++row)
    for (int64_t j = 0; j < G; ++j) xp[row * G + j] += b[j];
  row_blocks(d, 3, [&](int64_t r0, int64_t rows) {
    for (int64_t t = 0; t < S; ++t) {
      const T* hp = t == 0 ? h0 + r0 * U : out + (r0 * S + t - 1) * U;
      const int64_t ldh = t == 0 ? U : S * U;
      blas_gemm<T>(false, false, rows, G, U, hp, ldh, R, G, T(0), rc.data() + r0 * G, G);
      for (int64_t r = r0; r < r0 + rows; ++r) {
        T* c = rc.data() + r * G;
        for (int64_t j = 0; j < G; ++j) c[j] += b[G + j];
        gru_cell(xp.data() + (r * S + t) * G, c, hp + (r - r0) * ldh, out + (r * S + t) * U, U);
      }
    }
  });
}

// One row of the backward step: from the gates a = [z, r, h~], rh = h_{t-1} R_h + b'_h, h_{t-1},
// the upstream g and the carried dh (replaced by dh * z, the direct path to h_{t-1}): the
// gradients of the input pre-activations dxp and of the recurrent ones drc.
template <class T>
void gru_cell_backward(const T* __restrict a, const T* __restrict rc, const T* __restrict hp,
                       const T* __restrict g, T* __restrict dh, T* __restrict dxp, T* __restrict drc, int64_t U) {
  for (int64_t j = 0; j < U; ++j) {
    const T z = a[j], r = a[U + j], hh = a[2 * U + j];
    const T dht = g[j] + dh[j];
    const T dz = dht * (hp[j] - hh) * z * (T(1) - z);
    const T dah = dht * (T(1) - z) * (T(1) - hh * hh);
    const T dr = dah * rc[2 * U + j] * r * (T(1) - r);
    dxp[j] = dz;
    dxp[U + j] = dr;
    dxp[2 * U + j] = dah;
    drc[j] = dz;
    drc[U + j] = dr;
    drc[2 * U + j] = dah * r;
    dh[j] = dht * z;
  }
}

template <class T>
void column_sums(const T* m, int64_t rows, int64_t cols, T* out) {
  for (int64_t j = 0; j < cols; ++j) out[j] = T(0);
  for (int64_t row = 0; row < rows; ++row) {
    const T* __restrict mr = m + row * cols;
    for (int64_t j = 0; j < cols; ++j) out[j] += mr[j];
  }
}

template <class T>
void gru_backward(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* b, const T* out,
                  const T* g, T* packed) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 3 * U;
  Scratch<T> xp(B * S * G), rc(B * S * G), a(B * S * G), hprev(B * S * U), dxp(B * S * G), drc(B * S * G),
      dh(B * U);
  gru_recompute<T>(d, x, h0, W, R, b, out, xp.data(), rc.data(), a.data(), hprev.data());
  std::fill_n(dh.data(), B * U, T(0));
  T* dx = packed;
  T* dh0 = dx + B * S * F;
  T* dW = dh0 + B * U;
  T* dR = dW + F * G;
  T* db = dR + U * G;
  row_blocks(d, 3, [&](int64_t r0, int64_t rows) {
    for (int64_t t = S - 1; t >= 0; --t) {
      for (int64_t r = r0; r < r0 + rows; ++r) {
        const int64_t row = r * S + t;
        gru_cell_backward(a.data() + row * G, rc.data() + row * G, hprev.data() + row * U, g + row * U,
                          dh.data() + r * U, dxp.data() + row * G, drc.data() + row * G, U);
      }
      // dh_{t-1} = dh z + drc_t R^T over the block's rows of step t (stride S*G).
      blas_gemm<T>(false, true, rows, U, G, drc.data() + r0 * S * G + t * G, S * G, R, G, T(1), dh.data() + r0 * U, U);
    }
  });
  std::copy_n(dh.data(), B * U, dh0);
  blas_gemm<T>(false, true, B * S, F, G, dxp.data(), G, W, G, T(0), dx, F);
  blas_gemm<T>(true, false, F, G, B * S, x, F, dxp.data(), G, T(0), dW, G);
  blas_gemm<T>(true, false, U, G, B * S, hprev.data(), U, drc.data(), G, T(0), dR, G);
  column_sums(dxp.data(), B * S, G, db);
  column_sums(drc.data(), B * S, G, db + G);
}

template <class T>
void gru_jvp(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* b, const T* out, const T* tx,
             const T* th0, const T* tW, const T* tR, const T* tb, T* tout) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U, G = 3 * U;
  Scratch<T> xp(B * S * G), rc(B * S * G), a(B * S * G), hprev(B * S * U), txp(B * S * G), trc(B * S * G);
  gru_recompute<T>(d, x, h0, W, R, b, out, xp.data(), rc.data(), a.data(), hprev.data());
  blas_gemm<T>(false, false, B * S, G, F, tx, F, W, G, T(0), txp.data(), G);
  blas_gemm<T>(false, false, B * S, G, F, x, F, tW, G, T(1), txp.data(), G);
  blas_gemm<T>(false, false, B * S, G, U, hprev.data(), U, tR, G, T(0), trc.data(), G);
  for (int64_t row = 0; row < B * S; ++row)
    for (int64_t j = 0; j < G; ++j) {
      txp[row * G + j] += tb[j];
      trc[row * G + j] += tb[G + j];
    }
  for (int64_t t = 0; t < S; ++t) {
    const T* thp = t == 0 ? th0 : tout + (t - 1) * U;
    const int64_t ldh = t == 0 ? U : S * U;
    blas_gemm<T>(false, false, B, G, U, thp, ldh, R, G, T(1), trc.data() + t * G, S * G);
    for (int64_t r = 0; r < B; ++r) {
      const int64_t row = r * S + t;
      const T* __restrict ar = a.data() + row * G;
      const T* __restrict cr = rc.data() + row * G;
      const T* __restrict px = txp.data() + row * G;
      const T* __restrict pc = trc.data() + row * G;
      const T* __restrict hp = hprev.data() + row * U;
      const T* __restrict tp = thp + r * ldh;
      T* __restrict o = tout + row * U;
      for (int64_t j = 0; j < U; ++j) {
        const T z = ar[j], rr = ar[U + j], hh = ar[2 * U + j];
        const T tz = z * (T(1) - z) * (px[j] + pc[j]);
        const T tr = rr * (T(1) - rr) * (px[U + j] + pc[U + j]);
        const T thh = (T(1) - hh * hh) * (px[2 * U + j] + tr * cr[2 * U + j] + rr * pc[2 * U + j]);
        o[j] = tz * (hp[j] - hh) + z * tp[j] + (T(1) - z) * thh;
      }
    }
  }
}

// ---- SimpleRNN (tanh) ----

template <class T>
void rnn_forward(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* b, T* out) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U;
  blas_gemm<T>(false, false, B * S, U, F, x, F, W, U, T(0), out, U);  // input projections, in place
  row_blocks(d, 1, [&](int64_t r0, int64_t rows) {
    for (int64_t t = 0; t < S; ++t) {
      const T* hp = t == 0 ? h0 + r0 * U : out + (r0 * S + t - 1) * U;
      const int64_t ldh = t == 0 ? U : S * U;
      blas_gemm<T>(false, false, rows, U, U, hp, ldh, R, U, T(1), out + (r0 * S + t) * U, S * U);
      for (int64_t r = r0; r < r0 + rows; ++r) {
        T* __restrict o = out + (r * S + t) * U;
        for (int64_t j = 0; j < U; ++j) o[j] = vmath::tanh(o[j] + b[j]);
      }
    }
  });
}

template <class T>
void rnn_backward(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* out, const T* g,
                  T* packed) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U;
  Scratch<T> hprev(B * S * U), da(B * S * U), dh(B * U);
  previous_states<T>(d, h0, out, U, hprev.data());
  std::fill_n(dh.data(), B * U, T(0));
  T* dx = packed;
  T* dh0 = dx + B * S * F;
  T* dW = dh0 + B * U;
  T* dR = dW + F * U;
  T* db = dR + U * U;
  row_blocks(d, 1, [&](int64_t r0, int64_t rows) {
    for (int64_t t = S - 1; t >= 0; --t) {
      for (int64_t r = r0; r < r0 + rows; ++r) {
        const int64_t row = r * S + t;
        const T* __restrict h = out + row * U;
        const T* __restrict gr = g + row * U;
        const T* __restrict dhr = dh.data() + r * U;
        T* __restrict a = da.data() + row * U;
        for (int64_t j = 0; j < U; ++j) a[j] = (gr[j] + dhr[j]) * (T(1) - h[j] * h[j]);
      }
      blas_gemm<T>(false, true, rows, U, U, da.data() + (r0 * S + t) * U, S * U, R, U, T(0), dh.data() + r0 * U, U);
    }
  });
  std::copy_n(dh.data(), B * U, dh0);
  blas_gemm<T>(false, true, B * S, F, U, da.data(), U, W, U, T(0), dx, F);
  blas_gemm<T>(true, false, F, U, B * S, x, F, da.data(), U, T(0), dW, U);
  blas_gemm<T>(true, false, U, U, B * S, hprev.data(), U, da.data(), U, T(0), dR, U);
  column_sums(da.data(), B * S, U, db);
}

template <class T>
void rnn_jvp(const Dims& d, const T* x, const T* h0, const T* W, const T* R, const T* out, const T* tx,
             const T* th0, const T* tW, const T* tR, const T* tb, T* tout) {
  const int64_t B = d.B, S = d.T, F = d.F, U = d.U;
  Scratch<T> hprev(B * S * U);
  previous_states<T>(d, h0, out, U, hprev.data());
  blas_gemm<T>(false, false, B * S, U, F, tx, F, W, U, T(0), tout, U);
  blas_gemm<T>(false, false, B * S, U, F, x, F, tW, U, T(1), tout, U);
  blas_gemm<T>(false, false, B * S, U, U, hprev.data(), U, tR, U, T(1), tout, U);
  for (int64_t t = 0; t < S; ++t) {
    const T* thp = t == 0 ? th0 : tout + (t - 1) * U;
    const int64_t ldh = t == 0 ? U : S * U;
    blas_gemm<T>(false, false, B, U, U, thp, ldh, R, U, T(1), tout + t * U, S * U);
    for (int64_t r = 0; r < B; ++r) {
      const T* __restrict h = out + (r * S + t) * U;
      T* __restrict o = tout + (r * S + t) * U;
      for (int64_t j = 0; j < U; ++j) o[j] = (T(1) - h[j] * h[j]) * (o[j] + tb[j]);
    }
  }
}

// The plumbing of every time loop: the sizes, and run(d, T{}) with T the element type (float32 or
// float64). Forward and backward loops split their steps into row blocks (Note [Recurrent row
// blocks]) and give their whole-sequence GEMMs every BLAS thread (whole_blas); the JVP loops run at
// one OpenBLAS thread throughout.
template <class F> void time_loop(const Tensor& x, const Tensor& R, F&& run, bool whole_blas = false) {
  const Dims d = dims_of(x, R);
  std::optional<OneBlasThread> one_thread;
  if (!whole_blas) one_thread.emplace();
  if (x->dtype == DType::Float32)
    run(d, float{});
  else
    run(d, double{});
}

// A backward time loop; with no step, h0 and c0 pass nothing on and every gradient is zero.
template <class F> void backward_loop(const Tensor& x, const Tensor& R, Tensor& packed, F&& run, bool whole_blas = false) {
  if (x->shape[1] == 0) {
    std::fill_n(static_cast<char*>(packed->data()), packed->nbytes(), 0);
    return;
  }
  time_loop(x, R, run, whole_blas);
}

}  // namespace

void lstm_sequence_forward(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& W, const Tensor& R,
                           const Tensor& b, Tensor& out) {
  if (out->size == 0) return;
  time_loop(x, R, [&](const Dims& d, auto v) {
    using T = decltype(v);
    forward<T>(d, p<T>(x), p<T>(h0), p<T>(c0), p<T>(W), p<T>(R), p<T>(b), out->data_as<T>());
  }, true);
}

void lstm_sequence_backward(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& W, const Tensor& R,
                            const Tensor& b, const Tensor& out, const Tensor& g, Tensor& packed) {
  backward_loop(x, R, packed, [&](const Dims& d, auto v) {
    using T = decltype(v);
    backward<T>(d, p<T>(x), p<T>(h0), p<T>(c0), p<T>(W), p<T>(R), p<T>(out), p<T>(g), packed->data_as<T>());
  }, true);
}

void lstm_sequence_jvp(const Tensor& x, const Tensor& h0, const Tensor& c0, const Tensor& W, const Tensor& R,
                       const Tensor& b, const Tensor& out, const Tensor& tx, const Tensor& th0, const Tensor& tc0,
                       const Tensor& tW, const Tensor& tR, const Tensor& tb, Tensor& tout) {
  if (tout->size == 0) return;
  time_loop(x, R, [&](const Dims& d, auto v) {
    using T = decltype(v);
    jvp<T>(d, p<T>(x), p<T>(h0), p<T>(c0), p<T>(W), p<T>(R), p<T>(out), p<T>(tx), p<T>(th0), p<T>(tc0), p<T>(tW),
           p<T>(tR), p<T>(tb), tout->data_as<T>());
  });
}

void gru_sequence_forward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                          Tensor& out) {
  if (out->size == 0) return;
  time_loop(x, R, [&](const Dims& d, auto v) {
    using T = decltype(v);
    gru_forward<T>(d, p<T>(x), p<T>(h0), p<T>(W), p<T>(R), p<T>(b), out->data_as<T>());
  }, true);
}

void gru_sequence_backward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                           const Tensor& out, const Tensor& g, Tensor& packed) {
  backward_loop(x, R, packed, [&](const Dims& d, auto v) {
    using T = decltype(v);
    gru_backward<T>(d, p<T>(x), p<T>(h0), p<T>(W), p<T>(R), p<T>(b), p<T>(out), p<T>(g), packed->data_as<T>());
  }, true);
}

void gru_sequence_jvp(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                      const Tensor& out, const Tensor& tx, const Tensor& th0, const Tensor& tW, const Tensor& tR,
                      const Tensor& tb, Tensor& tout) {
  if (tout->size == 0) return;
  time_loop(x, R, [&](const Dims& d, auto v) {
    using T = decltype(v);
    gru_jvp<T>(d, p<T>(x), p<T>(h0), p<T>(W), p<T>(R), p<T>(b), p<T>(out), p<T>(tx), p<T>(th0), p<T>(tW), p<T>(tR),
               p<T>(tb), tout->data_as<T>());
  });
}

void rnn_sequence_forward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor& b,
                          Tensor& out) {
  if (out->size == 0) return;
  time_loop(x, R, [&](const Dims& d, auto v) {
    using T = decltype(v);
    rnn_forward<T>(d, p<T>(x), p<T>(h0), p<T>(W), p<T>(R), p<T>(b), out->data_as<T>());
  }, true);
}

void rnn_sequence_backward(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor&,
                           const Tensor& out, const Tensor& g, Tensor& packed) {
  backward_loop(x, R, packed, [&](const Dims& d, auto v) {
    using T = decltype(v);
    rnn_backward<T>(d, p<T>(x), p<T>(h0), p<T>(W), p<T>(R), p<T>(out), p<T>(g), packed->data_as<T>());
  }, true);
}

void rnn_sequence_jvp(const Tensor& x, const Tensor& h0, const Tensor& W, const Tensor& R, const Tensor&,
                      const Tensor& out, const Tensor& tx, const Tensor& th0, const Tensor& tW, const Tensor& tR,
                      const Tensor& tb, Tensor& tout) {
  if (tout->size == 0) return;
  time_loop(x, R, [&](const Dims& d, auto v) {
    using T = decltype(v);
    rnn_jvp<T>(d, p<T>(x), p<T>(h0), p<T>(W), p<T>(R), p<T>(out), p<T>(tx), p<T>(th0), p<T>(tW), p<T>(tR), p<T>(tb),
               tout->data_as<T>());
  });
}

}  // namespace tg
