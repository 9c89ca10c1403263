// matmul.h -- batched matrix multiply on contiguous row-major tensors (BLAS for floats).
#pragma once
#include "core/tensor.h"

namespace tg {

// out[b] = op(a[b]) @ op(b[b]) where op transposes the last two axes when asked.
// Batch dimensions broadcast; out must already have the broadcast shape.
void matmul_into(const Tensor& a, const Tensor& b, bool ta, bool tb, Tensor& out);

}  // namespace tg
