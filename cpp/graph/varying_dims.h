// varying_dims.h -- masks of the dimensions of a traced value that may change from call to call
// (Note [Varying dimensions] in varying_dims.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace tg::graph {

constexpr uint64_t kAllDims = ~uint64_t{0};
inline uint64_t dim_bit(size_t d) { return d < 64 ? uint64_t{1} << d : 0; }  // (dimensions from 64 on: always set)
inline bool dim_in(uint64_t mask, size_t d) { return d >= 64 || ((mask >> d) & 1); }

}  // namespace tg::graph
