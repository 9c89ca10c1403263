// grad_graph.cpp -- building and running backward graphs (Note [Backward graphs] in grad_graph.h).
#include "graph/grad_graph.h"
#include <climits>
#include "core/error.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/tape.h"
#include "graph/executor.h"
#include "graph/fusion.h"
#include "graph/optimize.h"
#include "graph/trace.h"

namespace tg::graph {

namespace {

constexpr int kUnused = INT_MIN;  // a backward placeholder the optimized backward graph never reads

// Graphs whose calls can be one entry: no side effects (the build replays the forward once),
// exact shapes, float outputs computed by ops (an argument returned as is keeps its own id).
bool suitable(const Graph& g) {
  if (g.relaxed || g.outputs.empty() || g.has_control_flow) return false;  // Note [Control-flow nodes]
  for (auto& n : g.nodes)
    if (n.side_effect()) return false;
  for (int o : g.outputs)
    if (g.nodes[o].kind != NodeKind::Op || !any_floating(g.nodes[o].meta.dtype)) return false;
  return true;
}

// The graph with every fused node replaced by its member ops (Note [Fused nodes]), so that each
// value the gradient rules read is a node; the forward plan graph is fused again afterwards.
Graph unfused(const Graph& g) {
  Graph e;
  e.num_args = g.num_args;
  e.relaxed = g.relaxed;
  std::vector<int> at(g.nodes.size(), -1);  // g node -> e node
  std::vector<std::vector<int>> member_at(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (is_fused_output(n)) {  // output k of the fused node that is its input
      at[i] = member_at[n.inputs[0]].at((size_t)n.attrs.i("index"));
      continue;
    }
    if (!n.fused) {
      Node c = n;
      for (int& in : c.inputs) in = at[in];
      at[i] = (int)e.nodes.size();
      e.nodes.push_back(std::move(c));
      continue;
    }
    const FusedGroup& f = *n.fused;
    std::vector<int> mem(f.members.size());
    for (size_t m = 0; m < f.members.size(); ++m) {
      Node c = f.members[m];
      for (int& in : c.inputs) in = in >= 0 ? mem[in] : at[n.inputs[-1 - in]];
      mem[m] = (int)e.nodes.size();
      e.nodes.push_back(std::move(c));
    }
    for (int o : f.outputs) member_at[i].push_back(mem[o]);
    at[i] = member_at[i][0];
  }
  for (int o : g.outputs) e.outputs.push_back(at[o]);
  e.finalize();
  return e;
}

}  // namespace

bool wants_single_entry(const Graph& g, const Tensors& args) {
  if (tracing() || !variable_watchers().empty() || !active_accumulators().empty()) return false;
  if (active_tapes().size() != 1) return false;
  return should_record(args) || should_record(g.variables);
}

namespace {

// The sources of the plan: the float arguments, then the trainable float variables.
Tensors plan_sources(BackwardPlan& plan, const Graph& g, const Tensors& args) {
  Tensors sources;
  for (size_t i = 0; i < args.size(); ++i)
    if (any_floating(args[i]->dtype)) {
      plan.source_arg.push_back((int)i);
      sources.push_back(args[i]);
    }
  for (auto& v : g.variables)
    if (v->trainable && any_floating(v->dtype)) {
      plan.source_arg.push_back(-1 - (int)plan.variables.size());
      plan.variables.push_back(v);
      sources.push_back(v);
    }
  return sources;
}

// The forward run of step 1: every valued node of g an output of `all`, vals[pos[node]] its value.
struct ForwardRun {
  Graph all;
  Tensors vals;
  std::vector<int> pos;
};

// 1. The forward, op by op on a private tape, every valued node an output.
ForwardRun run_forward(const Graph& g, const Tensors& args, Tape& tape) {
  ForwardRun f{g, {}, std::vector<int>(g.nodes.size(), -1)};
  f.all.outputs.clear();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    NodeKind k = g.nodes[i].kind;
    if (k == NodeKind::Placeholder || k == NodeKind::VariableRead || k == NodeKind::Op) f.all.outputs.push_back((int)i);
  }
  f.all.finalize();
  {
    ActiveTape recording(&tape);
    f.vals = run_graph(f.all, args, true);
  }
  for (size_t k = 0; k < f.all.outputs.size(); ++k) {
    int i = f.all.outputs[k];
    if (g.nodes[i].kind == NodeKind::VariableRead) f.vals[k] = g.nodes[i].value;  // its id is the variable's
    f.pos[i] = (int)k;
  }
  return f;
}

// 2. Its gradient, traced with every forward value and upstream gradient a placeholder.
// saved_node: per backward argument, the forward node or -1 - output index. False when the
// backward graph would capture a value of this forward run as a constant (stale at the next call).
bool trace_backward(BackwardPlan& plan, const Graph& g, const ForwardRun& f, Tape& tape, const Tensors& sources,
                    Tracer& tr, std::vector<int>& saved_node) {
  for (size_t k = 0; k < f.vals.size(); ++k) {
    if (tr.node_of.count(f.vals[k]->id)) continue;
    tr.placeholder(f.vals[k], "saved");
    saved_node.push_back(f.all.outputs[k]);
  }
  GradientRequest req;
  for (size_t j = 0; j < g.outputs.size(); ++j) {
    const Tensor& y = f.vals[f.pos[g.outputs[j]]];
    Tensor u = full(y->shape, y->dtype, 1.0);
    tr.placeholder(u, "upstream");
    saved_node.push_back(-1 - (int)j);
    req.targets.push_back(y);
    req.output_gradients.push_back(u);
  }
  req.sources = sources;
  const int64_t first_new_id = next_tensor_id();  // tensors made by the gradient rules have larger ids
  Tensors grads;
  {
    ActiveTracer tracing(&tr);
    grads = gradient(tape, req);
  }
  for (auto& gr : grads) {
    plan.grad_of_source.push_back(gr ? (int)tr.g.outputs.size() : -1);
    if (gr) tr.g.outputs.push_back(tr.input_node(gr));
  }
  tr.node_of.clear();
  IdSet constants;
  for (auto& n : g.nodes)
    if (n.kind == NodeKind::Constant) constants.insert(n.value->id);
  for (auto& n : tr.g.nodes)
    if (n.kind == NodeKind::Constant && n.value->id < first_new_id && !constants.contains(n.value->id)) return false;
  optimize(tr.g);
  return true;
}

// 3. The forward graph also returns the saved values the backward graph reads.
void add_saved_outputs(BackwardPlan& plan, const Graph& g, const Graph& backward, const std::vector<int>& saved_node) {
  std::vector<bool> used(backward.num_args, false);
  for (auto& n : backward.nodes)
    for (int in : n.inputs)
      if (backward.nodes[in].kind == NodeKind::Placeholder) used[backward.nodes[in].arg] = true;
  for (int o : backward.outputs)
    if (backward.nodes[o].kind == NodeKind::Placeholder) used[backward.nodes[o].arg] = true;
  plan.num_outputs = g.outputs.size();
  plan.forward = std::make_shared<Graph>(g);
  for (size_t a = 0; a < saved_node.size(); ++a) {
    if (saved_node[a] < 0) {
      plan.arg_slot.push_back(saved_node[a]);
    } else if (!used[a]) {
      plan.arg_slot.push_back(kUnused);
    } else {
      plan.arg_slot.push_back((int)plan.forward->outputs.size());
      plan.forward->outputs.push_back(saved_node[a]);
    }
  }
  optimize(*plan.forward);  // fuses again, keeping every saved value an output
}

}  // namespace

