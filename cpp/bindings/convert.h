// convert.h -- Python <-> engine conversions shared by the binding files.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include "engine/eager.h"
#include "engine/registry.h"
#include "engine/variable.h"

namespace tg {
namespace py = pybind11;
py::object wrap_tensor(std::shared_ptr<TensorImpl> t);
}  // namespace tg

// Casting a Tensor to Python is wrap_tensor (Note [Wrapping results]); loading one is pybind11's.
// Every file that converts Tensors includes this header, so every conversion sees this caster.
namespace pybind11::detail {
template <>
class type_caster<std::shared_ptr<tg::TensorImpl>>
    : public copyable_holder_caster<tg::TensorImpl, std::shared_ptr<tg::TensorImpl>> {
 public:
  static handle cast(const std::shared_ptr<tg::TensorImpl>& t, return_value_policy, handle) {
    return tg::wrap_tensor(t).release();
  }
};
}  // namespace pybind11::detail

namespace tg {

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
// The C++ value of an object of a bound class, where get_value_and_holder() (no type given)
// finds it, read in place as tensor_ref reads the holder.
inline void* value_ptr_of(py::handle h) {
  auto* inst = reinterpret_cast<py::detail::instance*>(h.ptr());
  return inst->simple_layout ? inst->simple_value_holder[0] : inst->nonsimple.values_and_holders[0];
}

// Note [Wrapping results]: py::cast(Tensor) finds the pybind11 type of the object by its dynamic
// C++ type (hash lookups keyed by type names, twice), copies the Tensor into the new object and
// registers it in pybind11's instance map (a hash insert and a node allocation, and an erase
// when it dies), together about a fifth of a scalar op. Op results are plain TensorImpl objects:
// wrap_tensor looks their type record up once and moves the Tensor into the holder. Instead of
// pybind11's map, a TensorImpl knows its wrapper (TensorImpl::wrapper, set here and cleared by
// the Tensor type's tp_dealloc, both under the GIL): an object that already has a Python wrapper
// gets that wrapper back, as from pybind11's cast. Every cast of a Tensor to Python comes here
// (the type_caster below), so no plain TensorImpl is ever in pybind11's map. Anything else (a
// VariableImpl) goes through pybind11's own cast and map. A null Tensor becomes None.
py::object wrap_tensor(Tensor t);
// Makes the Tensor type's tp_dealloc clear TensorImpl::wrapper (once, when the type is bound).
void install_tensor_dealloc(PyTypeObject* type);

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
