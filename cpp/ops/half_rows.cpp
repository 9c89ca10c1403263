// half_rows.cpp -- the half types through float32 rows (Note [Half types through float32] in half_rows.h).
#include "ops/half_rows.h"

namespace tg {

DType half_input_type(const OpDef& op, const Tensors& x) {
  DType h = DType::Float32;
  for (const Tensor& t : x)
    if (t && is_half(t->dtype)) { h = t->dtype; break; }
  if (h == DType::Float32) return h;
  for (size_t i = 0; i < x.size(); ++i)
    if (x[i] && any_floating(x[i]->dtype) && x[i]->dtype != h)
      throw InvalidArgument(cat(op.name, ": input ", i, " was expected to be a ", dtype_name(h), " tensor but is ",
                                meta_str(x[i])));
  return h;
}

Tensors float32_stand_ins(const Tensors& x) {
  Tensors s(x);
  for (Tensor& t : s)
    if (t && is_half(t->dtype)) {
      t = view(t, t->shape);  // the same shape, read as float32 by the shape rule only (it reads no values)
      t->dtype = DType::Float32;
    }
  return s;
}

Tensors widened_inputs(const Tensors& x) {
  Tensors w(x);
  for (Tensor& t : w)
    if (t) t = widened_if_half(t);
  return w;
}

// Rows whose family macros list the half types although TF 2.21's CPU kernels refuse them there
// (tests/oracle/test_tf_oracle_half_types.py compares every row's types with TF's kernel registry);
// TF's ops take them (XLA has kernels), so the refusal is TF's NotFoundError.
void drop_refused_half_types() {
  static const struct { const char* op; DTypeMask refused; } rows[] = {
      {"Lgamma", dtype_bit(DType::BFloat16)}, {"Digamma", dtype_bit(DType::BFloat16)}, {"Erfinv", kHalfTypes},
      {"NextAfter", kHalfTypes},              {"Polygamma", kHalfTypes},               {"TruncateMod", kHalfTypes},
  };
  for (const auto& r : rows) {
    OpDef& op = mutable_op(r.op);
    op.dtypes &= ~r.refused;
    op.no_cpu_kernel |= r.refused;
  }
}

}  // namespace tg
