// convert.h -- Python <-> engine conversions shared by the binding files.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include "engine/eager.h"
#include "engine/registry.h"
#include "engine/variable.h"

namespace tg {

namespace py = pybind11;

// The Python type of Tensor (set once the class is bound); subclasses pass the check too.
extern PyTypeObject* g_tensor_type;
inline bool is_tensor(py::handle h) { return PyObject_TypeCheck(h.ptr(), g_tensor_type); }
// The Tensor held by a Python Tensor/Variable object, without pybind11's type lookups, borrowed
// (valid while the object lives: no reference-count traffic, a visible part of a scalar op's cost).
// Valid only when is_tensor(h). (VariableImpl derives from TensorImpl at offset 0.)
// The holder is read where pybind11's value_and_holder finds it (that lookup is out of line and
// called several times per op): after the value pointer, inline or in the first nonsimple slot.
inline const Tensor& tensor_ref(py::handle h) {
  auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
  void** vh = inst->simple_layout ? inst->simple_value_holder : inst->nonsimple.values_and_holders;
  return reinterpret_cast<const Tensor&>(vh[1]);
}
// The same, as a new reference.
inline Tensor tensor_of(py::handle h) { return tensor_ref(h); }

// Note [Wrapping results]: py::cast(Tensor) finds the pybind11 type of the object by its dynamic
// C++ type (hash lookups keyed by type names, twice) and copies the Tensor into the new
// object, about a tenth of a scalar op. Op results are plain TensorImpl objects: wrap_tensor
// looks their type record up once and moves the Tensor into the holder, doing what pybind11's
// cast does otherwise (an object that already has a Python wrapper gets that wrapper back; a
// new one is registered, so later casts find it). Anything else (a VariableImpl) goes through
// py::cast. A null Tensor becomes None.
py::object wrap_tensor(Tensor t);

// Converts a Tensor, Python number/bool, nested list or NumPy array to a Tensor.
// `hint` (or -1) is the dtype a non-tensor value takes, as TF's convert_to_tensor(dtype_hint=).
Tensor to_tensor(py::handle obj, int hint = -1);
// Converts with an exact dtype (-1: infer); a Tensor of another dtype raises.
Tensor to_tensor_dtype(py::handle obj, int dtype);
Tensor from_array(py::handle arr, int dtype);  // copies
py::array to_numpy(const Tensor& t, bool writable_copy);
Attrs to_attrs(py::handle kwargs);
int default_dtype_of(py::handle obj);
// Large kernels run without the GIL (releasing it costs ~0.04 us, so not for small ones).
constexpr int64_t kReleaseGilMin = 1 << 15;
namespace graph { extern bool g_leaks_alive; }  // graph/trace.h, Note [Leaked tensors]
// Raises TypeError when an input is a tensor a trace computed and Python kept (bindings/graph.cpp).
void check_not_leaked(const Tensors& x);

// f() on the inputs x, without the GIL from kReleaseGilMin elements; a leaked input raises first.
template <class F>
Tensor run_released(const Tensors& x, F f) {
  if (graph::g_leaks_alive) check_not_leaked(x);
  int64_t n = 0;
  for (auto& t : x) n += t->size;
  if (n >= kReleaseGilMin) {
    py::gil_scoped_release nogil;
    return f();
  }
  return f();
}
// Runs an op from Python (without the GIL when large).
inline Tensor run_op(const OpDef& op, const Tensors& x, const Attrs& attrs = {}) {
  return run_released(x, [&] { return apply(op, x, attrs); });
}

}  // namespace tg
