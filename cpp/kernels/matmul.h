// matmul.h -- batched matrix multiply on contiguous row-major tensors (BLAS for floats).
#pragma once
#include "core/tensor.h"

namespace tg {

// out[b] = op(a[b]) @ op(b[b]) where op transposes the last two axes when asked.
// Batch dimensions broadcast; out must already have the broadcast shape.
void matmul_into(const Tensor& a, const Tensor& b, bool ta, bool tb, Tensor& out);

// C[m, n] = op(A) op(B) + beta * C for T = float or double, row-major with explicit leading
// dimensions (for kernels that multiply sub-blocks); an empty product only scales C by beta.
template <class T>
void blas_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T beta, T* c, int64_t ldc);

}  // namespace tg
