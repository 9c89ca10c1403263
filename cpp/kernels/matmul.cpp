// matmul.cpp -- GEMM through scipy-openblas32 for float32/float64, a plain loop for integers.
#include "kernels/matmul.h"
#include <cblas.h>
#include <vector>
#include "kernels/threads.h"

namespace tg {

namespace {

template <class T>
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  if constexpr (std::is_same_v<T, float>) {
    scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n,
                      (int)k, 1.0f, a, (int)lda, b, (int)ldb, 0.0f, c, (int)n);
  } else if constexpr (std::is_same_v<T, double>) {
    scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n,
                      (int)k, 1.0, a, (int)lda, b, (int)ldb, 0.0, c, (int)n);
  } else {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t p = 0; p < k; ++p) s += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
        c[i * n + j] = s;
      }
  }
}

}  // namespace

void matmul_into(const Tensor& a, const Tensor& b, bool ta, bool tb, Tensor& out) {
  adapt_blas_threads();  // Note [Free CPUs]
  const int ra = a->ndim(), rb = b->ndim(), ro = out->ndim();
  const int64_t m = ta ? a->shape[ra - 1] : a->shape[ra - 2];
  const int64_t k = ta ? a->shape[ra - 2] : a->shape[ra - 1];
  const int64_t n = tb ? b->shape[rb - 2] : b->shape[rb - 1];
  int64_t batch = 1;
  for (int d = 0; d < ro - 2; ++d) batch *= out->shape[d];
  if (out->size == 0) return;
  const int64_t sa = m * k, sb = k * n;
  // Batch offsets of a and b for each output batch index (broadcast dims step 0).
  auto offset = [&](const Tensor& t, int64_t bi, int64_t mat) {
    int64_t off = 0, stride = 1, rem = bi;
    const int rt = t->ndim();
    std::vector<int64_t> idx(ro - 2);
    for (int d = ro - 3; d >= 0; --d) { idx[d] = rem % out->shape[d]; rem /= out->shape[d]; }
    for (int d = rt - 3, od = ro - 3; d >= 0; --d, --od) {
      if (t->shape[d] != 1) off += idx[od] * stride;
      stride *= t->shape[d];
    }
    return off * mat;
  };
  // A batch against one matrix is one GEMM, not `batch` small ones (jacobians and dense layers
  // hit these): [b, m, k] @ [k, n] is [b*m, k] @ [k, n]; and for n == 1, [m, k] @ [b, k, 1]
  // is [b, k] @ [m, k]^T laid out as [b, m].
  const bool b_single = rb == 2, a_single = ra == 2;
  const bool fold_left = batch > 1 && b_single && !ta && a->size == batch * m * k;
  const bool fold_right = batch > 1 && a_single && n == 1 && b->size == batch * k && k > 0;
  dispatch_dtype(out->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      if (fold_left && k > 0) {
        gemm<T>(false, tb, batch * m, n, k, a->data_as<T>(), b->data_as<T>(), out->data_as<T>());
        return 0;
      }
      if (fold_right) {
        gemm<T>(false, !ta, batch, m, k, b->data_as<T>(), a->data_as<T>(), out->data_as<T>());
        return 0;
      }
      for (int64_t bi = 0; bi < batch; ++bi) {
        if (k == 0) {
          for (int64_t i = 0; i < m * n; ++i) out->data_as<T>()[bi * m * n + i] = 0;
          continue;
        }
        gemm<T>(ta, tb, m, n, k, a->data_as<T>() + offset(a, bi, sa), b->data_as<T>() + offset(b, bi, sb),
                out->data_as<T>() + bi * m * n);
      }
    }
    return 0;
  });
}

template <class T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T beta, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
    return;
  }
  auto A = ta ? CblasTrans : CblasNoTrans, B = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    scipy_cblas_sgemm(CblasRowMajor, A, B, (int)m, (int)n, (int)k, 1.0f, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
  else
    scipy_cblas_dgemm(CblasRowMajor, A, B, (int)m, (int)n, (int)k, 1.0, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
}
template void blas_gemm<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                               float, float*, int64_t);
template void blas_gemm<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                                double, double*, int64_t);

}  // namespace tg
