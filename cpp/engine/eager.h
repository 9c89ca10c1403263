// eager.h -- running one op: validate, run the kernel, tell the observers (tapes, accumulators, tracers).
#pragma once
#include "engine/registry.h"

namespace tg {

Tensor apply(const OpDef& op, const Tensors& x, const Attrs& attrs = {});
Tensor apply(const char* op, const Tensors& x, const Attrs& attrs = {});
// apply() on two inputs, listed in this thread's spare input list (Note [Spare input list]).
Tensor apply2(const OpDef& op, Tensor x, Tensor y);

// debugging.enable_check_numerics(): raise on the first non-finite forward value or gradient.
extern bool g_check_numerics;
// Where the running op was called from ("file.py:12"), supplied by the bindings; only asked
// for while check_numerics is on.
extern std::string (*g_call_site)();
void check_finite(const Tensor& t, const std::string& what);
// Set by the sweep while a gradient rule runs, so check_finite can say whose gradient it was.
extern thread_local const std::string* g_backward_context;

}  // namespace tg
