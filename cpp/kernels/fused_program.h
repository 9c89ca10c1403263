// fused_program.h -- the plain-data form of a fused elementwise program and of one call to it.
//
// A fused node (cpp/graph/fusion.cpp) runs its member ops as a small register program over
// blocks of kFusedBlock elements: every instruction is one vectorized loop over a block, so each
// input is read once and each output written once per call. An instruction's operands and
// destination are *refs*: refs [0, nregs) are registers (blocks held in L1), the next nin refs
// the current block of each input, the next nout refs the current block of each output, so
// inputs are read and outputs written by the computing loops themselves (memory traffic
// overlaps arithmetic). Booleans live in registers as 0/1 of the program's float type. Each
// computing instruction calls its op row's block kernel, so the op table is the only place an
// op's expression is written. This header holds data only: the interpreter is compiled once per
// ISA level (fused_kernels.cpp, Note [ISA dispatch] in cpu_dispatch.cpp).
#pragma once
#include <cstdint>

namespace tg {

constexpr int kFusedBlock = 512;  // elements per register

// A row's block kernel (OpKernels::block in kernel_table.h, set by the kernel passes of op_macros.h): out[i] = the
// row's expression of a[i] (b[i], c[i]) for i < n, in the program's float type, booleans as 0/1;
// alpha is the op's "alpha" attribute. Operands are full blocks; out is never an operand except
// at the same positions.
using FusedBlockFn = void (*)(const void* a, const void* b, const void* c, void* out, int64_t n, double alpha);

enum FusedCode : int32_t {
  // data movement (raw: an input, output or accumulator index): LoadBool dst <- bool input raw;
  // Splat/SplatBool dst <- input raw's single element (prologue only); StoreBool bool output
  // raw <- a; Sum accumulator raw += the sum of a over the block; Copy dst <- a
  kFLoadBool, kFSplat, kFSplatBool, kFStoreBool, kFSum, kFCopy,
  // dst = op(a, b, c): the op row's block kernel fn[isa][dtype]
  kFCompute,
};

struct FusedInstr {
  int32_t code;
  int32_t dst, a, b, c;             // refs
  int32_t raw;                      // an input, output or accumulator index (see FusedCode)
  double alpha;                     // the op's "alpha" attribute (LeakyRelu's slope)
  const FusedBlockFn (*fn)[2];      // Compute: the op's block kernels (OpKernels::block)
};

struct FusedCall {
  const FusedInstr* prologue;  // run once per thread (splats of scalar inputs)
  int nprologue;
  const FusedInstr* body;      // run once per block
  int nbody;
  int nregs, nin, nout;
  int dtype;                   // 0 float32, 1 float64
  int64_t n;                   // elements per full-shape value
  const void* const* in;       // per input: data
  void* const* out;            // per full-size output: data
  double* sums;                // per accumulator: the total (written by the kernel)
  int nsums;
};

}  // namespace tg
