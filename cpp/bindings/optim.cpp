// optim.cpp -- bindings for stateful ops: ops bound to fixed attributes (the optimizers' per-variable
// update calls) and the random ops' global seed.
#include <pybind11/pybind11.h>
#include "bindings/convert.h"
#include "core/error.h"
#include "engine/eager.h"
#include "ops/random.h"

namespace tg {

namespace {

// An op with its attributes converted once: bound(*inputs) runs it. An optimizer calls one per
// variable and step, so the per-call cost is only the inputs (tensors, or numbers taking the
// first tensor's dtype).
struct BoundOp {
  const OpDef* op;
  Attrs attrs;

  Tensor call(py::args args) const {
    Tensors x;
    x.reserve(args.size());
    int hint = -1;
    int64_t n = 0;
    for (auto a : args) {
      x.push_back(is_tensor(a) ? tensor_of(a) : to_tensor(a, hint));
      if (hint < 0) hint = (int)x.back()->dtype;
      n += x.back()->size;
    }
    if (n >= kReleaseGilMin) {
      py::gil_scoped_release nogil;
      return apply(*op, x, attrs);
    }
    return apply(*op, x, attrs);
  }
};

}  // namespace

void bind_optim(py::module_& m) {
  py::class_<BoundOp>(m, "_BoundOp")
      .def("__call__", &BoundOp::call)
      .def_property_readonly("name", [](const BoundOp& b) { return b.op->name; });
  m.def("_bind_op", [](const std::string& name, py::kwargs attrs) { return BoundOp{&op_def(name.c_str()), to_attrs(attrs)}; },
        py::arg("name"), "The op `name` with these attributes fixed: returns a callable taking the inputs.");
  m.def("_set_random_seed", &set_random_seed, py::arg("seed"),
        "Sets the random ops' global seed and restarts their streams (tf.random.set_seed).");
}

}  // namespace tg
