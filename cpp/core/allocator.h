// allocator.h -- tensor buffers from caches of size-classed blocks (per thread; shared for large ones).
#pragma once
#include <cstddef>

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

}  // namespace tg
