// copy.h -- moving elements between a strided (possibly broadcast or reversed) view and contiguous memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tg {

// dst[i...] = src[sum_d i_d * stride_d] for i over `shape` (row-major); strides in elements.
void strided_copy(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& strides);
// The inverse walk: dst[sum_d i_d * stride_d] = src[i...] (src contiguous). Strides must not alias.
void strided_scatter(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& strides);
// Row-major element strides of a contiguous tensor of `shape`.
std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape);

}  // namespace tg
