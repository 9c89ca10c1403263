// threads.cpp -- the kernels' thread count (see threads.h).
#include "kernels/threads.h"
#include "core/flush_denormal.h"
#include "kernels/work_pool.h"
#include <cblas.h>
#include <omp.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
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
std::atomic<int> blas_configured{kInitialBlas};  // the count set_num_threads asked for
std::atomic<int> blas_applied{kInitialBlas};     // the count OpenBLAS runs with outside OneBlasThread guards

// Note [Free CPUs]: a GEMM or convolution split into one fixed share per thread waits for its slowest
// thread, so while other processes keep a CPU busy, two threads on two CPUs run slower than one (the
// matmul benchmark went 2.5x slower beside one busy-looping process). Every 200 ms, at the next GEMM or
// convolution, the CPU time the whole machine spent (/proc/stat) minus this process's own (getrusage)
// gives how many CPUs other processes use; OpenBLAS and the convolutions then use at most the CPUs left
// (rounded, at least 1). The elementwise kernels need no cap: their chunks are claimed dynamically
// (Note [Dynamic chunks] in work_pool.cpp).
constexpr int64_t kRemeasureNs = 200'000'000;
std::atomic<int64_t> next_measure_ns{0};
std::atomic<int> free_cpu_cap{INT_MAX};
std::mutex measure_mu;
int64_t last_wall_ns = -1, last_busy_ticks = 0, last_self_us = 0;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool machine_busy_ticks(int64_t& busy) {  // CPU time of every process on the machine, in clock ticks
  std::FILE* f = std::fopen("/proc/stat", "r");
  if (!f) return false;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  const int got = std::fscanf(f, "cpu %lld %lld %lld %lld %lld %lld %lld %lld", &user, &nice, &system, &idle,
                              &iowait, &irq, &softirq, &steal);
  std::fclose(f);
  busy = user + nice + system + irq + softirq + steal;
  return got >= 4;
}

int64_t self_cpu_us() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

void measure_free_cpus(int64_t now) {
  std::unique_lock<std::mutex> lock(measure_mu, std::try_to_lock);
  if (!lock.owns_lock() || now < next_measure_ns.load()) return;
  next_measure_ns.store(now + kRemeasureNs);
  int64_t busy = 0;
  if (!machine_busy_ticks(busy)) {
    next_measure_ns.store(INT64_MAX);  // no /proc: never cap
    return;
  }
  const int64_t self = self_cpu_us();
  if (last_wall_ns >= 0 && now > last_wall_ns) {
    const double wall_s = (now - last_wall_ns) * 1e-9;
    const double machine_s = (double)(busy - last_busy_ticks) / (double)sysconf(_SC_CLK_TCK);
    double others = (machine_s - (self - last_self_us) * 1e-6) / wall_s;  // CPUs other processes kept busy
    if (others < 0) others = 0;
    const double free = omp_get_num_procs() - others;
    free_cpu_cap.store(free < 1.5 ? 1 : (int)(free + 0.5));
  }
  last_wall_ns = now;
  last_busy_ticks = busy;
  last_self_us = self;
}
}  // namespace

int usable_threads() {
  const int configured = omp_get_max_threads();
  if (configured <= 1) return 1;
  const int64_t now = now_ns();
  if (now >= next_measure_ns.load(std::memory_order_relaxed)) measure_free_cpus(now);
  const int cap = free_cpu_cap.load(std::memory_order_relaxed);
  return configured < cap ? configured : cap;
}

void adapt_blas_threads() {
  usable_threads();  // re-measures when due
  const int cap = free_cpu_cap.load(std::memory_order_relaxed);
  const int configured = blas_configured.load(std::memory_order_relaxed);
  const int want = configured < cap ? configured : cap;
  if (want == blas_applied.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(one_blas_mu);
  if (one_blas_users != 0) return;  // a OneBlasThread guard holds OpenBLAS at one thread
  scipy_openblas_set_num_threads(want);
  blas_applied.store(want);
}

void set_num_threads(int n) {
  const int most = 4 * omp_get_num_procs();
  if (n > most) n = most;
  omp_set_num_threads(n > 0 ? n : kInitialOmp);
  {
    std::lock_guard<std::mutex> lock(one_blas_mu);
    blas_configured.store(n > 0 ? n : kInitialBlas);
    blas_applied.store(n > 0 ? n : kInitialBlas);
    scipy_openblas_set_num_threads(n > 0 ? n : kInitialBlas);
  }
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
