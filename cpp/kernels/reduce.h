// reduce.h -- reductions over a set of axes (sum, product, max, min, any, all), arg-reductions,
// cumulative sums and the product-of-the-others helper of Prod's gradient.
#pragma once
#include <vector>
#include "core/tensor.h"

namespace tg {

enum class ReduceKind { Sum, Prod, Max, Min };

// Reduces x over the axes flagged in `mask` (one flag per dimension); the result keeps
// reduced dimensions with size 1. Bool tensors reduce with Max (any) and Min (all).
Tensor reduce(const Tensor& x, const std::vector<bool>& mask, ReduceKind kind);
// Index of the max (or min) along one axis, as int64 with that axis removed.
Tensor arg_reduce(const Tensor& x, int axis, bool is_max, DType out_dtype);
// Running sum along `axis`; `exclusive` leaves out the current entry, `reverse` runs from the end.
Tensor cumsum(const Tensor& x, int axis, bool exclusive, bool reverse);
Tensor cumprod(const Tensor& x, int axis, bool exclusive, bool reverse);
// out[..., i] = prod_{j != i} x[..., j] along the last axis, by prefix and suffix products
// (no division, so zeros are exact).
Tensor prod_others(const Tensor& x);

}  // namespace tg
