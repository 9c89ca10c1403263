// variable.cpp -- Variables: creation and in-place assignment; TF's true division.
#include "engine/variable.h"
#include <cstring>
#include "core/error.h"
#include "engine/math.h"

namespace tg {

std::shared_ptr<VariableImpl> make_variable(const Tensor& value, bool trainable) {
  auto var = std::make_shared<VariableImpl>();
  var->shape = value->shape;
  var->size = value->size;
  var->dtype = value->dtype;
  var->storage = std::make_shared<Storage>(value->nbytes());
  std::memcpy(var->data(), value->data(), value->nbytes());
  var->is_variable = true;
  var->trainable = trainable;
  return var;
}

void assign(const Tensor& var, const Tensor& value, AssignMode mode) {
  if (value->dtype != var->dtype)
    throw InvalidArgument(cat("assign: value of ", meta_str(value), " does not match variable of ", meta_str(var)));
  if (value->shape != var->shape)
    throw InvalidArgument(cat("assign: value of shape ", shape_str(value->shape), " does not match variable of shape ",
                              shape_str(var->shape)));
  Tensor v = value;
  if (mode == AssignMode::kAdd) v = call("Add", {view(var, var->shape), value});
  if (mode == AssignMode::kSub) v = call("Sub", {view(var, var->shape), value});
  if (var->storage.use_count() != 1) {
    var->storage = std::make_shared<Storage>(var->nbytes());
    var->offset = 0;
  }
  std::memcpy(var->data(), v->data(), var->nbytes());
}

// Python's / of integers, as TF's truediv: 8- and 16-bit integers divide as float32, wider ones as float64.
Tensor true_divide(Tensor x, Tensor y) {
  if (any_integer(x->dtype) && x->dtype == y->dtype) {
    const DType f = dtype_size(x->dtype) <= 2 ? DType::Float32 : DType::Float64;
    x = cast(x, f);
    y = cast(y, f);
  }
  return call("RealDiv", {x, y});
}

}  // namespace tg
