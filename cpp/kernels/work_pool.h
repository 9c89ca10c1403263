// work_pool.h -- elementwise kernels split their work into chunks that the calling thread and the pool's
// workers claim one at a time (Note [Dynamic chunks] in work_pool.cpp).
#pragma once
#include <cstdint>

namespace tg {

using ChunkFn = void (*)(void* ctx, int64_t chunk, int64_t lo, int64_t hi);

// Calls fn(ctx, c, lo, hi) once for each chunk c = 0, 1, ... of [0, n), chunk c being
// [c*size, min(n, (c+1)*size)), on the calling thread and on whichever pool workers come to help;
// returns when all are done (rethrowing the first exception a chunk threw). A call made while the pool
// is busy (another thread's kernel, or from inside a chunk) runs the same chunks on the calling thread.
void run_chunks(int64_t n, int64_t size, ChunkFn fn, void* ctx);

// The chunk length for a loop over n items: about 16 chunks per thread, none shorter than `grain`
// items, a multiple of `align`; n (one chunk) when the kernels run on one thread.
int64_t chunk_size(int64_t n, int64_t grain, int64_t align = 1);

// f(lo, hi) over [0, n) in chunks of chunk_size(n, grain, align).
template <class F>
void parallel_ranges(int64_t n, int64_t grain, int64_t align, F& f) {
  run_chunks(n, chunk_size(n, grain, align),
             [](void* ctx, int64_t, int64_t lo, int64_t hi) { (*static_cast<F*>(ctx))(lo, hi); }, &f);
}

// The pool's size follows the kernels' thread count (threads.h); 1 means no workers run.
void set_pool_threads(int n);

}  // namespace tg
