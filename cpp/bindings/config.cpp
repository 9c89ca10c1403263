// config.cpp -- bindings for the runtime configuration tf.config reaches: the kernels' thread count.
#include <pybind11/pybind11.h>
#include "kernels/threads.h"

namespace py = pybind11;

namespace tg {

void bind_config(py::module_& m) {
  m.def("_set_num_threads", &set_num_threads, py::arg("n"),
        "Caps the kernels' OpenMP and OpenBLAS threads at n (n <= 0: the count at load time).");
  m.def("_num_threads", &num_threads, "The number of threads a parallel kernel uses.");
}

}  // namespace tg
