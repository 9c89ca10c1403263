// allocator.h -- tensor buffers from caches of size-classed blocks (per thread; shared for large ones),
// and a per-thread stock of the small blocks that hold tensor objects.
#pragma once
#include <cstddef>
#include <new>

namespace tg {

// Note [Sanitizer build]: under AddressSanitizer (.ci/sanitize) every tensor buffer is a heap
// block of exactly its size, freed at once: the block cache and Storage's inline buffer would
// hide reads past the end and uses after free from ASan.
#ifdef __SANITIZE_ADDRESS__
constexpr bool kExactBlocks = true;
#else
constexpr bool kExactBlocks = false;
#endif

// Returns a 64-byte aligned block of at least n bytes and its size class.
void* allocate_block(size_t n, int& size_class);
void release_block(void* p, int size_class);
size_t cached_bytes();  // held by this thread's cache and the shared one

// Note [Object blocks]: every tensor is two heap blocks of about 112 bytes (the TensorImpl and its
// Storage, each with its shared_ptr control block), and a scalar op makes and frees one tensor
// more. glibc keeps only 7 freed blocks of a size in its per-thread cache; the rest of a step's
// blocks went through its fast bins, at about 150 instructions a malloc/free pair. Blocks of up
// to kObjectBlockBytes come instead from a per-thread list of freed ones (a few instructions;
// up to kMaxObjectBlocks are kept, the rest go back to malloc, so a long tape that frees
// thousands of tensors at once costs what it did). Merging the two blocks of a tensor into one
// would save as much for small tapes, but pushes them into glibc's slower bins on long ones.
// The largest request glibc serves from its fast bins (a 128-byte chunk); a tensor's blocks are 112.
constexpr size_t kObjectBlockBytes = 120;
void* allocate_object(size_t n);
void release_object(void* p, size_t n);

// std::allocate_shared's allocator for tensor objects (see Note [Object blocks]).
template <class T>
struct ObjectAllocator {
  using value_type = T;
  ObjectAllocator() = default;
  template <class U> ObjectAllocator(const ObjectAllocator<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(allocate_object(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { release_object(p, n * sizeof(T)); }
  template <class U> bool operator==(const ObjectAllocator<U>&) const { return true; }
  template <class U> bool operator!=(const ObjectAllocator<U>&) const { return false; }
};

}  // namespace tg
