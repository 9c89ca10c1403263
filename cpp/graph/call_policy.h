// call_policy.h -- how a tf.function call runs: its cache key, the cache of concrete graphs, the route.
//
// Note [Call keys]: a call whose arguments are all positional tensors, Variables, numbers, bools
// and None has a key computed here: a tensor by dtype and shape (its value is an argument of the
// graph), a Variable by identity (the graph reads it), a Python value by type and value (it was
// frozen into the trace). A hit runs the cached graph without Python; any other call, and a miss,
// goes to the Python side, which computes its own signature and traces.
//
// A cached graph takes one of three routes: the graph alone when nothing observes its ops
// (needs_eager is false); one tape entry for the whole call when a single tape records it (Note
// [Backward graphs], its plan built at the first such call); else op by op through apply().
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include "graph/grad_graph.h"

namespace tg::graph {

// Built one argument at a time (See Note [Call keys]).
struct CallKey {
  std::string bytes;
  Tensors tensors;  // the graph's arguments, in order

  void clear();
  void add_float(double v);
  void add_int(int64_t v);
  void add_bool(bool v);
  void add_none();
  void add_tensor(const Tensor& t);
};

enum class Route { kGraph, kSingleEntry, kEager };

// One traced graph and its call policy.
struct ConcreteGraph {
  std::shared_ptr<Graph> g;
  // Note [Backward graphs]: built at the first call under one tape; null if unsuitable.
  mutable std::shared_ptr<const BackwardPlan> plan;
  mutable bool plan_tried = false;

  virtual ~ConcreteGraph() = default;
  Route route(const Tensors& args) const;
  Tensors run(Route r, const Tensors& args) const;
};

// A Function's concrete graphs by call key.
struct CallCache {
  std::unordered_map<std::string, std::shared_ptr<ConcreteGraph>> memo;

  const ConcreteGraph* find(const CallKey& key) const;  // null on a miss
  // False (nothing cached) when the key's tensors are not the graph's arguments.
  bool insert(const CallKey& key, std::shared_ptr<ConcreteGraph> c);
};

}  // namespace tg::graph
