// tape.cpp -- watching and recording; the entries are consumed by backprop.cpp.
#include "engine/tape.h"
#include <unordered_set>
#include "core/error.h"
#include "engine/eager.h"
#include "engine/observer.h"

namespace tg {

namespace {

// The tapes' and the variable watchers' observers (Note [Op observers]).
struct TapesObserver final : OpObserver {
  TapesObserver() : OpObserver(kTape) {}
  void after_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) override {
    if (op.differentiable) record_op(op, x, attrs, out);
  }
};
TapesObserver g_tapes_observer;

struct WatchersObserver final : OpObserver {
  WatchersObserver() : OpObserver(kVariableWatcher) {}
  void after_op(const OpDef&, const Tensors& x, const Attrs&, const Tensor&) override { note_variables(x); }
};
WatchersObserver g_watchers_observer;

}  // namespace

std::vector<Tape*>& active_tapes() {
  thread_local std::vector<Tape*> stack;
  return stack;
}

void push_tape(Tape* t) { push_observed(active_tapes(), t, &g_tapes_observer); }
void pop_tape(Tape* t) { pop_observed(active_tapes(), t, &g_tapes_observer); }

bool any_tape_recording() {
  for (Tape* t : active_tapes())
    if (!t->paused) return true;
  return false;
}

void Tape::watch(const Tensor& t) {
  if (tracked.insert(t->id).second && t->is_variable) watched_variables.push_back(t);
}

void Tape::reset() {
  entries.clear();
  tracked.clear();
  watched_variables.clear();
  used = false;
}

size_t Tape::nbytes() const {
  std::unordered_set<const Storage*> seen;  // views share storage: count it once
  size_t n = 0;
  auto count = [&](const Tensor& t) {
    if (t && t->storage && seen.insert(t->storage.get()).second) n += t->storage->nbytes;
  };
  for (auto& e : entries) {
    for (auto& t : e.inputs) count(t);
    for (auto& t : e.outputs) count(t);
  }
  return n;
}

// Does tape t record an op on x? Reading a trainable variable watches it when
// watch_accessed_variables is on (TensorFlow semantics).
static bool tape_wants(Tape* t, const Tensors& x) {
  if (t->paused) return false;
  bool hit = false;
  for (auto& xi : x) {
    if (!xi) continue;
    if (t->tracked.contains(xi->id)) hit = true;
    else if (xi->is_variable && xi->trainable && t->watch_accessed_variables) {
      t->watch(xi);
      hit = true;
    }
  }
  return hit;
}

bool should_record(const Tensors& x) {
  for (Tape* t : active_tapes())
    if (!t->paused) {
      for (auto& xi : x)
        if (xi && (t->tracked.contains(xi->id) || (xi->is_variable && xi->trainable && t->watch_accessed_variables)))
          return true;
    }
  return false;
}

// A variable's value may later change in place; the tape keeps the value it read, under the
// variable's id so that rules run on it are still connected to the variable (nested tapes).
static Tensor saved_value(const Tensor& t) {
  if (!t || !t->is_variable) return t;
  Tensor v = view(t, t->shape);
  v->id = t->id;
  return v;
}

// Fills a new entry in place (no temporary entry to move: recording is on every op's path).
static TapeEntry& add_entry(Tape* t, const Tensors& x) {
  TapeEntry& e = (t->sink ? *t->sink : t->entries).emplace_back();
  if (g_check_numerics && g_call_site) e.site = g_call_site();
  e.inputs.reserve(x.size());
  for (auto& xi : x) e.inputs.push_back(saved_value(xi));
  return e;
}

void record_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) {
  for (Tape* t : active_tapes()) {
    if (!tape_wants(t, x)) continue;
    TapeEntry& e = add_entry(t, x);
    e.outputs.push_back(out);
    e.op = &op;
    if (!attrs.items.empty()) e.attrs = attrs;
    t->tracked.insert(out->id);
  }
}

void record_custom(const Tensors& x, const Tensors& outs, std::shared_ptr<CustomGradFn> fn) {
  for (Tape* t : active_tapes()) {
    if (!tape_wants(t, x)) continue;
    TapeEntry& e = add_entry(t, x);
    e.outputs.assign(outs.begin(), outs.end());
    e.custom = fn;
    for (auto& o : outs) t->tracked.insert(o->id);
  }
}

PauseAllTapes::PauseAllTapes() : paused(active_tapes()) {
  for (Tape* t : paused) t->paused++;
}
PauseAllTapes::~PauseAllTapes() { release(); }
void PauseAllTapes::release() {
  for (Tape* t : paused) t->paused--;
  paused.clear();
}

std::vector<VariableWatcher*>& variable_watchers() {
  thread_local std::vector<VariableWatcher*> stack;
  return stack;
}

void push_variable_watcher(VariableWatcher* w) { push_observed(variable_watchers(), w, &g_watchers_observer); }
void pop_variable_watcher(VariableWatcher* w) { pop_observed(variable_watchers(), w, &g_watchers_observer); }

void note_variables(const Tensors& x) {
  for (auto& xi : x) {
    if (!xi->is_variable || !xi->trainable) continue;
    for (VariableWatcher* w : variable_watchers()) {
      bool known = false;
      for (auto& v : w->seen) known |= v.get() == xi.get();
      if (!known) w->seen.push_back(xi);
    }
  }
}

}  // namespace tg
