// copy.cpp -- the one strided loop behind Transpose, BroadcastTo, Tile, StridedSlice (gather) and
// StridedSliceGrad, Pad, ConcatV2 (scatter).
#include "kernels/copy.h"
#include <cstring>
#include "core/error.h"

namespace tg {

std::vector<int64_t> contiguous_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size());
  int64_t st = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    s[d] = st;
    st *= shape[d];
  }
  return s;
}

// Walks `shape` row by row; the strided side is src when gathering, dst when scattering.
template <bool Scatter, class T>
static void walk_rows(const T* src, T* dst, const std::vector<int64_t>& shape, const std::vector<int64_t>& st) {
  const int nd = (int)shape.size();
  if (nd == 0) { dst[0] = src[0]; return; }
  const int64_t inner = shape[nd - 1], sin = st[nd - 1];
  int64_t rows = 1;
  for (int d = 0; d < nd - 1; ++d) rows *= shape[d];
  std::vector<int64_t> idx(nd, 0);
  int64_t off = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if constexpr (Scatter) {
      T* d = dst + off;
      if (sin == 1) std::memcpy(d, src, sizeof(T) * inner);
      else for (int64_t i = 0; i < inner; ++i) d[i * sin] = src[i];
      src += inner;
    } else {
      const T* s = src + off;
      if (sin == 1) std::memcpy(dst, s, sizeof(T) * inner);
      else if (sin == 0) { const T v = s[0]; for (int64_t i = 0; i < inner; ++i) dst[i] = v; }  // hoisted: dst may alias s
      else for (int64_t i = 0; i < inner; ++i) dst[i] = s[i * sin];
      dst += inner;
    }
    for (int d = nd - 2; d >= 0; --d) {  // odometer over the outer dimensions
      off += st[d];
      if (++idx[d] < shape[d]) break;
      off -= st[d] * shape[d];
      idx[d] = 0;
    }
  }
}

// The same walk over fewer dimensions: length-1 dimensions dropped, and a dimension merged into the
// one before it when stepping the outer one equals running through the inner one.
static void compact(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                    std::vector<int64_t>& cs, std::vector<int64_t>& cst) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!cs.empty() && cst.back() == strides[d] * shape[d]) {
      cs.back() *= shape[d];
      cst.back() = strides[d];
    } else {
      cs.push_back(shape[d]);
      cst.push_back(strides[d]);
    }
  }
  if (cs.empty()) { cs.push_back(1); cst.push_back(1); }
}

template <bool Scatter>
static void walk(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& strides) {
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> cs, cst;
  compact(shape, strides, cs, cst);
  switch (elem_size) {
    case 1: walk_rows<Scatter>((const uint8_t*)src, (uint8_t*)dst, cs, cst); break;
    case 2: walk_rows<Scatter>((const uint16_t*)src, (uint16_t*)dst, cs, cst); break;
    case 4: walk_rows<Scatter>((const uint32_t*)src, (uint32_t*)dst, cs, cst); break;
    case 8: walk_rows<Scatter>((const uint64_t*)src, (uint64_t*)dst, cs, cst); break;
    default: throw Internal(cat("strided copy of ", elem_size, "-byte elements"));
  }
}

void strided_copy(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& strides) {
  walk<false>(src, dst, elem_size, shape, strides);
}

void strided_scatter(const void* src, void* dst, size_t elem_size, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& strides) {
  walk<true>(src, dst, elem_size, shape, strides);
}

}  // namespace tg
