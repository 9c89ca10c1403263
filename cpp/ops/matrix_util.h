// matrix_util.h -- small helpers the matrix ops' gradient rules share (cpp/ops/matrix.cpp, svd.cpp).
#pragma once
#include <utility>
#include <vector>
#include "engine/math.h"
#include "engine/observer.h"

namespace tg {

// The transpose of the last two axes, as a registered op.
inline Tensor last_two_transposed(const Tensor& t) {
  std::vector<int64_t> perm(t->ndim());
  for (int i = 0; i < t->ndim(); ++i) perm[i] = i;
  std::swap(perm[t->ndim() - 1], perm[t->ndim() - 2]);
  return transpose(t, perm);
}

// The n x n identity in `like`'s dtype (a constant).
inline Tensor identity_matrix(const Tensor& like, int64_t n) {
  Tensor eye = zeros({n, n}, like->dtype);
  dispatch_dtype(like->dtype, [&](auto v) {
    using T = decltype(v);
    for (int64_t i = 0; i < n; ++i) eye->data_as<T>()[i * n + i] = T(1);
    return 0;
  });
  return eye;
}

// Elements [from, to) of `axis`. In a trace whose sizes vary with values (Note [Sizes in traced rules]),
// a gather of those positions: a slice's bounds on the other axes would keep their traced lengths.
inline Tensor slice_axis(const Tensor& t, int axis, int64_t from, int64_t to) {
  if (sizes_vary_with_values()) {
    Tensor at = empty({to > from ? to - from : 0}, DType::Int64);
    for (int64_t i = from; i < to; ++i) at->data_as<int64_t>()[i - from] = i;
    return call("GatherV2", {t, at}, Attrs().set("axis", (int64_t)axis));
  }
  std::vector<int64_t> begin(t->ndim(), 0), end(t->shape.begin(), t->shape.end()), strides(t->ndim(), 1);
  begin[axis] = from;
  end[axis] = to;
  return strided_slice(t, begin, end, strides);
}

}  // namespace tg
