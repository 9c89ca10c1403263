// variable.h -- Variables: tensors whose value is assigned in place, and TF's true division.
#pragma once
#include "core/tensor.h"

namespace tg {

// A variable: a tensor whose value can be assigned in place (a distinct type, so Python sees a Variable).
struct VariableImpl : TensorImpl {};

// A new Variable holding a copy of value.
std::shared_ptr<VariableImpl> make_variable(const Tensor& value, bool trainable);

enum class AssignMode { kSet, kAdd, kSub };
// var = value (or var + value, var - value); value must have var's dtype and shape. Tapes and NumPy
// views may hold the old storage: it is written in place only when nobody else holds it.
void assign(const Tensor& var, const Tensor& value, AssignMode mode);

// x / y as Python's / on tensors: integer operands are divided as float32 (8 and 16 bits) or float64, as in TF.
Tensor true_divide(Tensor x, Tensor y);

}  // namespace tg
