// call_policy.cpp -- tf.function's call path in C++: keys, the cache, and the route of a call.
#include "graph/call_policy.h"
#include <exception>
#include "graph/executor.h"

namespace tg::graph {

void CallKey::clear() {
  bytes.clear();
  tensors.clear();
}

void CallKey::add_float(double v) {
  bytes += 'f';
  bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void CallKey::add_int(int64_t v) {
  bytes += 'i';
  bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void CallKey::add_bool(bool v) { bytes += v ? 'T' : 'F'; }

void CallKey::add_none() { bytes += 'n'; }

void CallKey::add_tensor(const Tensor& t) {
  if (t->is_variable) {
    const void* p = t.get();
    bytes += 'v';
    bytes.append(reinterpret_cast<const char*>(&p), sizeof p);
    return;
  }
  bytes += 't';
  bytes += (char)t->dtype;
  bytes += (char)t->shape.size();
  for (int64_t d : t->shape) bytes.append(reinterpret_cast<const char*>(&d), sizeof d);
  tensors.push_back(t);
}

Route ConcreteGraph::route(const Tensors& args) const {
  if (!needs_eager(*g, args)) return Route::kGraph;
  if ((plan || !plan_tried) && wants_single_entry(*g, args)) return Route::kSingleEntry;
  return Route::kEager;
}

Tensors ConcreteGraph::run(Route r, const Tensors& args) const {
  if (r == Route::kGraph) return run_graph(*g, args, false);
  if (r == Route::kSingleEntry && !plan_tried) {
    plan_tried = true;
    try {
      plan = build_backward_plan(*g, args);
    } catch (const std::exception&) {
      plan = nullptr;  // a gradient rule failed while building: keep the op-by-op replay
    }
  }
  if (r == Route::kSingleEntry && plan) return run_with_single_entry(plan, args);
  return run_graph(*g, args, true);
}

const ConcreteGraph* CallCache::find(const CallKey& key) const {
  auto it = memo.find(key.bytes);
  return it == memo.end() ? nullptr : it->second.get();
}

bool CallCache::insert(const CallKey& key, std::shared_ptr<ConcreteGraph> c) {
  if ((int)key.tensors.size() != c->g->num_args) return false;
  memo[key.bytes] = std::move(c);
  return true;
}

}  // namespace tg::graph
