// allocator.cpp -- a per-thread cache of freed tensor buffers, by size class.
//
// Intermediate tensors of a few KB to a few MB are allocated and freed at every op; glibc
// serves those through memalign and consolidation (most of the per-op time on small tensors),
// and fresh large blocks cost a page fault per 4 KB page. Freed blocks are kept here and handed
// out again. Classes are 64 B * 2^(k/4) (at most 19% slack); blocks from 2 MiB up are 2 MiB
// aligned and ask for huge pages.
//
// Note [Shared large blocks]: small blocks are cached per thread (no lock on the hot path), but a
// block freed by another thread than the one that allocated it then lands in the wrong cache, and
// the allocating thread faults in fresh pages for its next one. That happens at every step for
// the large ones: tapegrad.distribute's communication thread fills and drops gradient buffers of
// the training thread, a dataset's prefetch thread hands batches over. A page fault costs a few
// microseconds on a VM: a 1.6 MB receive buffer faulted anew at every step cost about 1 ms. Blocks of
// kSharedMinBytes and up therefore go to one cache shared by every thread, behind a mutex (a few
// tens of ns against the microseconds such a block's contents take to write).
#include "core/allocator.h"
#include <cstdlib>
#include <mutex>
#include <new>
#include <sys/mman.h>
#include <vector>

namespace tg {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr int kClasses = 4 * 34;  // up to 64 B * 2^34: far beyond any real tensor
constexpr size_t kMaxCachedBytes = size_t(256) << 20;  // per thread, and again in the shared cache
constexpr size_t kMaxBlocksPerClass = 16;
constexpr size_t kSharedMinBytes = size_t(64) << 10;

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

  void* take(int c) {
    if (!alive || free[c].empty()) return nullptr;
    void* p = free[c].back();
    free[c].pop_back();
    bytes -= class_bytes(c);
    return p;
  }

  bool keep(void* p, int c) {
    const size_t b = class_bytes(c);
    if (!alive || free[c].size() >= kMaxBlocksPerClass || bytes + b > kMaxCachedBytes) return false;
    free[c].push_back(p);
    bytes += b;
    return true;
  }
};

BlockCache& thread_cache() {
  thread_local BlockCache c;
  return c;
}

// Note [Shared large blocks]. Never destroyed: threads may free blocks during interpreter exit.
struct SharedCache {
  std::mutex mu;
  BlockCache blocks;
};

SharedCache& shared_cache() {
  static SharedCache* c = new SharedCache;
  return *c;
}

bool is_shared(int size_class) { return class_bytes(size_class) >= kSharedMinBytes; }

}  // namespace

void* allocate_block(size_t n, int& size_class) {
  if (n > class_bytes(kClasses - 1)) throw std::bad_alloc();  // beyond any machine's memory
  if (kExactBlocks) return exact_block(n);
  size_class = class_of(n);
  void* p = nullptr;
  if (is_shared(size_class)) {
    SharedCache& s = shared_cache();
    std::lock_guard<std::mutex> lock(s.mu);
    p = s.blocks.take(size_class);
  } else {
    p = thread_cache().take(size_class);
  }
  if (!p) p = raw_alloc(class_bytes(size_class));
  if (!p) throw std::bad_alloc();
  return p;
}

void release_block(void* p, int size_class) {
  if (kExactBlocks) return std::free(p);
  bool kept;
  if (is_shared(size_class)) {
    SharedCache& s = shared_cache();
    std::lock_guard<std::mutex> lock(s.mu);
    kept = s.blocks.keep(p, size_class);
  } else {
    kept = thread_cache().keep(p, size_class);
  }
  if (!kept) std::free(p);
}

// See Note [Object blocks]. A trivial type, so the thread_local needs no guard on the hot path; the
// blocks are handed back to malloc when the thread ends by a guarded object made with the first one.
namespace {
constexpr int kMaxObjectBlocks = 65536;  // 8 MiB

struct ObjectBlocks {
  void* head;
  int n;
  enum : char { kFresh, kReaped, kDead } state;  // kReaped: the thread's exit hands the list back
};
thread_local ObjectBlocks t_object_blocks{};

struct ObjectBlocksReaper {
  ~ObjectBlocksReaper() {
    ObjectBlocks& l = t_object_blocks;
    while (l.head) {
      void* p = l.head;
      l.head = *static_cast<void**>(p);
      ::operator delete(p);
    }
    l.n = 0;
    l.state = ObjectBlocks::kDead;  // blocks freed later in the thread's exit go to malloc
  }
};

// The list's address, computed once: GCC otherwise recomputes a thread_local's address (a call to
// __tls_get_addr from a shared object) at each use after a branch.
inline ObjectBlocks* object_blocks() {
  ObjectBlocks* l = &t_object_blocks;
  asm("" : "+r"(l));
  return l;
}

[[gnu::noinline]] void reap_at_thread_exit(ObjectBlocks* l) {
  thread_local ObjectBlocksReaper reaper;
  (void)reaper;
  l->state = ObjectBlocks::kReaped;
}
}  // namespace

void* allocate_object(size_t n) {
  if (kExactBlocks || n > kObjectBlockBytes) return ::operator new(n);
  ObjectBlocks* l = object_blocks();
  if (void* p = l->head) {
    l->head = *static_cast<void**>(p);
    --l->n;
    return p;
  }
  return ::operator new(kObjectBlockBytes);
}

void release_object(void* p, size_t n) {
  ObjectBlocks* l = object_blocks();
  if (kExactBlocks || n > kObjectBlockBytes || l->n >= kMaxObjectBlocks || l->state == ObjectBlocks::kDead)
    return ::operator delete(p);
  if (l->state == ObjectBlocks::kFresh) reap_at_thread_exit(l);
  *static_cast<void**>(p) = l->head;
  l->head = p;
  ++l->n;
}

size_t cached_bytes() {
  SharedCache& s = shared_cache();
  std::lock_guard<std::mutex> lock(s.mu);
  return thread_cache().bytes + s.blocks.bytes;
}

}  // namespace tg
