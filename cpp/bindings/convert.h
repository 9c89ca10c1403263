// convert.h -- Python <-> engine conversions shared by the binding files.
#pragma once
#include <pybind11/pybind11.h>
#include <pybind11/numpy.h>
#include "engine/eager.h"
#include "engine/registry.h"
#include "engine/variable.h"

namespace tg {
namespace py = pybind11;

// Note [Tensor objects]: a Python Tensor (or Variable) is a plain CPython object holding a Tensor;
// its types are made in bindings/tensor.cpp, not by pybind11, so that creating, reading and freeing
// one costs no pybind11 bookkeeping and no reliance on pybind11's internal layout. A TensorImpl
// knows its object (TensorImpl::wrapper, set when the object is made and cleared when it dies, both
// under the GIL): a tensor that already has one gets it back.
struct TensorObject {
  PyObject_HEAD
  Tensor t;  // null only in a Variable whose __init__ has not run
  PyObject* weakrefs;
};
extern PyTypeObject* g_tensor_type;  // Variable and its Python subclasses pass the check too
// Whether h is a tensor object holding a tensor (an uninitialised Variable is not one).
inline bool is_tensor(py::handle h) {
  return PyObject_TypeCheck(h.ptr(), g_tensor_type) && reinterpret_cast<TensorObject*>(h.ptr())->t;
}
// The Tensor held by h, borrowed (valid while h lives; no reference-count traffic). Only when is_tensor(h).
inline const Tensor& tensor_ref(py::handle h) { return reinterpret_cast<TensorObject*>(h.ptr())->t; }
inline Tensor tensor_of(py::handle h) { return tensor_ref(h); }
// t's object, made when it has none; a null Tensor becomes None.
py::object wrap_tensor(Tensor t);

// Runs f() for a C slot or method: a Tensor result becomes its object, a C++ exception the Python
// error (and null).
// An operator's result that its other operand's reflected method gave (tensor.cpp): guarded() returns it.
struct Deferred {
  py::object result;
};

template <class F>
PyObject* guarded(F f) {
  try {
    if constexpr (std::is_same_v<decltype(f()), PyObject*>) return f();
    else return wrap_tensor(f()).release().ptr();
  } catch (Deferred& d) {
    return d.result.release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

// Binds f as method `name` of a type made here (not by pybind11): Tensor, Variable, GradientTape.
template <class F, class... Extra>
void def_method(py::handle type, const char* name, F&& f, const Extra&... extra) {
  type.attr(name) = py::cpp_function(std::forward<F>(f), py::name(name), py::is_method(type), extra...);
}

}  // namespace tg

// Every binding file includes this header, so every Tensor argument and result goes through this caster.
namespace pybind11::detail {
template <>
struct type_caster<std::shared_ptr<tg::TensorImpl>> {
  PYBIND11_TYPE_CASTER(std::shared_ptr<tg::TensorImpl>, const_name("tapegrad._core.Tensor"));
  bool load(handle src, bool) {
    if (!tg::is_tensor(src)) return false;
    value = tg::tensor_ref(src);
    return true;
  }
  static handle cast(const std::shared_ptr<tg::TensorImpl>& t, return_value_policy, handle) {
    return tg::wrap_tensor(t).release();
  }
};
}  // namespace pybind11::detail

namespace tg {

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
