// config.cpp -- bindings for the runtime configuration tf.config reaches (the kernels' thread count) and the
// build facts tapegrad.show_config() prints.
#include <cblas.h>
#include <omp.h>
#include <pybind11/pybind11.h>
#include "kernels/threads.h"

// Written by CMakeLists.txt at configure time for this file only.
#ifndef TG_BUILD_COMPILER
#define TG_BUILD_COMPILER "unknown"
#endif
#ifndef TG_BUILD_TYPE
#define TG_BUILD_TYPE "unknown"
#endif
#ifndef TG_BUILD_FLAGS
#define TG_BUILD_FLAGS "unknown"
#endif

namespace py = pybind11;

namespace tg {

void bind_config(py::module_& m) {
  m.def("_set_num_threads", &set_num_threads, py::arg("n"),
        "Caps the kernels' OpenMP and OpenBLAS threads at n (n <= 0: the count at load time).");
  m.def("_num_threads", &num_threads, "The number of threads a parallel kernel uses.");
  m.def("_usable_threads", &usable_threads, "Threads a GEMM or convolution uses now (Note [Free CPUs]).");
  m.def("_build_info", [] {
    py::dict d;
    d["compiler"] = TG_BUILD_COMPILER;
    d["build_type"] = TG_BUILD_TYPE;
    d["flags"] = TG_BUILD_FLAGS;
    d["openmp"] = _OPENMP;  // the OpenMP spec date the compiler implements, e.g. 201511
    d["openmp_threads"] = omp_get_max_threads();
    d["blas_config"] = scipy_openblas_get_config();
    d["blas_core"] = scipy_openblas_get_corename();
    d["blas_threads"] = scipy_openblas_get_num_threads();
    return d;
  }, "Build and run-time facts for tapegrad.show_config().");
}

}  // namespace tg
