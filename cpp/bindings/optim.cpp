// optim.cpp -- bindings for the state of stateful ops: the random ops' global seed.
// (Optimizer updates are registered ops, cpp/ops/optim.cpp, called through _core.op.)
#include <pybind11/pybind11.h>
#include "bindings/convert.h"
#include "ops/random.h"

namespace tg {

void bind_optim(py::module_& m) {
  m.def("_set_random_seed", &set_random_seed, py::arg("seed"),
        "Sets the random ops' global seed and restarts their streams (tf.random.set_seed).");
}

}  // namespace tg
