// forward.cpp -- forward-mode autodiff (see forward.h): tangent bookkeeping and the per-op hook.
#include "engine/forward.h"
#include <algorithm>
#include <typeinfo>
#include "core/error.h"
#include "engine/math.h"
#include "engine/observer.h"

namespace tg {

namespace {

// The accumulators' observer (Note [Op observers]): on the list while one is active.
struct AccumulatorsObserver final : OpObserver {
  AccumulatorsObserver() : OpObserver(kAccumulator) {}
  void after_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) override {
    forward_op(op, x, attrs, out);
  }
};
AccumulatorsObserver g_accumulators_observer;

}  // namespace

void push_accumulator(Accumulator* a) { push_observed(active_accumulators(), a, &g_accumulators_observer); }
void pop_accumulator(Accumulator* a) { pop_observed(active_accumulators(), a, &g_accumulators_observer); }

void Accumulator::watch(const Tensor& primal, const Tensor& t) {
  if (!any_floating(primal->dtype))
    throw InvalidArgument(cat("ForwardAccumulator: primals must be float32 or float64, got ", meta_str(primal)));
  if (t->shape != primal->shape || t->dtype != primal->dtype)
    throw InvalidArgument(cat("ForwardAccumulator: the tangent ", meta_str(t), " does not match its primal ",
                              meta_str(primal), " (same shape and dtype required)"));
  set(primal, t);
}

Tensor Accumulator::tangent(const Tensor& t) const {
  const Slot* s = tangents.find(t->id);
  return s ? s->tangent : nullptr;
}

void Accumulator::set(const Tensor& primal, Tensor t) {
  auto slot = tangents.insert(primal->id);
  slot.first->primal = primal;
  slot.first->tangent = std::move(t);
  if (slot.second) ids.push_back(primal->id);
  if (tangents.size() >= prune_at) prune_dead();
}

// Intermediate tangents would otherwise live as long as the accumulator: drop those whose primal
// is gone (no later op can read them), and wait for the map to double again before the next pass.
void Accumulator::prune_dead() {
  IdMap<Slot> live;
  std::vector<int64_t> live_ids;
  for (int64_t id : ids) {
    Slot* s = tangents.find(id);
    if (s && !s->primal.expired()) {
      live.insert(id, std::move(*s));
      live_ids.push_back(id);
    }
  }
  tangents = std::move(live);
  ids = std::move(live_ids);
  prune_at = std::max<size_t>(4096, 2 * ids.size());
}

namespace {

// Pauses the accumulators stack[k:] (the one computing a JVP and every inner one); RAII.
struct PauseFrom {
  std::vector<Accumulator*> paused;
  PauseFrom(const std::vector<Accumulator*>& stack, size_t k) : paused(stack.begin() + (long)k, stack.end()) {
    for (Accumulator* a : paused) a->paused++;
  }
  ~PauseFrom() {
    for (Accumulator* a : paused) a->paused--;
  }
};

// J v = d/du <J^T u, v>: `vjp` maps output gradients u to input gradients and is linear in u, so
// the gradient of <vjp(u), v> with respect to u, taken under an internal tape, is J v (per output).
// u = ones rather than zeros: rules that return exactly zero where g == 0 stay linear around 1.
Tensors double_vjp(const std::function<Tensors(const Tensors&)>& vjp, const Tensors& x, const Tensors& outs,
                   const Tensors& tx) {
  Tape tape;
  Tensors u;
  for (auto& o : outs) {
    u.push_back(ones_like(o));
    tape.watch(u.back());
  }
  Tensor s;
  push_tape(&tape);
  try {
    Tensors r = vjp(u);
    for (size_t i = 0; i < r.size() && i < x.size(); ++i) {
      if (!r[i] || !tx[i]) continue;
      Tensor term = call("Sum", {sum_to(cast(r[i], tx[i]->dtype), x[i]->shape) * tx[i]});
      s = s ? s + term : term;
    }
  } catch (...) {
    pop_tape(&tape);
    throw;
  }
  pop_tape(&tape);
  if (!s) return Tensors(outs.size());
  GradientRequest req;
  req.targets = {s};
  req.sources = u;
  return gradient(tape, req);
}

Tensor op_jvp(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out, const Tensors& tx) {
  if (op.jvp_rule && grad_is_builtin(op)) return op.jvp_rule(x, out, tx, attrs);
  if (!op.grad) throw InvalidArgument(cat("no JVP (forward-mode) rule is defined for op '", op.name, "'"));
  std::vector<bool> needs(x.size());
  for (size_t i = 0; i < x.size(); ++i) needs[i] = tx[i] != nullptr;
  auto vjp = [&](const Tensors& u) {
    GradCtx ctx{x, out, u[0], attrs, needs, 0};
    return op.grad(ctx);
  };
  return double_vjp(vjp, x, {out}, tx)[0];
}

// A rule may return its tangent in a broadcastable shape or another float dtype.
Tensor fit(Tensor t, const Tensor& like) {
  if (t->dtype != like->dtype) t = cast(t, like->dtype);
  return broadcast_to(t, like->shape);
}

}  // namespace

