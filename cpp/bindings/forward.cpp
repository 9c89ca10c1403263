// forward.cpp -- the forward-mode accumulator (autodiff.ForwardAccumulator's C++ half) and its pause.
#include <pybind11/stl.h>
#include "bindings/py_rules.h"
#include "core/error.h"
#include "engine/forward.h"

namespace tg {

namespace {

struct PyAccumulator {
  Accumulator acc;
  bool active = false;
  ~PyAccumulator() {
    if (active) pop_accumulator(&acc);  // never leave a dangling pointer on the stack
  }
};

}  // namespace

void bind_forward(py::module_& m) {
  py::class_<PyAccumulator>(m, "_Accumulator")
      .def(py::init<>())
      .def("watch", [](PyAccumulator& a, const Tensor& primal, const Tensor& tangent) { a.acc.watch(primal, tangent); },
           py::arg("primal"), py::arg("tangent"))
      .def("tangent", [](PyAccumulator& a, const Tensor& t) -> py::object {
             Tensor r = a.acc.tangent(t);
             return r ? py::cast(r) : py::none();
           })
      .def("push", [](PyAccumulator& a) {
             if (a.active) throw TapeMisuse("This ForwardAccumulator is already active");
             push_accumulator(&a.acc);
             a.active = true;
           })
      .def("pop", [](PyAccumulator& a) {
             pop_accumulator(&a.acc);
             a.active = false;
           })
      .def_property_readonly("_num_tangents", [](PyAccumulator& a) { return a.acc.tangents.size(); });

  py::class_<PauseAccumulators>(m, "_PauseAccumulators")
      .def(py::init<>())
      .def("__enter__", [](PauseAccumulators&) {})
      .def("__exit__", [](PauseAccumulators& p, py::args) { p.release(); });

  m.def("_jvp_kind", [](const std::string& name) -> std::string {
          const OpDef& op = op_def(name.c_str());
          return op.jvp_rule ? "rule" : op.grad ? "gradient" : "none";
        }, "How an op is pushed forward: its own JVP rule, the double VJP of its gradient rule, or not at all.");
  m.def("accumulators_active", [] { return !active_accumulators().empty(); });
  m.def("forward_custom", [](py::sequence inputs, py::sequence outputs, py::function fn) {
          if (!active_accumulators().empty())  // runs now, with the GIL held
            forward_custom(tensor_list(inputs), tensor_list(outputs), *custom_rule(std::move(fn)));
        }, "Pushes a custom_gradient call forward: tangents by the double-VJP trick on fn (output grads -> input grads).");
}

}  // namespace tg
