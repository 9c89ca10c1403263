// elementwise.h -- running a registered elementwise kernel on tensors (broadcasting, ISA choice).
#pragma once
#include "engine/registry.h"

namespace tg {

// KernelFn shared by every elementwise row: allocates the output, broadcasts, dispatches.
Tensor run_elementwise(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m);
// The same without attributes or broadcasting, into out's buffer (which may be an input's): x[0..n)
// and out all have one shape and dtype. False when the op has no kernel for the dtype.
bool run_elementwise_into(const OpDef& op, const TensorImpl* const* x, int n, const TensorImpl& out);

// The ISA level kernels run at: 0 baseline, 1 AVX2 (x86-64-v3), 2 AVX-512 (x86-64-v4).
int active_isa();
int best_supported_isa();
void set_active_isa(int level);   // clamps to what the CPU supports
const char* isa_name(int level);

}  // namespace tg