bool any_tangent(const Tensors& x) {
  for (Accumulator* a : active_accumulators())
    if (!a->paused)
      for (auto& xi : x)
        if (xi && a->tangents.contains(xi->id)) return true;
  return false;
}

// The tangents a holds for the float inputs x (null where none); false when there are none.
static bool input_tangents(Accumulator& a, const Tensors& x, Tensors& tx) {
  tx.assign(x.size(), nullptr);
  bool any = false;
  for (size_t i = 0; i < x.size(); ++i)
    if (any_floating(x[i]->dtype) && (tx[i] = a.tangent(x[i]))) any = true;
  return any;
}

void forward_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) {
  if (!op.differentiable || !any_floating(out->dtype)) return;
  const std::vector<Accumulator*> stack = active_accumulators();  // a rule may push or pop
  for (size_t k = stack.size(); k-- > 0;) {
    Accumulator* a = stack[k];
    if (a->paused) continue;
    Tensors tx;
    if (!input_tangents(*a, x, tx)) continue;
    Tensor t;
    {
      PauseFrom pause(stack, k);
      t = op_jvp(op, x, attrs, out, tx);
      if (t) t = fit(t, out);
    }
    if (t) a->set(out, t);
  }
}

void forward_custom(const Tensors& x, const Tensors& outs, const CustomGradFn& fn) {
  const std::vector<Accumulator*> stack = active_accumulators();
  for (size_t k = stack.size(); k-- > 0;) {
    Accumulator* a = stack[k];
    if (a->paused) continue;
    Tensors tx;
    if (!input_tangents(*a, x, tx)) continue;
    Tensors t;
    {
      PauseFrom pause(stack, k);
      t = double_vjp(fn, x, outs, tx);
      for (size_t j = 0; j < t.size(); ++j)
        if (t[j]) t[j] = fit(t[j], outs[j]);
    }
    for (size_t j = 0; j < t.size() && j < outs.size(); ++j)
      if (t[j] && any_floating(outs[j]->dtype)) a->set(outs[j], t[j]);
  }
}

Tensor elementwise_jvp(const OpDef& op, const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& attrs) {
  Tensor total;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!tx[i]) continue;
    std::vector<bool> needs(x.size(), false);
    needs[i] = true;
    Tensor g = broadcast_to(tx[i], out->shape);
    GradCtx ctx{x, out, g, attrs, needs, 0};
    Tensors r = op.builtin_grad(ctx);
    if (i < r.size() && r[i]) total = total ? total + r[i] : r[i];
  }
  return total;
}

JvpFn linear_jvp(const char* name) {
  return [name](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& attrs) -> Tensor {
    if (!tx[0]) return nullptr;
    Tensors args = x;
    args[0] = tx[0];
    return call(name, args, attrs);
  };
}

PauseAccumulators::PauseAccumulators() : paused(active_accumulators()) {
  for (Accumulator* a : paused) a->paused++;
}
PauseAccumulators::~PauseAccumulators() { release(); }
void PauseAccumulators::release() {
  for (Accumulator* a : paused) a->paused--;
  paused.clear();
}

}  // namespace tg
