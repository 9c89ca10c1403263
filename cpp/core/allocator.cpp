// allocator.cpp -- a per-thread cache of freed tensor buffers, by size class.
//
// Intermediate tensors of a few KB to a few MB are allocated and freed at every op; glibc
// serves those through memalign and consolidation (most of the per-op time on small tensors),
// and fresh large blocks cost a page fault per 4 KB page. Freed blocks are kept here and handed
// out again. Classes are 64 B * 2^(k/4) (at most 19% slack); blocks from 2 MiB up are 2 MiB
// aligned and ask for huge pages. The cache keeps at most kMaxCachedBytes per thread.
#include "core/allocator.h"
#include <cstdlib>
#include <new>
#include <sys/mman.h>
#include <vector>

namespace tg {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr int kClasses = 4 * 34;  // up to 64 B * 2^34: far beyond any real tensor
constexpr size_t kMaxCachedBytes = size_t(256) << 20;
constexpr size_t kMaxBlocksPerClass = 16;

size_t class_bytes(int c) {
  const size_t base = size_t(64) << (c / 4);
  return base + base / 4 * (c % 4);  // 4 steps per octave
}

// The smallest class holding n bytes.
int class_of(size_t n) {
  if (n <= 64) return 0;
  const int octave = 63 - __builtin_clzll((n - 1) / 64);
  const size_t base = size_t(64) << octave, quarter = base / 4;
  const int step = (int)((n - base + quarter - 1) / quarter);  // 1..4
  return 4 * octave + step;
}

void* raw_alloc(size_t bytes) {
  if (bytes >= kHugePage) {
    size_t padded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, padded);
    if (p) madvise(p, padded, MADV_HUGEPAGE);
    return p;
  }
  return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}

// See Note [Sanitizer build] in allocator.h.
void* exact_block(size_t n) {
  void* p = nullptr;
  if (posix_memalign(&p, 64, n ? n : 1) != 0) throw std::bad_alloc();
  return p;
}

struct BlockCache {
  std::vector<void*> free[kClasses];
  size_t bytes = 0;
  bool alive = true;
  ~BlockCache() {
    for (auto& list : free)
      for (void* p : list) std::free(p);
    alive = false;
  }
};

BlockCache& cache() {
  thread_local BlockCache c;
  return c;
}

}  // namespace

void* allocate_block(size_t n, int& size_class) {
  if (n > class_bytes(kClasses - 1)) throw std::bad_alloc();  // beyond any machine's memory
  if (kExactBlocks) return exact_block(n);
  size_class = class_of(n);
  BlockCache& c = cache();
  if (c.alive && !c.free[size_class].empty()) {
    void* p = c.free[size_class].back();
    c.free[size_class].pop_back();
    c.bytes -= class_bytes(size_class);
    return p;
  }
  void* p = raw_alloc(class_bytes(size_class));
  if (!p) throw std::bad_alloc();
  return p;
}

void release_block(void* p, int size_class) {
  if (kExactBlocks) return std::free(p);
  BlockCache& c = cache();
  const size_t bytes = class_bytes(size_class);
  if (c.alive && c.free[size_class].size() < kMaxBlocksPerClass && c.bytes + bytes <= kMaxCachedBytes) {
    c.free[size_class].push_back(p);
    c.bytes += bytes;
    return;
  }
  std::free(p);
}

size_t cached_bytes() { return cache().bytes; }

}  // namespace tg
