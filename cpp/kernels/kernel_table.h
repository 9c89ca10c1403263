// kernel_table.h -- each op's elementwise and fused-block kernels per ISA level and dtype, owned by the kernels.
//
// The kernel passes of the elementwise families hand their loops over by op name at
// registration (set_ew_kernel, set_block_kernel; Note [ISA dispatch] in cpu_dispatch.cpp); the
// table is indexed by OpDef::id, so the op definition carries no kernel pointers.
#pragma once
#include <vector>
#include "engine/registry.h"
#include "kernels/fused_program.h"

namespace tg {

constexpr int kIsaLevels = 3;  // baseline, x86-64-v3 (AVX2), x86-64-v4 (AVX-512)

struct EwArgs;
using EwKernel = void (*)(const EwArgs&);

struct OpKernels {
  EwKernel ew[kIsaLevels][kNumDTypes] = {};  // per ISA level and input DType
  // Block kernels of fused programs per ISA level, float32/float64 (fused_program.h); set for
  // exactly the elementwise rows, which makes them fusable (Note [Fused nodes]).
  FusedBlockFn block[kIsaLevels][2] = {};
};

// Filled while register_all_ops() runs, read-only afterwards.
extern std::vector<OpKernels> g_op_kernels;

inline const OpKernels& op_kernels(const OpDef& op) {
  static const OpKernels none;
  return (size_t)op.id < g_op_kernels.size() ? g_op_kernels[(size_t)op.id] : none;
}

// The op's elementwise kernel for input dtype dt at ISA level `isa` or the best lower one (null: none).
inline EwKernel ew_kernel(const OpDef& op, DType dt, int isa) {
  const OpKernels& k = op_kernels(op);
  for (int level = isa; level >= 0; --level)
    if (EwKernel f = k.ew[level][(int)dt]) return f;
  return nullptr;
}

void set_ew_kernel(const char* op, int isa, int dtype_index, EwKernel k);
void set_block_kernel(const char* op, int isa, int dtype_index, FusedBlockFn k);

}  // namespace tg
