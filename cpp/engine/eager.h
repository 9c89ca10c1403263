// eager.h -- running one op: validate, run the kernel, record on the active tapes.
#pragma once
#include "engine/registry.h"

namespace tg {

Tensor apply(const OpDef& op, const Tensors& x, const Attrs& attrs = {});
Tensor apply(const char* op, const Tensors& x, const Attrs& attrs = {});

// debugging.enable_check_numerics(): raise on the first non-finite forward value or gradient.
extern bool g_check_numerics;
void check_finite(const Tensor& t, const std::string& what);

}  // namespace tg
