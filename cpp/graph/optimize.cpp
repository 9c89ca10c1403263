// optimize.cpp -- constant folding, common-subexpression elimination and dead-node pruning.
//
// Every pass keeps the node list in execution order and never moves a node across a side
// effect (Assign, HostCall), so reads of a variable before and after an assignment stay
// apart (the tracer gives each a separate VariableRead node; see trace.cpp).
#include "graph/optimize.h"
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include "core/error.h"
#include "core/flush_denormal.h"
#include "graph/fusion.h"
#include "graph/trace.h"

namespace tg::graph {

// Folded constants larger than this stay ops: a huge constant costs memory on every trace.
constexpr int64_t kMaxFoldElements = int64_t(1) << 22;
constexpr int64_t kFoldExpandMax = int64_t(1) << 14;

// Keeps the nodes marked in keep and renumbers inputs and outputs; remap[old] = new or -1.
static void compact(Graph& g, const std::vector<int>& replace, const std::vector<bool>& keep) {
  std::vector<int> remap(g.nodes.size(), -1);
  std::vector<Node> out;
  out.reserve(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!keep[i]) continue;
    Node n = std::move(g.nodes[i]);
    for (int& in : n.inputs) in = remap[replace[in]];
    remap[i] = (int)out.size();
    out.push_back(std::move(n));
  }
  for (int& o : g.outputs) o = remap[replace[o]];
  g.nodes = std::move(out);
}

OptimizeStats fold_constants(Graph& g) {
  OptimizeStats s;
  for (auto& n : g.nodes) {
    if (n.kind != NodeKind::Op || n.dynamic || n.inputs.empty()) continue;
    bool all_const = true;
    for (int in : n.inputs) all_const &= g.nodes[in].kind == NodeKind::Constant;
    if (!all_const || num_elements(n.meta.shape) > kMaxFoldElements) continue;
    Tensors x;
    int64_t in_size = 0;
    for (int in : n.inputs) {
      x.push_back(g.nodes[in].value);
      in_size += g.nodes[in].value->size;
    }
    // A broadcast of a small constant stays an op: a big folded constant is read from memory
    // at every call, while the op's consumers would otherwise see a cheap broadcast.
    if (num_elements(n.meta.shape) > std::max<int64_t>(in_size, kFoldExpandMax)) continue;
    ScopedFlushDenormal ftz;  // a folded constant has the value the op would give at run time
    n.value = n.op->kernel(*n.op, x, n.attrs, n.op->infer(*n.op, x, n.attrs));
    n.kind = NodeKind::Constant;
    n.op = nullptr;
    n.attrs = {};
    n.inputs.clear();
    ++s.folded;
  }
  return s;
}

// Whether node i is a constant of ones, as is or broadcast/reshaped (the seed of a gradient).
static bool is_ones(const Graph& g, int i) {
  while (g.nodes[i].kind == NodeKind::Op && g.nodes[i].inputs.size() == 1 &&
         (g.nodes[i].op->name == "BroadcastTo" || g.nodes[i].op->name == "Reshape" ||
          g.nodes[i].op->name == "Identity"))
    i = g.nodes[i].inputs[0];
  const Node& n = g.nodes[i];
  if (n.kind != NodeKind::Constant || n.value->size > 64) return false;
  const Tensor one = full({}, n.value->dtype, 1.0);
  for (int64_t k = 0; k < n.value->size; ++k)
    if (std::memcmp(static_cast<const char*>(n.value->data()) + k * dtype_size(one->dtype), one->data(), dtype_size(one->dtype)))
      return false;
  return true;
}

OptimizeStats simplify_arithmetic(Graph& g) {
  OptimizeStats s;
  std::vector<int> replace(g.nodes.size());
  std::vector<bool> keep(g.nodes.size(), true);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    replace[i] = (int)i;
    Node& n = g.nodes[i];
    for (int& in : n.inputs) in = replace[in];
    if (n.kind != NodeKind::Op || n.op->name != "Mul" || n.inputs.size() != 2) continue;
    // x * ones is x when it has x's shape and dtype (a relaxed dimension of x stays one of x).
    // A variable read stays copied: the read is by reference, the product a value of that moment.
    for (int k = 0; k < 2; ++k) {
      const Node& x = g.nodes[n.inputs[k]];
      if (x.kind == NodeKind::VariableRead || x.kind == NodeKind::Assign || x.kind == NodeKind::HostCall) continue;
      if (!is_ones(g, n.inputs[1 - k]) || x.meta.dtype != n.meta.dtype || x.meta.shape != n.meta.shape) continue;
      bool exact = true;
      for (int64_t d : n.meta.shape) exact &= d >= 0;
      if (!exact && num_elements(g.nodes[n.inputs[1 - k]].meta.shape) != 1) continue;
      replace[i] = n.inputs[k];
      keep[i] = false;
      ++s.simplified;
      break;
    }
  }
  compact(g, replace, keep);
  return s;
}

// The identity of a node's computation: op, attributes and inputs (or a small constant's bytes).
static bool cse_key(const Graph& g, const Node& n, std::string& key) {
  key.clear();
  auto put = [&](const void* p, size_t len) { key.append(static_cast<const char*>(p), len); };
  if (n.kind == NodeKind::Constant) {
    if (n.value->nbytes() > 64) return false;
    key = "c";
    put(&n.value->dtype, 1);
    for (int64_t d : n.value->shape) put(&d, 8);
    key += "|";
    put(n.value->data(), n.value->nbytes());
    return true;
  }
  if (n.kind != NodeKind::Op || n.op->stateful) return false;  // each stateful call is its own
  key = "o" + n.op->name + "|" + attrs_text(n.attrs) + "|";
  for (int in : n.inputs) put(&in, sizeof in);
  return true;
}

OptimizeStats eliminate_common(Graph& g) {
  OptimizeStats s;
  std::vector<int> replace(g.nodes.size());
  std::unordered_map<std::string, int> seen;
  std::string key;
  std::vector<bool> keep(g.nodes.size(), true);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    replace[i] = (int)i;
    Node& n = g.nodes[i];
    for (int& in : n.inputs) in = replace[in];
    if (!cse_key(g, n, key)) continue;
    auto [it, fresh] = seen.emplace(key, (int)i);
    if (!fresh) {
      replace[i] = it->second;
      keep[i] = false;
      ++s.merged;
    }
  }
  compact(g, replace, keep);
  return s;
}

OptimizeStats prune_dead(Graph& g) {
  OptimizeStats s;
  std::vector<bool> live(g.nodes.size(), false);
  for (int o : g.outputs) live[o] = true;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    if (n.side_effect() || n.kind == NodeKind::Placeholder) live[i] = true;
    if (!live[i]) continue;
    for (int in : n.inputs) live[in] = true;
  }
  std::vector<int> same(g.nodes.size());
  for (size_t i = 0; i < same.size(); ++i) {
    same[i] = (int)i;
    s.pruned += !live[i];
  }
  compact(g, same, live);
  return s;
}

OptimizeStats optimize(Graph& g) {
  OptimizeStats total;
  OptimizeStats a = fold_constants(g), d = simplify_arithmetic(g), b = eliminate_common(g), c = prune_dead(g);
  total.folded = a.folded;
  total.simplified = d.simplified;
  total.merged = b.merged;
  total.pruned = c.pruned;
  total.fused = fuse_epilogues(g);  // before the elementwise pass takes the Add and Relu
  total.fused += fuse_elementwise(g);
  g.finalize();
  return total;
}

}  // namespace tg::graph
