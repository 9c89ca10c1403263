// softmax.h -- softmax, log-softmax and sparse softmax cross-entropy along one axis, max-shifted.
#pragma once
#include "core/tensor.h"

namespace tg {

// x viewed as [outer, n, inner] with the softmax axis in the middle.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit split_at_axis(const Shape& s, int axis);

// out = softmax(x) (or log_softmax(x) when `log`), computed from x - max(x) so nothing overflows.
Tensor softmax(const Tensor& x, int axis, bool log);
// Per row of logits [batch, n] with integer labels [batch]:
// loss = logsumexp(row) - row[label]; with `grad`, the row's softmax - onehot(label) instead.
// Labels must already be validated to lie in [0, n).
Tensor sparse_xent(const Tensor& logits, const Tensor& labels, bool grad);

}  // namespace tg
