// backprop.cpp -- the reverse sweep over one tape.
//
// Terminology: entry = one recorded op; target = y in dy/dx; source = x; id = the stable
// int64 of a tensor. Algorithm: 1) prune: keep the entries on a path from a source to a
// target (forward pass marks ids reachable from sources, backward pass keeps entries whose
// outputs are needed); 2) seed each target with ones (or output_gradients); 3) walk the kept
// entries newest-first, hand each rule its upstream gradient and add what it returns into
// grads[id], in one place (accumulate). A non-persistent tape drops an entry's saved values
// as soon as its rule has run. While the sweep runs the tape records nothing on itself, but
// outer tapes record the ops the rules run: that is what makes nested tapes differentiate.
//
// Note [Broadcast reduction]: rules return gradients in the broadcast shape of the op's
// output; accumulate() sums them back to the input's shape once, here, for every rule.
#include <algorithm>
#include <unordered_map>
#include "core/error.h"
#include "engine/math.h"
#include "engine/tape.h"

namespace tg {

namespace {

struct Pruned {
  std::vector<size_t> entries;                  // indices into tape.entries, oldest first
  std::unordered_set<int64_t> from_sources;     // ids that depend on a source
};

Pruned prune(const Tape& tape, const GradientRequest& req) {
  Pruned p;
  for (auto& s : req.sources) p.from_sources.insert(s->id);
  std::vector<size_t> reachable;
  for (size_t i = 0; i < tape.entries.size(); ++i) {
    auto& e = tape.entries[i];
    for (int64_t id : e.in_ids)
      if (p.from_sources.count(id)) {
        for (int64_t o : e.out_ids) p.from_sources.insert(o);
        reachable.push_back(i);
        break;
      }
  }
  std::unordered_set<int64_t> needed;
  for (auto& t : req.targets) needed.insert(t->id);
  for (size_t k = reachable.size(); k-- > 0;) {
    auto& e = tape.entries[reachable[k]];
    bool use = false;
    for (int64_t o : e.out_ids) use |= needed.count(o) > 0;
    if (!use) continue;
    p.entries.push_back(reachable[k]);
    for (int64_t id : e.in_ids) needed.insert(id);
  }
  std::reverse(p.entries.begin(), p.entries.end());
  return p;
}

using GradMap = std::unordered_map<int64_t, Tensor>;

void accumulate(GradMap& grads, int64_t id, Tensor g, const OutMeta& meta) {
  g = sum_to(g, meta.shape);
  if (g->dtype != meta.dtype) g = cast(g, meta.dtype);
  auto it = grads.find(id);
  if (it == grads.end()) grads.emplace(id, std::move(g));
  else it->second = it->second + g;
}

void initial_grads(GradMap& grads, const GradientRequest& req) {
  for (size_t i = 0; i < req.targets.size(); ++i) {
    const Tensor& t = req.targets[i];
    Tensor seed = req.output_gradients.empty() || !req.output_gradients[i] ? ones_like(t)
                                                                            : req.output_gradients[i];
    if (seed->shape != t->shape)
      seed = broadcast_to(seed, t->shape);
    accumulate(grads, t->id, seed, {t->shape, t->dtype});
  }
}

Tensors run_rule(TapeEntry& e, const Tensors& out_grads, const std::vector<bool>& needs) {
  if (e.custom) return (*e.custom)(out_grads);
  const OpDef& op = *e.op;
  if (!op.grad) throw InvalidArgument(cat("no gradient is defined for op '", op.name, "'"));
  GradCtx ctx{e.inputs, e.outputs[0], out_grads[0], e.attrs, needs};
  return op.grad(ctx);
}

void sweep(Tape& tape, const Pruned& p, GradMap& grads, const std::unordered_set<int64_t>& keep) {
  for (size_t k = p.entries.size(); k-- > 0;) {
    TapeEntry& e = tape.entries[p.entries[k]];
    Tensors out_grads;
    bool any = false;
    for (size_t j = 0; j < e.out_ids.size(); ++j) {
      auto it = grads.find(e.out_ids[j]);
      if (it != grads.end()) {
        out_grads.push_back(it->second);
        any = true;
        if (!keep.count(e.out_ids[j])) grads.erase(it);
      } else {
        out_grads.push_back(e.outputs.size() > j && e.outputs[j] ? zeros_like(e.outputs[j]) : nullptr);
      }
    }
    if (!any) continue;
    std::vector<bool> needs(e.in_ids.size());
    for (size_t i = 0; i < needs.size(); ++i)
      needs[i] = p.from_sources.count(e.in_ids[i]) && is_floating(e.in_meta[i].dtype);
    Tensors in_grads = run_rule(e, out_grads, needs);
    if (in_grads.size() > e.in_ids.size())
      throw InvalidArgument(cat(e.op ? e.op->name : std::string("custom_gradient"), ": the gradient function returned ",
                                in_grads.size(), " gradients for ", e.in_ids.size(), " inputs"));
    for (size_t i = 0; i < in_grads.size(); ++i)
      if (in_grads[i] && needs[i]) accumulate(grads, e.in_ids[i], in_grads[i], e.in_meta[i]);
    if (!tape.persistent) {
      e.inputs.clear();
      e.outputs.clear();
    }
  }
}

}  // namespace

Tensors gradient(Tape& tape, const GradientRequest& req) {
  if (tape.used)
    throw TapeMisuse("A non-persistent GradientTape can only be used to compute one set of gradients "
                     "(or jacobians)");
  Pruned p = prune(tape, req);
  std::unordered_set<int64_t> keep;
  for (auto& s : req.sources) keep.insert(s->id);
  GradMap grads;
  tape.paused++;
  try {
    initial_grads(grads, req);
    sweep(tape, p, grads, keep);
  } catch (...) {
    tape.paused--;
    if (!tape.persistent) tape.used = true;
    throw;
  }
  tape.paused--;
  if (!tape.persistent) {
    tape.used = true;
    tape.entries.clear();
  }
  Tensors result;
  for (auto& s : req.sources) {
    auto it = grads.find(s->id);
    bool integral = !is_floating(s->dtype);
    if (it != grads.end() && !integral) result.push_back(it->second);
    else if (req.unconnected_zero && !integral) result.push_back(zeros_like(s));
    else result.push_back(nullptr);
  }
  return result;
}

}  // namespace tg
