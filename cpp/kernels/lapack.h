// lapack.h -- the LAPACK factorizations the matrix ops use, on one row-major n x n matrix (in place),
// for float and double. Each returns LAPACK's info (0: done; > 0: singular / not positive definite;
// < 0: an argument LAPACK refused, which the callers treat as an internal error).
#pragma once
#include <cstdint>

namespace tg {

template <class T> int lu_factor(T* a, int n, int32_t* pivots);                 // getrf: P A = L U
template <class T> int lu_inverse(T* lu, int n, const int32_t* pivots);         // getri, after lu_factor
template <class T> int lu_solve(const T* lu, int n, const int32_t* pivots, T* b, int nrhs, bool transpose);  // getrs
template <class T> int symmetric_eigen(T* a, int n, T* w);  // syevd, lower: a becomes the eigenvectors (columns), w ascending
template <class T> int cholesky_factor(T* a, int n);
// gesdd, reduced: a (m x n, destroyed), s (min(m, n)), u (m x k), vt (k x n), all row-major
template <class T> int singular_values(T* a, int m, int n, T* s, T* u, T* vt);                           // potrf, lower; zeroes the upper part
template <class T> int triangular_solve(const T* a, int n, T* b, int nrhs, bool lower, bool transpose);  // trsm (no singularity check)

}  // namespace tg
