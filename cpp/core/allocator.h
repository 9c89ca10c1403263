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

// Note [Object blocks]: every tensor is two heap blocks of 112 bytes (the TensorImpl and its
// Storage, each with its shared_ptr control block), and each op makes and frees one tensor more.
// glibc keeps only 7 freed blocks of a size in its per-thread cache; the rest went through its fast
// bins (and, after a long tape, its consolidation), at about 150 instructions a malloc/free pair.
// Blocks of up to kObjectBlockBytes come instead from a per-thread list of freed ones (a few
// instructions). The list keeps up to kMaxObjectBlocks (8 MiB; the tensor-data cache keeps up to
// 256 MiB a thread), the rest go back to malloc; a thread's list is freed when it ends. Making a
// tensor and its storage one block saves as much on a short tape, but the larger block leaves
// glibc's fast bins and made a tape of 32k adds 1.7x slower per add.
//
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
