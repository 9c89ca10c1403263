// elementwise_rules.h -- dtype and broadcast-shape rules shared by the elementwise families.
#pragma once
#include "engine/registry.h"
#include "kernels/elementwise.h"

namespace tg {

OutMeta infer_unary_float(const OpDef& op, const Tensors& x, const Attrs&);    // float -> same
OutMeta infer_unary_numeric(const OpDef& op, const Tensors& x, const Attrs&);  // non-bool -> same
OutMeta infer_binary_numeric(const OpDef& op, const Tensors& x, const Attrs&); // equal non-bool dtypes, broadcast
OutMeta infer_binary_float(const OpDef& op, const Tensors& x, const Attrs&);   // equal float dtypes, broadcast
OutMeta infer_compare(const OpDef& op, const Tensors& x, const Attrs&);        // equal dtypes, broadcast -> bool
OutMeta infer_logical(const OpDef& op, const Tensors& x, const Attrs&);        // bool, broadcast -> bool
OutMeta infer_select(const OpDef& op, const Tensors& x, const Attrs&);         // (bool, T, T) broadcast -> T

// Forward of integer division and modulo: an integer divisor holding a zero raises
// InvalidArgumentError "Integer division by zero" (as TF), then run_elementwise.
Tensor run_int_div(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m);
// The same for TruncateDiv and TruncateMod, raising InternalError: TF's kernels of these two do.
Tensor run_truncate_div(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m);
// Pow's forward: integers to negative integer powers raise (checked at every run, graphs included).
Tensor run_pow(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m);

}  // namespace tg
