// contract.h -- one two-operand tensor contraction (an einsum term) as batched GEMMs on strided views.
#pragma once
#include <cstdint>
#include <vector>
#include "core/dtype.h"

namespace tg {

// One label of a contraction: its size and its element strides in A, B and C (0 where absent).
struct ContractDim {
  int64_t size;
  int64_t a, b, c;
};

// batch: in A, B and C; m: A and C; n: B and C; k: A and B (summed).
struct Contraction {
  std::vector<ContractDim> batch, m, n, k;
};

// C[batch, m, n] = sum_k A[batch, m, k] B[batch, k, n] for float32/float64, C written, not accumulated.
// C's strides must not alias; A's and B's may (broadcast views).
void contract(const Contraction& p, DType dt, const void* A, const void* B, void* C);

}  // namespace tg
