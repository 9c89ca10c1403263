// lapack.cpp -- thin typed wrappers over the LAPACKE routines of the OpenBLAS tapegrad links.
#include "kernels/lapack.h"
#include <cblas.h>
#include <lapacke.h>

namespace tg {

namespace {
constexpr int kRowMajor = LAPACK_ROW_MAJOR;
}

template <> int lu_factor<float>(float* a, int n, int32_t* p) { return scipy_LAPACKE_sgetrf(kRowMajor, n, n, a, n, p); }
template <> int lu_factor<double>(double* a, int n, int32_t* p) { return scipy_LAPACKE_dgetrf(kRowMajor, n, n, a, n, p); }

template <> int lu_inverse<float>(float* a, int n, const int32_t* p) { return scipy_LAPACKE_sgetri(kRowMajor, n, a, n, p); }
template <> int lu_inverse<double>(double* a, int n, const int32_t* p) { return scipy_LAPACKE_dgetri(kRowMajor, n, a, n, p); }

template <> int lu_solve<float>(const float* a, int n, const int32_t* p, float* b, int k, bool t) {
  return scipy_LAPACKE_sgetrs(kRowMajor, t ? 'T' : 'N', n, k, a, n, p, b, k);
}
template <> int lu_solve<double>(const double* a, int n, const int32_t* p, double* b, int k, bool t) {
  return scipy_LAPACKE_dgetrs(kRowMajor, t ? 'T' : 'N', n, k, a, n, p, b, k);
}

template <> int symmetric_eigen<float>(float* a, int n, float* w) { return scipy_LAPACKE_ssyevd(kRowMajor, 'V', 'L', n, a, n, w); }
template <> int symmetric_eigen<double>(double* a, int n, double* w) { return scipy_LAPACKE_dsyevd(kRowMajor, 'V', 'L', n, a, n, w); }

template <> int singular_values<float>(float* a, int m, int n, float* s, float* u, float* vt) {
  const int k = m < n ? m : n;
  return scipy_LAPACKE_sgesdd(kRowMajor, 'S', m, n, a, n, s, u, k, vt, n);
}
template <> int singular_values<double>(double* a, int m, int n, double* s, double* u, double* vt) {
  const int k = m < n ? m : n;
  return scipy_LAPACKE_dgesdd(kRowMajor, 'S', m, n, a, n, s, u, k, vt, n);
}

template <class T>
static void zero_upper(T* a, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) a[(int64_t)i * n + j] = 0;
}
template <> int cholesky_factor<float>(float* a, int n) {
  const int info = scipy_LAPACKE_spotrf(kRowMajor, 'L', n, a, n);
  zero_upper(a, n);
  return info;
}
template <> int cholesky_factor<double>(double* a, int n) {
  const int info = scipy_LAPACKE_dpotrf(kRowMajor, 'L', n, a, n);
  zero_upper(a, n);
  return info;
}

// BLAS's trsm, not LAPACK's trtrs: a zero on the diagonal gives inf and NaN, as TF's kernel does,
// instead of an error.
template <> int triangular_solve<float>(const float* a, int n, float* b, int k, bool lower, bool t) {
  if (n > 0 && k > 0)
    scipy_cblas_strsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, t ? CblasTrans : CblasNoTrans,
                      CblasNonUnit, n, k, 1.0f, a, n, b, k);
  return 0;
}
template <> int triangular_solve<double>(const double* a, int n, double* b, int k, bool lower, bool t) {
  if (n > 0 && k > 0)
    scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, t ? CblasTrans : CblasNoTrans,
                      CblasNonUnit, n, k, 1.0, a, n, b, k);
  return 0;
}

}  // namespace tg
