// threads.cpp -- the kernels' thread count (see threads.h).
#include "kernels/threads.h"
#include <cblas.h>
#include <omp.h>

namespace tg {

namespace {
// The counts before the first change, read once (both libraries are loaded with the extension).
const int kInitialOmp = omp_get_max_threads();
const int kInitialBlas = scipy_openblas_get_num_threads();
}  // namespace

void set_num_threads(int n) {
  const int most = 4 * omp_get_num_procs();
  if (n > most) n = most;
  omp_set_num_threads(n > 0 ? n : kInitialOmp);
  scipy_openblas_set_num_threads(n > 0 ? n : kInitialBlas);
}

int num_threads() { return omp_get_max_threads(); }

}  // namespace tg
