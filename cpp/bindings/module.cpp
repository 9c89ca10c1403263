// module.cpp -- the tapegrad._core extension: registers the op table and binds each area.
#include <pybind11/pybind11.h>
#include <new>
#include "core/error.h"
#include "engine/registry.h"

namespace py = pybind11;

namespace tg {
void bind_tensor(py::module_& m);
void bind_ops(py::module_& m);
void bind_tape(py::module_& m);
void bind_graph(py::module_& m);
void bind_forward(py::module_& m);
void bind_config(py::module_& m);
void bind_dispatch(py::module_& m);

namespace {

// Note [One set of error classes]: the classes live in python/tapegrad/errors.py; these are
// borrowed once at import (the module is never unloaded) and never released.
PyObject* g_error_classes[17] = {};
PyObject* g_tape_error = nullptr;

void load_error_classes(py::module_& m) {
  py::module_ errors = py::module_::import("tapegrad.errors");
  py::dict of_code = errors.attr("_CLASS_OF_CODE");
  for (auto item : of_code) {
    int code = item.first.cast<int>();
    if (code > 0 && code < 17) g_error_classes[code] = py::reinterpret_borrow<py::object>(item.second).release().ptr();
  }
  g_tape_error = py::object(errors.attr("TapeError")).release().ptr();
  m.attr("InvalidArgumentError") = errors.attr("InvalidArgumentError");
  m.attr("TapeError") = errors.attr("TapeError");
}

void raise(ErrorCode code, const char* message) {
  const int c = (int)code;
  PyObject* cls = c > 0 && c < 17 && g_error_classes[c] ? g_error_classes[c] : g_error_classes[(int)ErrorCode::Unknown];
  PyErr_SetString(cls, message);
}

// C++ exceptions to Python ones: the engine's to TF's classes; an allocation that failed outside
// empty() (which names the shape) to ResourceExhaustedError; a failed pybind11 cast, which would be
// a RuntimeError, to TypeError.
void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const OpFailure& e) {
    raise(e.code, e.what());
  } catch (const TapeMisuse& e) {
    PyErr_SetString(g_tape_error, e.what());
  } catch (const std::bad_alloc&) {
    raise(ErrorCode::ResourceExhausted, "OOM when allocating memory for a tensor");
  } catch (const py::cast_error& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  }
}

}  // namespace
}  // namespace tg

PYBIND11_MODULE(_core, m) {
  m.doc() = "tapegrad C++ engine";
  tg::register_all_ops();
  tg::load_error_classes(m);
  py::register_exception_translator(&tg::translate);
  tg::bind_tensor(m);
  tg::bind_ops(m);
  tg::bind_tape(m);
  tg::bind_graph(m);
  tg::bind_forward(m);
  tg::bind_config(m);
  tg::bind_dispatch(m);
}
