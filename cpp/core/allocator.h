// allocator.h -- tensor buffers from a per-thread cache of size-classed blocks.
#pragma once
#include <cstddef>

namespace tg {

// Returns a 64-byte aligned block of at least n bytes and its size class.
void* allocate_block(size_t n, int& size_class);
void release_block(void* p, int size_class);
size_t cached_bytes();  // held by this thread's cache

}  // namespace tg
