// threads.h -- how many threads the kernels use: OpenMP's teams and OpenBLAS's GEMM threads together.
#pragma once

namespace tg {

// n > 0 caps both pools at n threads (at most 4 per core: more only oversubscribes, and a huge count
// would exhaust the process's threads); n <= 0 restores the count they had at load time (the
// machine's cores, or OMP_NUM_THREADS). OpenMP's setting belongs to the calling thread, which is the
// thread that runs the kernels of its ops.
void set_num_threads(int n);
int num_threads();

// The threads a fixed-share parallel kernel should use now: the configured count, capped by the CPUs that
// other processes leave free (Note [Free CPUs] in threads.cpp; re-measured at most every 200 ms).
int usable_threads();
// Sets OpenBLAS's count to the configured one capped the same way; called before each GEMM.
void adapt_blas_threads();

// OpenBLAS at one thread while any guard lives (for runs of small GEMMs, or GEMMs already spread
// over OpenMP threads): the first guard in saves the count and sets one, the last one out restores it.
struct OneBlasThread {
  OneBlasThread();
  ~OneBlasThread();
  OneBlasThread(const OneBlasThread&) = delete;
  OneBlasThread& operator=(const OneBlasThread&) = delete;
};

}  // namespace tg
