// work_pool.cpp -- the elementwise kernels' worker threads (see work_pool.h).
//
// Note [Dynamic chunks]: a fork-join team that splits a loop into one fixed share per thread waits for
// its slowest thread. On a machine where another process holds one of the cores, that thread may be
// descheduled for milliseconds, and a 0.6 ms kernel took 1.8 ms (more than the 1.25 ms of one thread
// alone). Here the loop is cut into about 16 chunks per thread; the caller and the workers claim chunks
// from one atomic counter, so a late or descheduled worker simply takes fewer. A worker that has not
// claimed anything when the chunks run out is not waited for: the caller waits only for chunks
// already claimed. Results never depend on which thread ran a chunk (reductions keep one partial per
// chunk, summed in chunk order), so they are the same under any load.
//
// Protocol. The caller publishes a job under `gen` (an odd number while open), runs chunks, then closes
// the job (gen even) and waits until `active` is 0. A worker increments `active`, then re-reads `gen`:
// if the job it saw is closed it leaves without touching it. Both sides use sequentially consistent
// atomics, so either the caller sees the worker's increment and waits, or the worker sees the close.
// Idle workers spin briefly (back-to-back kernels reuse them at once) and then sleep on a condition
// variable; the caller signals it only when some worker sleeps.
#include "kernels/work_pool.h"
#include <pthread.h>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#include "core/flush_denormal.h"

namespace tg {

namespace {

constexpr int kMaxWorkers = 63;
constexpr int kSpinRounds = 2000;  // about 50-100 us of pause instructions before a worker sleeps

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

struct Pool {
  std::atomic<uint64_t> gen{0};     // odd: a job is open
  std::atomic<int> active{0};       // workers inside the current job
  std::atomic<int64_t> next{0};     // next chunk to claim
  std::atomic<int64_t> done{0};     // chunks finished
  std::atomic<int> sleepers{0};
  std::atomic<int> wanted{1};       // threads per job, caller included
  std::atomic<bool> busy{false};    // a caller holds the pool
  int64_t n = 0, nchunks = 0, size = 0;
  ChunkFn fn = nullptr;
  void* ctx = nullptr;
  std::exception_ptr error;
  std::mutex error_mu;
  // pthread's own: std::condition_variable::wait would raise the wheel's libstdc++ floor (GLIBCXX_3.4.30).
  pthread_mutex_t sleep_mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
  int started = 0;                  // worker threads created (guarded by start_mu)
  std::mutex start_mu;

  void run_claimed() {
    for (int64_t c; (c = next.fetch_add(1)) < nchunks;) {
      const int64_t lo = c * size, hi = lo + size < n ? lo + size : n;
      try {
        fn(ctx, c, lo, hi);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
      done.fetch_add(1);
    }
  }

  void worker(int index) {
    flush_denormals_on_this_thread();  // Note [Flush denormals]
    uint64_t seen = gen.load();
    for (;;) {
      uint64_t g = gen.load();
      for (int spin = 0; (g == seen || !(g & 1)) && spin < kSpinRounds; ++spin) {
        cpu_relax();
        g = gen.load();
      }
      if (g == seen || !(g & 1)) {
        pthread_mutex_lock(&sleep_mu);
        sleepers.fetch_add(1);
        for (uint64_t now = gen.load(); now == seen || !(now & 1); now = gen.load())
          pthread_cond_wait(&wake, &sleep_mu);
        sleepers.fetch_sub(1);
        pthread_mutex_unlock(&sleep_mu);
        g = gen.load();
      }
      seen = g;
      if (index + 1 >= wanted.load()) continue;  // not needed at this thread count
      active.fetch_add(1);
      if (gen.load() == g) run_claimed();
      active.fetch_sub(1);
    }
  }

  void ensure_workers(int count) {
    std::lock_guard<std::mutex> lock(start_mu);
    for (; started < count && started < kMaxWorkers; ++started) {
      try {
        std::thread([this, i = started] { worker(i); }).detach();
      } catch (const std::system_error&) {
        break;  // no more threads: the jobs run with those there are
      }
    }
  }
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: workers may still wait on it at exit
  return *p;
}

void after_fork_in_child() {  // the workers did not survive the fork: start again with none
  Pool& p = pool();
  p.started = 0;
  p.busy.store(false);
  p.active.store(0);
  p.sleepers.store(0);
  p.gen.store(0);
  new (&p.start_mu) std::mutex;
  p.sleep_mu = PTHREAD_MUTEX_INITIALIZER;
  new (&p.error_mu) std::mutex;
  p.wake = PTHREAD_COND_INITIALIZER;
}

const bool kForkHandler = (pthread_atfork(nullptr, nullptr, after_fork_in_child), true);

}  // namespace

void set_pool_threads(int n) {
  if (n < 1) n = 1;
  pool().wanted.store(n > kMaxWorkers + 1 ? kMaxWorkers + 1 : n);
}

int64_t chunk_size(int64_t n, int64_t grain, int64_t align) {
  const int threads = pool().wanted.load();
  if (threads <= 1 || n <= grain) return n > 0 ? n : 1;
  int64_t size = (n + 16 * threads - 1) / (16 * threads);
  if (size < grain) size = grain;
  if (align > 1) size = (size + align - 1) / align * align;
  return size;
}

void run_chunks(int64_t n, int64_t size, ChunkFn fn, void* ctx) {
  (void)kForkHandler;
  if (n <= 0) return;
  if (size < 1) size = 1;
  const int64_t nchunks = (n + size - 1) / size;
  Pool& p = pool();
  const int threads = p.wanted.load();
  bool expected = false;
  if (nchunks == 1 || threads <= 1 || !p.busy.compare_exchange_strong(expected, true)) {
    for (int64_t c = 0; c < nchunks; ++c) fn(ctx, c, c * size, c * size + size < n ? c * size + size : n);
    return;
  }
  p.ensure_workers(threads - 1);
  p.n = n;
  p.nchunks = nchunks;
  p.size = size;
  p.fn = fn;
  p.ctx = ctx;
  p.error = nullptr;
  p.next.store(0);
  p.done.store(0);
  p.gen.fetch_add(1);  // open: odd
  if (p.sleepers.load() > 0) {
    pthread_mutex_lock(&p.sleep_mu);
    pthread_cond_broadcast(&p.wake);
    pthread_mutex_unlock(&p.sleep_mu);
  }
  p.run_claimed();
  for (int spin = 0; p.done.load() < nchunks; ++spin) {  // chunks a worker claimed and still runs
    if (spin < kSpinRounds) cpu_relax();
    else std::this_thread::yield();
  }
  p.gen.fetch_add(1);  // closed: even
  while (p.active.load() != 0) cpu_relax();
  std::exception_ptr error = p.error;
  p.busy.store(false);
  if (error) std::rethrow_exception(error);
}

}  // namespace tg
