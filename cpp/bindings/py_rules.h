// py_rules.h -- gradient functions written in Python as engine rules (custom entries, RegisterGradient).
#pragma once
#include <memory>
#include "bindings/convert.h"
#include "engine/tape.h"

namespace tg {

// What a Python gradient function returned (a tensor, None, or a sequence of them): one
// gradient per input, null for None.
inline Tensors grads_from_py(py::handle r) {
  if (r.is_none()) return {nullptr};
  if (is_tensor(r)) return {tensor_of(r)};
  Tensors grads;
  for (auto h : r) grads.push_back(h.is_none() ? nullptr : to_tensor(h));
  return grads;
}

// A Python object whose last reference may be dropped without the GIL (a sweep runs without it).
struct GilObject {
  py::object obj;
  ~GilObject() {
    if (!Py_IsInitialized()) {  // at exit: leak it rather than touch a finalised interpreter
      obj.release();
      return;
    }
    py::gil_scoped_acquire gil;
    obj = py::object();
  }
};

// fn(list of output gradients) -> input gradients, as a custom entry's rule.
inline std::shared_ptr<CustomGradFn> custom_rule(py::function fn) {
  auto holder = std::make_shared<GilObject>();
  holder->obj = std::move(fn);
  return std::make_shared<CustomGradFn>([holder](const Tensors& gs) {
    py::gil_scoped_acquire gil;
    py::list l;
    for (auto& g : gs) l.append(g ? py::cast(g) : py::none());
    return grads_from_py(holder->obj(l));
  });
}

inline Tensors tensor_list(py::handle seq) {
  Tensors r;
  for (auto h : seq) r.push_back(h.cast<Tensor>());
  return r;
}

}  // namespace tg
