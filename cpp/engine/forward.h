// forward.h -- forward-mode autodiff: the active accumulators, their tangents, the per-op push forward.
//
// Terminology: a *primal* is a value, its *tangent* the directional derivative of that value
// along the accumulator's direction (the tangents given for the watched primals). An
// accumulator maps tensor ids to tangents; a tensor without an entry has a zero tangent.
//
// Algorithm: while an accumulator is active, its observer calls forward_op after each op's
// kernel (Note [Op observers] in observer.h).
// For each active accumulator that holds a tangent for one of the op's inputs, the output's
// tangent is computed with registered ops (OpDef::jvp, or the double-VJP fallback built from
// the gradient rule) while that accumulator and every inner one are paused. The ops of a JVP
// are therefore not pushed forward by the accumulator computing it, but they are recorded by
// the active tapes and pushed forward by outer accumulators: that is what makes nesting work
// (forward-over-reverse Hessian-vector products, forward-over-forward second derivatives).
#pragma once
#include <memory>
#include "engine/id_map.h"
#include "engine/tape.h"

namespace tg {

struct Accumulator {
  struct Slot {
    std::weak_ptr<TensorImpl> primal;  // tangents of dead primals are dropped (see prune_dead)
    Tensor tangent;
  };
  IdMap<Slot> tangents;
  std::vector<int64_t> ids;  // the keys of `tangents`, for prune_dead
  int paused = 0;
  size_t prune_at = 4096;  // map size that triggers the next prune_dead()

  // Sets the tangent of `primal` (validated: same shape, floating dtype).
  void watch(const Tensor& primal, const Tensor& tangent);
  Tensor tangent(const Tensor& t) const;  // null when t has none
  void set(const Tensor& primal, Tensor tangent);
  void prune_dead();
};

// The active accumulators of this thread, innermost last.
inline std::vector<Accumulator*>& active_accumulators() {
  thread_local std::vector<Accumulator*> stack;
  return stack;
}
void push_accumulator(Accumulator* a);
void pop_accumulator(Accumulator* a);

// True when an active accumulator holds a tangent for one of x.
bool any_tangent(const Tensors& x);
// Pushes an op forward through every active accumulator (after the kernel, as an observer).
void forward_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out);
// Pushes a custom entry (custom_gradient) forward by the double-VJP trick on its gradient function.
void forward_custom(const Tensors& x, const Tensors& outs, const CustomGradFn& fn);

// JVP rule helpers for the op table rows:
// An elementwise op's Jacobian is diagonal, so its JVP is its gradient rule applied to the
// tangent (broadcast to the output) of each input that has one, summed.
Tensor elementwise_jvp(const OpDef& op, const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& attrs);
// An op linear in input 0 (the others being indices): its JVP is the op applied to the tangent.
JvpFn linear_jvp(const char* op);

// Pauses every active accumulator (custom_gradient runs its function this way); RAII.
struct PauseAccumulators {
  std::vector<Accumulator*> paused;
  PauseAccumulators();
  ~PauseAccumulators();
  void release();
};

}  // namespace tg
