// threads.cpp -- the kernels' thread count (see threads.h).
#include "kernels/threads.h"
#include "core/flush_denormal.h"
#include "kernels/work_pool.h"
#include <cblas.h>
#include <omp.h>
#include <mutex>

namespace tg {

namespace {
// Note [Flush denormals]: every OpenMP worker flushes subnormals. Workers live as long as the team does;
// a region with more threads than before creates new ones, so this runs at load and after each change.
void flush_denormals_in_workers() {
#pragma omp parallel
  if (omp_get_thread_num() != 0) flush_denormals_on_this_thread();
}
[[maybe_unused]] const bool kWorkersFlush = (flush_denormals_in_workers(), true);

// The counts before the first change, read once (both libraries are loaded with the extension).
const int kInitialOmp = omp_get_max_threads();
const int kInitialBlas = scipy_openblas_get_num_threads();
[[maybe_unused]] const bool kPoolSized = (set_pool_threads(kInitialOmp), true);

// OneBlasThread's shared state (OpenBLAS's per-thread setting is not exported, so the count is global).
std::mutex one_blas_mu;
int one_blas_users = 0;
int one_blas_saved = 0;
}  // namespace

void set_num_threads(int n) {
  const int most = 4 * omp_get_num_procs();
  if (n > most) n = most;
  omp_set_num_threads(n > 0 ? n : kInitialOmp);
  scipy_openblas_set_num_threads(n > 0 ? n : kInitialBlas);
  flush_denormals_in_workers();
  set_pool_threads(omp_get_max_threads());
}

int num_threads() { return omp_get_max_threads(); }

OneBlasThread::OneBlasThread() {
  std::lock_guard<std::mutex> lock(one_blas_mu);
  if (one_blas_users++ == 0) {
    one_blas_saved = scipy_openblas_get_num_threads();
    if (one_blas_saved != 1) scipy_openblas_set_num_threads(1);
  }
}

OneBlasThread::~OneBlasThread() {
  std::lock_guard<std::mutex> lock(one_blas_mu);
  if (--one_blas_users == 0 && one_blas_saved != 1) scipy_openblas_set_num_threads(one_blas_saved);
}

}  // namespace tg
