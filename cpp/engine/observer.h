// observer.h -- who is told about op application: tapes, forward accumulators, variable watchers, tracers.
//
// Note [Op observers]: apply() knows none of its observers. Each kind of observer keeps its own
// stack of active objects (tapes, accumulators, ...) and, while that stack is non-empty, one
// OpObserver of that kind is on this thread's list. apply() tests one count per op and, when it
// is non-zero, notifies the list in kind order: tapes record the op first, then accumulators
// push it forward (the ops of a JVP must find the primal's tape entry already there), then
// variable watchers, then tracers. The list is copied before it is walked, since an observer
// runs ops that may open or close others.
#pragma once
#include "engine/registry.h"

namespace tg {

struct OpObserver {
  enum Kind { kTape, kAccumulator, kVariableWatcher, kTracer, kNumKinds };
  explicit OpObserver(Kind k) : kind(k) {}
  virtual ~OpObserver() = default;
  // Before the kernel of a stateful op (one that changes its Variable inputs).
  virtual void before_stateful_op(const Tensors&) {}
  // After the kernel: out is the op's result.
  virtual void after_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) = 0;
  const Kind kind;
};

// Adds an observer to this thread's list (kept in kind order); removing one not there is a no-op.
void add_observer(OpObserver* o);
void remove_observer(OpObserver* o);
// True when some observer is on this thread's list; observed(k): one of kind k.
bool any_observer();
bool observed(OpObserver::Kind k);

// Note [Sizes in traced rules]: a gradient rule that uses a size of its input as a number bakes it
// into a traced graph, which then cannot serve other sizes (Note [Relaxed graphs]: two traces that
// differ in a constant are not one graph, so the function is traced again per shape, and a
// dataset loop with a smaller last batch is refused). While a trace that serves sizes it does not
// see is recorded (an input_signature with None, a dataset loop's body), this thread's flag is set
// and such rules take the size from the run-time shape instead: Mean divides by a count computed
// from Shape(x), gradients are broadcast with BroadcastLike(g, t), reshapes infer the batch (-1).
// Other traces keep the constants, which fold and fuse.
// A relaxed trace is checked by tracing again at other sizes (Note [Verified relaxation] in
// _function.py); sizes that vary with the values of the arguments (after a value-shaped op, Note
// [Value-shaped ops] in registry.h) are not, so the tracer then sets a stronger mode (2) for the rest
// of the trace: the sweep also broadcasts and sums gradients at run time (SumToLike, never a lazy or
// uniform gradient), since a size of 1 or n at the trace may be any size at a later call, and the
// reductions' rules broadcast with BroadcastLike. On the Python side tf.shape, tf.size, zeros_like,
// ones_like and x[:, i] read the run-time shape of a tensor the tracer marks as varying
// (Tracer::varying, _core._varying_dims), and .shape gives None for the sizes that vary (Note
// [Varying dimensions] in graph/varying_dims.cpp).
bool sizes_at_run_time();                 // mode 1 or 2
bool sizes_vary_with_values();            // mode 2
int set_sizes_at_run_time(int mode);      // 0 off, 1 relaxed, 2 value-shaped; returns the previous mode

// Pushes onto a stack of active objects (tapes, tracers, ...): the kind's observer joins the
// list with the first one and leaves it with the last.
template <class T>
void push_observed(std::vector<T*>& s, T* item, OpObserver* o) {
  if (s.empty()) add_observer(o);
  s.push_back(item);
}

template <class T>
void pop_observed(std::vector<T*>& s, T* item, OpObserver* o) {
  for (size_t i = s.size(); i-- > 0;)
    if (s[i] == item) {
      s.erase(s.begin() + (long)i);
      break;
    }
  if (s.empty()) remove_observer(o);
}

}  // namespace tg