std::shared_ptr<BackwardPlan> build_backward_plan(const Graph& fused_graph, const Tensors& args) {
  if (!suitable(fused_graph)) return nullptr;
  const Graph g = unfused(fused_graph);
  auto plan = std::make_shared<BackwardPlan>();
  // Each argument gets an id of its own: a tensor passed twice (f(x, x)) is two sources here, each
  // getting the gradient of its own placeholder, which the call's entry then sums once.
  Tensors distinct;
  for (auto& a : args) distinct.push_back(view(a, a->shape));
  const Tensors sources = plan_sources(*plan, g, distinct);
  if (sources.empty()) return nullptr;
  PauseAllTapes pause;  // the caller's tape sees none of this
  Tape tape;
  for (auto& s : sources) tape.watch(s);
  const ForwardRun f = run_forward(g, distinct, tape);
  Tracer tr;
  std::vector<int> saved_node;
  if (!trace_backward(*plan, g, f, tape, sources, tr, saved_node)) return nullptr;
  add_saved_outputs(*plan, g, tr.g, saved_node);
  plan->backward = std::make_shared<Graph>(std::move(tr.g));
  return plan;
}

Tensors run_with_single_entry(const std::shared_ptr<const BackwardPlan>& plan, const Tensors& args) {
  Tensors all = run_graph(*plan->forward, args, false);
  Tensors outs(all.begin(), all.begin() + (long)plan->num_outputs);
  Tensors x;
  for (int s : plan->source_arg) x.push_back(s >= 0 ? args[s] : plan->variables[-1 - s]);
  auto fn = std::make_shared<CustomGradFn>([plan, all = std::move(all)](const Tensors& out_grads) {
    Tensors bargs;
    bargs.reserve(plan->arg_slot.size());
    for (int slot : plan->arg_slot)
      bargs.push_back(slot >= 0 ? all[slot] : slot == kUnused ? nullptr : out_grads[-1 - slot]);
    Tensors r = run_graph(*plan->backward, bargs, needs_eager(*plan->backward, bargs));
    Tensors res;
    for (int k : plan->grad_of_source) res.push_back(k >= 0 ? r[k] : nullptr);
    return res;
  });
  record_custom(x, outs, fn);
  return outs;
}

}  // namespace tg::graph
