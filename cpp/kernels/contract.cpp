// contract.cpp -- two-operand contractions as batched GEMMs on strided views (Note [Strided contractions]).
#include "kernels/contract.h"
#include <algorithm>
#include "kernels/copy.h"
#include "kernels/matmul.h"
#include "kernels/threads.h"

namespace tg {

// Note [Strided contractions]: an einsum term such as 'bqhd,bkhd->bhqk' is one GEMM per batch index
// once each group of labels (rows m, columns n, summed k) folds into one axis of every operand it
// appears in. BLAS takes any row stride and either unit-stride layout (its transpose flag), so the
// heads of attention are read in place from [b, q, h, d]: an operand is copied into [batch, rows,
// cols] order only when a group does not fold or neither of its matrix axes has unit stride, and C
// goes through a contiguous buffer only when its own layout does not fit. Runs of small GEMMs are
// spread over OpenMP threads with BLAS at one thread each; a few large ones use BLAS's threads.

namespace {

enum Which { kA, kB, kC };
int64_t stride_in(const ContractDim& d, Which w) { return w == kA ? d.a : w == kB ? d.b : d.c; }
int64_t& stride_in(ContractDim& d, Which w) { return w == kA ? d.a : w == kB ? d.b : d.c; }

int64_t product(const std::vector<ContractDim>& dims) {
  int64_t p = 1;
  for (const ContractDim& d : dims) p *= d.size;
  return p;
}

// dims sorted outermost first by their stride in `w` (stable: ties keep the label order)
std::vector<ContractDim> ordered(std::vector<ContractDim> dims, Which w) {
  std::stable_sort(dims.begin(), dims.end(),
                   [w](const ContractDim& x, const ContractDim& y) { return stride_in(x, w) > stride_in(y, w); });
  return dims;
}

// The group `dims` (in this order) as one axis of the operands `ws`; false when it does not fold.
// Size-1 labels take any stride and drop out.
bool fold(const std::vector<ContractDim>& dims, std::initializer_list<Which> ws, ContractDim& out) {
  out = ContractDim{1, 0, 0, 0};
  bool first = true;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    if (it->size == 1) continue;
    if (first) {
      out = *it;
      first = false;
      continue;
    }
    for (Which w : ws)
      if (stride_in(*it, w) != stride_in(out, w) * out.size) return false;
    out.size *= it->size;
  }
  return true;
}

// A [rows, cols] view with strides (sr, sc) as a row-major BLAS operand: its transpose flag and
// leading dimension; false when neither axis has unit stride (or a leading dimension would be short).
bool blas_view(int64_t rows, int64_t cols, int64_t sr, int64_t sc, bool& trans, int64_t& ld) {
  if ((sc == 1 || cols == 1) && (rows == 1 || sr >= std::max<int64_t>(cols, 1))) {
    trans = false;
    ld = rows == 1 ? std::max<int64_t>(cols, 1) : sr;
    return true;
  }
  if ((sr == 1 || rows == 1) && (cols == 1 || sc >= std::max<int64_t>(rows, 1))) {
    trans = true;
    ld = cols == 1 ? std::max<int64_t>(rows, 1) : sc;
    return true;
  }
  return false;
}

// Contiguous strides for operand w laid out as the concatenation of `groups`.
void pack_strides(std::vector<std::vector<ContractDim>*> groups, Which w) {
  int64_t s = 1;
  for (auto g = groups.rbegin(); g != groups.rend(); ++g)
    for (auto d = (*g)->rbegin(); d != (*g)->rend(); ++d) {
      stride_in(*d, w) = s;
      s *= d->size;
    }
}

// One GEMM's geometry, found from the folded axes.
struct Gemm {
  int64_t M, N, K, lda, ldb, ldc;
  bool ta, tb, tc;  // tc: C's n axis is the strided one, so C^T = B^T A^T is computed
};

// The folded axes of plan p and the GEMM they give; false when something does not fit.
bool gemm_of(const Contraction& p, Gemm& g) {
  ContractDim m, n, k;
  if (!fold(p.m, {kA, kC}, m) || !fold(p.n, {kB, kC}, n) || !fold(p.k, {kA, kB}, k)) return false;
  g.M = m.size, g.N = n.size, g.K = k.size;
  return blas_view(g.M, g.K, m.a, k.a, g.ta, g.lda) && blas_view(g.K, g.N, k.b, n.b, g.tb, g.ldb) &&
         blas_view(g.M, g.N, m.c, n.c, g.tc, g.ldc);
}

// The layout of an operand w copied out: [batch, outer group, inner group] with each group in the order given.
struct Packed {
  std::vector<int64_t> shape, strides;  // in the packed order, the operand's original strides
};
Packed packed_walk(const std::vector<std::vector<ContractDim>*>& groups, Which w) {
  Packed r;
  for (auto* g : groups)
    for (const ContractDim& d : *g) {
      r.shape.push_back(d.size);
      r.strides.push_back(stride_in(d, w));
    }
  return r;
}

template <class T>
void run(const Contraction& given, const T* A, const T* B, T* C) {
  if (product(given.batch) * product(given.m) * product(given.n) == 0) return;
  // Group orders: m and n by C (so C folds), k by A; batch by C.
  Contraction p{ordered(given.batch, kC), ordered(given.m, kC), ordered(given.n, kC), ordered(given.k, kA)};
  Gemm g{};
  bool pack_a = false, pack_b = false, pack_c = false;
  Contraction q = p;
  auto c_fits = [&](Contraction& t) {
    ContractDim m, n;
    bool tc;
    int64_t ld;
    return fold(t.m, {kC}, m) && fold(t.n, {kC}, n) && blas_view(m.size, n.size, m.c, n.c, tc, ld);
  };
  if (!c_fits(q)) {
    pack_c = true;
    pack_strides({&q.batch, &q.m, &q.n}, kC);
  }
  const Contraction orig = q;  // A's and B's strides as given, C's as it will be written
  Contraction src = orig;       // the group orders the copies walk, with the given strides
  if (!gemm_of(q, g)) {  // copy B, then A, then both, in the order that lets the other stay
    Contraction t = orig;
    pack_strides({&t.batch, &t.k, &t.n}, kB);
    if (gemm_of(t, g)) {
      pack_b = true, q = t;
    } else {
      src.k = ordered(orig.k, kB);
      t = src;
      pack_strides({&t.batch, &t.m, &t.k}, kA);
      if (gemm_of(t, g)) {
        pack_a = true, q = t;
      } else {
        src = orig;
        t = orig;
        pack_strides({&t.batch, &t.m, &t.k}, kA);
        pack_strides({&t.batch, &t.k, &t.n}, kB);
        pack_a = pack_b = true, q = t;
        gemm_of(q, g);
      }
    }
  }
  std::vector<T> abuf, bbuf, cbuf;
  if (pack_a) {
    Contraction w = src;
    Packed pk = packed_walk({&w.batch, &w.m, &w.k}, kA);
    abuf.resize(product(w.batch) * product(w.m) * product(w.k));
    strided_copy(A, abuf.data(), sizeof(T), pk.shape, pk.strides);
    A = abuf.data();
  }
  if (pack_b) {
    Contraction w = src;
    Packed pk = packed_walk({&w.batch, &w.k, &w.n}, kB);
    bbuf.resize(product(w.batch) * product(w.k) * product(w.n));
    strided_copy(B, bbuf.data(), sizeof(T), pk.shape, pk.strides);
    B = bbuf.data();
  }
  T* out = C;
  if (pack_c) {
    cbuf.resize(product(q.batch) * product(q.m) * product(q.n));
    out = cbuf.data();
  }
  // The batch index walked as a multi-index over its labels of size > 1.
  std::vector<ContractDim> bd;
  for (const ContractDim& d : q.batch)
    if (d.size > 1) bd.push_back(d);
  const int64_t nb = product(bd);
  auto one = [&](int64_t bi) {
    int64_t oa = 0, ob = 0, oc = 0;
    for (auto d = bd.rbegin(); d != bd.rend(); ++d) {
      const int64_t i = bi % d->size;
      bi /= d->size;
      oa += i * d->a, ob += i * d->b, oc += i * d->c;
    }
    if (!g.tc)
      blas_gemm<T>(g.ta, g.tb, g.M, g.N, g.K, A + oa, g.lda, B + ob, g.ldb, T(0), out + oc, g.ldc);
    else  // C^T = op(B)^T op(A)^T
      blas_gemm<T>(!g.tb, !g.ta, g.N, g.M, g.K, B + ob, g.ldb, A + oa, g.lda, T(0), out + oc, g.ldc);
  };
  const int threads = usable_threads();
  if (nb > 1 && threads > 1 && g.M * g.N * std::max<int64_t>(g.K, 1) < (int64_t(1) << 18)) {
    OneBlasThread one_thread;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t bi = 0; bi < nb; ++bi) one(bi);
  } else {
    adapt_blas_threads();  // Note [Free CPUs]
    for (int64_t bi = 0; bi < nb; ++bi) one(bi);
  }
  if (pack_c) {
    Packed pk = packed_walk({&p.batch, &p.m, &p.n}, kC);  // C's own strides, in the packed order
    strided_scatter(cbuf.data(), C, sizeof(T), pk.shape, pk.strides);
  }
}

}  // namespace

void contract(const Contraction& p, DType dt, const void* A, const void* B, void* C) {
  if (dt == DType::Float32)
    run<float>(p, static_cast<const float*>(A), static_cast<const float*>(B), static_cast<float*>(C));
  else
    run<double>(p, static_cast<const double*>(A), static_cast<const double*>(B), static_cast<double*>(C));
}

}  // namespace tg
