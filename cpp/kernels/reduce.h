// reduce.h -- reductions over a set of axes (sum, product, max, min) with blockwise summation.
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tg {

enum class ReduceKind { Sum, Prod, Max, Min };

// Reduces x over the axes flagged in `mask` (one flag per dimension); the result keeps
// reduced dimensions with size 1.
Tensor reduce(const Tensor& x, const std::vector<bool>& mask, ReduceKind kind);
// Index of the max (or min) along one axis, as int64 with that axis removed.
Tensor arg_reduce(const Tensor& x, int axis, bool is_max, DType out_dtype);

}  // namespace tg
