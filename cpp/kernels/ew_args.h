// ew_args.h -- the plain-data description of one elementwise kernel call.
// Kernel passes (compiled once per ISA level) see only this header, vmath.h and ew_loops.h:
// no inline functions with external linkage may be shared between ISA levels.
#pragma once
#include <cstdint>

namespace tg {

constexpr int kMaxDims = 8;

struct EwArgs {
  const void* in[3];
  void* out;
  int64_t n;                       // output elements
  int ndim;                        // dimensions after collapsing (>= 1)
  int64_t shape[kMaxDims];         // output shape after collapsing
  int64_t stride[3][kMaxDims];     // element strides per input; 0 where broadcast
  double alpha, beta;              // scalar attributes (e.g. LeakyRelu's alpha)
};

}  // namespace tg
