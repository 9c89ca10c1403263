// module.cpp -- the tapegrad._core extension: registers the op table and binds each area.
#include <pybind11/pybind11.h>
#include "core/error.h"
#include "engine/registry.h"

namespace py = pybind11;

namespace tg {
void bind_tensor(py::module_& m);
void bind_ops(py::module_& m);
void bind_tape(py::module_& m);
void bind_graph(py::module_& m);
void bind_optim(py::module_& m);
void bind_forward(py::module_& m);
}  // namespace tg

PYBIND11_MODULE(_core, m) {
  m.doc() = "tapegrad C++ engine";
  tg::register_all_ops();
  auto invalid = py::register_exception<tg::InvalidArgument>(m, "InvalidArgumentError", PyExc_ValueError);
  py::register_exception<tg::TapeMisuse>(m, "TapeError", PyExc_RuntimeError);
  (void)invalid;
  tg::bind_tensor(m);
  tg::bind_ops(m);
  tg::bind_tape(m);
  tg::bind_graph(m);
  tg::bind_optim(m);
  tg::bind_forward(m);
}
