// tape.h -- tape state only: recorded entries, tracked tensor ids, and the stack of active tapes.
//
// Terminology: an *entry* is one recorded op (or custom-gradient call). A tape *tracks* a
// tensor id when the id was watched or is the output of an entry on that tape; an op is
// recorded on every active tape that tracks one of its inputs, and on no other.
#pragma once
#include <functional>
#include <memory>
#include "engine/id_map.h"
#include "engine/registry.h"

namespace tg {

// A custom gradient (custom_gradient, recompute_grad): output gradients -> input gradients.
using CustomGradFn = std::function<Tensors(const Tensors& out_grads)>;

// Inputs and outputs are saved by value; their ids (and shapes) are read from them.
// A variable is saved as a snapshot carrying the variable's id (see saved_value in tape.cpp).
struct TapeEntry {
  const OpDef* op = nullptr;          // null for a custom entry
  std::shared_ptr<CustomGradFn> custom;
  Attrs attrs;
  // Dropped by a non-persistent sweep once the rule has run. Inline (no allocation) for an op's
  // one output and up to two inputs.
  SmallVector<Tensor, 2> inputs;
  SmallVector<Tensor, 1> outputs;
  std::string site;                   // the Python line that ran the op (only under check_numerics)
};

struct Tape {
  bool persistent = false;
  bool watch_accessed_variables = true;
  bool used = false;                  // a non-persistent tape computed its gradient
  int paused = 0;                     // stop_recording depth; also set during gradient()
  IdSet tracked;
  std::vector<TapeEntry> entries;
  // While a sweep of this recording tape runs, new entries go here (Note [Gradients inside the context]).
  std::vector<TapeEntry>* sink = nullptr;
  Tensors watched_variables;

  void watch(const Tensor& t);
  void reset();
  size_t nbytes() const;              // bytes of saved tensors
};

// The active tapes of this thread, innermost last. While it is non-empty the tapes observe op
// application (Note [Op observers] in observer.h): apply() records each differentiable op.
std::vector<Tape*>& active_tapes();
void push_tape(Tape* t);
void pop_tape(Tape* t);  // no-op when t is not active
bool any_tape_recording();

// Makes a tape active for a scope.
struct ActiveTape {
  Tape* t;
  explicit ActiveTape(Tape* tape) : t(tape) { push_tape(t); }
  ~ActiveTape() { pop_tape(t); }
  ActiveTape(const ActiveTape&) = delete;
  ActiveTape& operator=(const ActiveTape&) = delete;
};

// Records a primitive op on each active tape that tracks one of x.
void record_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out);
// Records a custom entry: the outputs get their gradients from fn.
void record_custom(const Tensors& x, const Tensors& outs, std::shared_ptr<CustomGradFn> fn);
// True when an active tape would record an op on x.
bool should_record(const Tensors& x);

// Pauses every active tape (custom_gradient runs its function this way); RAII.
struct PauseAllTapes {
  std::vector<Tape*> paused;
  PauseAllTapes();
  ~PauseAllTapes();
  void release();  // resumes them now
};

// Collects the trainable variables read by ops while it is active (custom_gradient's
// `variables=`); active watchers observe op application and note every variable input.
struct VariableWatcher {
  Tensors seen;
};
std::vector<VariableWatcher*>& variable_watchers();
void push_variable_watcher(VariableWatcher* w);
void pop_variable_watcher(VariableWatcher* w);  // no-op when w is not active
void note_variables(const Tensors& x);

// backprop.cpp
struct GradientRequest {
  Tensors targets, sources, output_gradients;  // output_gradients: empty or one per target
  bool unconnected_zero = false;
  int batch = 0;           // 1: output_gradients carry a leading batch axis (jacobian)
  bool keep_tape = false;  // a non-persistent tape stays usable (the rows of a jacobian)
  // Note [Final gradients]: a source's gradient is final once the sweep has run the rule of the
  // oldest entry that reads it. When on_final is set (unbatched sweeps only), on_order is called
  // once before the sweep with the indices of the connected sources in the order their gradients
  // will become final, and on_final(i, g) as soon as source i's gradient is final (null for a
  // rule that gave none), so a caller can start communicating it while the sweep goes on. The
  // order depends only on the tape, so processes running the same program agree on it.
  std::function<void(const std::vector<size_t>&)> on_order;
  std::function<void(size_t, const Tensor&)> on_final;
};
Tensors gradient(Tape& tape, const GradientRequest& req);
// The gradient of one target with respect to one source with the default options (null when
// unconnected): the same sweep without a request to build (GradientTape.gradient(y, x)).
Tensor gradient(Tape& tape, const Tensor& target, const Tensor& source);

}  // namespace tg
