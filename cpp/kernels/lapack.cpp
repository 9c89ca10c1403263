// lapack.cpp -- thin typed wrappers over the LAPACKE routines of the OpenBLAS tapegrad links.
#include "kernels/lapack.h"
#include <cblas.h>
#include <lapacke.h>
#include "core/error.h"

namespace tg {

namespace {
constexpr int kRowMajor = LAPACK_ROW_MAJOR;

// LAPACKE checks every input for NaN and, finding one, returns a negative info without computing:
// the result would be the input left as it was. Off, NaN flows through the factorizations, as in TF.
const bool g_no_nan_check = (scipy_LAPACKE_set_nancheck(0), true);

// A negative info is an argument LAPACK refused: a bug here, never a property of the user's matrix.
int checked(int info, const char* routine) {
  if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
    throw OpFailure(ErrorCode::ResourceExhausted, cat(routine, ": out of memory for LAPACK's workspace"));
  if (info < 0) throw OpFailure(ErrorCode::Internal, cat(routine, " refused its argument ", -info));
  return info;
}
}

template <> int lu_factor<float>(float* a, int n, int32_t* p) { return checked(scipy_LAPACKE_sgetrf(kRowMajor, n, n, a, n, p), "sgetrf"); }
template <> int lu_factor<double>(double* a, int n, int32_t* p) { return checked(scipy_LAPACKE_dgetrf(kRowMajor, n, n, a, n, p), "dgetrf"); }

template <> int lu_inverse<float>(float* a, int n, const int32_t* p) { return checked(scipy_LAPACKE_sgetri(kRowMajor, n, a, n, p), "sgetri"); }
template <> int lu_inverse<double>(double* a, int n, const int32_t* p) { return checked(scipy_LAPACKE_dgetri(kRowMajor, n, a, n, p), "dgetri"); }

template <> int lu_solve<float>(const float* a, int n, const int32_t* p, float* b, int k, bool t) {
  return checked(scipy_LAPACKE_sgetrs(kRowMajor, t ? 'T' : 'N', n, k, a, n, p, b, k), "sgetrs");
}
template <> int lu_solve<double>(const double* a, int n, const int32_t* p, double* b, int k, bool t) {
  return checked(scipy_LAPACKE_dgetrs(kRowMajor, t ? 'T' : 'N', n, k, a, n, p, b, k), "dgetrs");
}

template <> int symmetric_eigen<float>(float* a, int n, float* w) { return checked(scipy_LAPACKE_ssyevd(kRowMajor, 'V', 'L', n, a, n, w), "ssyevd"); }
template <> int symmetric_eigen<double>(double* a, int n, double* w) { return checked(scipy_LAPACKE_dsyevd(kRowMajor, 'V', 'L', n, a, n, w), "dsyevd"); }

template <> int singular_values<float>(float* a, int m, int n, float* s, float* u, float* vt) {
  const int k = m < n ? m : n;
  return checked(scipy_LAPACKE_sgesdd(kRowMajor, 'S', m, n, a, n, s, u, k, vt, n), "sgesdd");
}
template <> int singular_values<double>(double* a, int m, int n, double* s, double* u, double* vt) {
  const int k = m < n ? m : n;
  return checked(scipy_LAPACKE_dgesdd(kRowMajor, 'S', m, n, a, n, s, u, k, vt, n), "dgesdd");
}

template <class T>
static void zero_upper(T* a, int n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) a[i * n + j] = 0;
}
template <> int cholesky_factor<float>(float* a, int n) {
  const int info = checked(scipy_LAPACKE_spotrf(kRowMajor, 'L', n, a, n), "spotrf");
  zero_upper(a, n);
  return info;
}
template <> int cholesky_factor<double>(double* a, int n) {
  const int info = checked(scipy_LAPACKE_dpotrf(kRowMajor, 'L', n, a, n), "dpotrf");
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
