// elementwise_rules.cpp -- validation of elementwise inputs with errors naming op, shapes and dtypes.
#include "ops/elementwise_rules.h"
#include <algorithm>
#include "core/error.h"

namespace tg {

static std::string describe(const Tensors& x) {
  std::string s;
  for (size_t i = 0; i < x.size(); ++i) s += (i ? " and " : "") + meta_str(x[i]);
  return s;
}

static Shape broadcast_all(const Tensors& x, const char* op) {
  bool same = true;  // the common case: no broadcasting, and no temporary shapes
  for (size_t i = 1; i < x.size() && same; ++i) same = x[i]->shape == x[0]->shape;
  if (same) return x[0]->shape;
  Shape out = x[0]->shape;
  for (size_t i = 1; i < x.size(); ++i) {
    Shape next;
    if (!broadcast_shapes(out, x[i]->shape, next))
      throw InvalidArgument(cat(op, ": incompatible shapes for broadcasting: ", describe(x)));
    out = next;
  }
  return out;
}

static void require_same_dtype(const Tensors& x, size_t from, const char* op) {
  for (size_t i = from + 1; i < x.size(); ++i)
    if (x[i]->dtype != x[from]->dtype)
      throw InvalidArgument(cat(op, ": inputs must have the same dtype, got ", describe(x)));
}

OutMeta infer_unary_float(const OpDef& d, const Tensors& x, const Attrs&) {
  if (!any_floating(x[0]->dtype))
    throw InvalidArgument(cat(d.name.c_str(), ": expected a float32 or float64 tensor, got ", describe(x)));
  return {x[0]->shape, x[0]->dtype};
}

OutMeta infer_unary_numeric(const OpDef& d, const Tensors& x, const Attrs&) {
  if (x[0]->dtype == DType::Bool)
    throw InvalidArgument(cat(d.name.c_str(), ": expected a numeric tensor, got ", describe(x)));
  return {x[0]->shape, x[0]->dtype};
}

OutMeta infer_binary_numeric(const OpDef& d, const Tensors& x, const Attrs&) {
  const char* op = d.name.c_str();
  require_same_dtype(x, 0, op);
  if (x[0]->dtype == DType::Bool) throw InvalidArgument(cat(op, ": expected numeric tensors, got ", describe(x)));
  return {broadcast_all(x, op), x[0]->dtype};
}

OutMeta infer_binary_float(const OpDef& d, const Tensors& x, const Attrs&) {
  const char* op = d.name.c_str();
  require_same_dtype(x, 0, op);
  if (!any_floating(x[0]->dtype))
    throw InvalidArgument(cat(op, ": expected float32 or float64 tensors, got ", describe(x)));
  return {broadcast_all(x, op), x[0]->dtype};
}

// Value checks live in forwards, not shape rules: a graph runs its shape rules once, at the trace.
Tensor run_pow(const OpDef& d, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (is_integer(x[1]->dtype) && num_elements(m.shape) > 0)  // an empty result has nothing to refuse (TF)
    for (int64_t i = 0; i < x[1]->size; ++i)
      if (scalar_value(x[1], i) < 0)
        throw InvalidArgument(cat(d.name, ": integers to negative integer powers are not allowed, got ", describe(x)));
  return run_elementwise(d, x, a, m);
}

template <class T> static bool holds_zero(const Tensor& t) {
  const T* p = t->data_as<T>();
  return std::find(p, p + t->size, T(0)) != p + t->size;
}

// (an empty result divides nothing: TF raises no error then)
static bool zero_int_divisor(const Tensor& y, const OutMeta& m) {
  if (num_elements(m.shape) == 0) return false;
  if (!any_integer(y->dtype)) return false;
  return dispatch_real(y->dtype, [&](auto v) { return holds_zero<decltype(v)>(y); });
}

Tensor run_int_div(const OpDef& d, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (zero_int_divisor(x[1], m)) throw InvalidArgument(cat(d.name, ": Integer division by zero, got ", describe(x)));
  return run_elementwise(d, x, a, m);
}

Tensor run_truncate_div(const OpDef& d, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (zero_int_divisor(x[1], m)) throw Internal(cat(d.name, ": Integer division by zero, got ", describe(x)));
  return run_elementwise(d, x, a, m);
}

OutMeta infer_compare(const OpDef& d, const Tensors& x, const Attrs&) {
  const char* op = d.name.c_str();
  require_same_dtype(x, 0, op);
  return {broadcast_all(x, op), DType::Bool};
}

OutMeta infer_logical(const OpDef& d, const Tensors& x, const Attrs&) {
  const char* op = d.name.c_str();
  for (auto& t : x)
    if (t->dtype != DType::Bool) throw InvalidArgument(cat(op, ": expected bool tensors, got ", describe(x)));
  return {broadcast_all(x, op), DType::Bool};
}

OutMeta infer_select(const OpDef& d, const Tensors& x, const Attrs&) {
  const char* op = d.name.c_str();
  if (x[0]->dtype != DType::Bool)
    throw InvalidArgument(cat(op, ": the condition must be a bool tensor, got ", describe(x)));
  require_same_dtype(x, 1, op);
  return {broadcast_all(x, op), x[1]->dtype};
}

}  // namespace tg
