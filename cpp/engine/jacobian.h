// jacobian.h -- GradientTape.jacobian and batch_jacobian: batched sweeps seeded with identity rows.
//
// Algorithm: row r of a jacobian is the gradient of target element r, i.e. the sweep seeded with
// row r of the identity. One sweep takes a batch of such rows as its upstream gradient (Note
// [Batched gradients] in registry.h): all rows at once, or chunks of parallel_iterations rows;
// with experimental_use_pfor=False one row per sweep. batch_jacobian seeds row j with a one at
// element j of every example, so one row gives d y[i, j] / d x[i] for every example i.
#pragma once
#include "engine/tape.h"

namespace tg {

struct JacobianRequest {
  Tensor target;
  Tensors sources;
  int64_t parallel_iterations = 0;  // rows per sweep; 0: all of them
  bool use_pfor = true;             // false: one sweep per row
  bool unconnected_zero = false;
};

// Per source, d target / d source of shape target.shape + source.shape (null: unconnected, or
// an integer source).
Tensors jacobian(Tape& tape, const JacobianRequest& req);
// d target[i] / d source[i] for each example i: [b] + target.shape[1:] + source.shape[1:].
Tensor batch_jacobian(Tape& tape, const JacobianRequest& req);

}  // namespace tg
