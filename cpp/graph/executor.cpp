// executor.cpp -- running a graph's nodes in order; each value is dropped after its last use.
//
// Buffer reuse: an intermediate value whose last use is the node being run, and that nothing
// else holds (no view, no tape, not an argument, constant or variable), is *donated*: an
// elementwise node or a fused node writes its output into that buffer instead of a new one.
// Freed buffers go back to the allocator's block cache (core/allocator.cpp), so the next
// call's values of the same sizes reuse them without page faults.
//
// Note [Donated loop variables]: a while loop hands its loop variables to the body graph
// (run_graph_donating): the body's placeholders then own them, and a loop variable whose last use
// is an op that can write into its input (OpDef::in_place: SetRow) and that nothing else holds (the
// loop keeps no history, no tape saved it, it is not the loop's initial value) is written in place.
// So a loop that writes row i of a [n, ...] buffer at iteration i costs O(n) rows, not O(n^2).
#include "graph/executor.h"
#include <algorithm>
#include <atomic>
#include "core/error.h"
#include "core/flush_denormal.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/tape.h"
#include "graph/control_flow.h"
#include "graph/fusion.h"
#include "graph/trace.h"
#include "kernels/elementwise.h"
#include "kernels/ew_args.h"
#include "kernels/kernel_table.h"

namespace tg::graph {

void assign_into(const Tensor& var, const Tensor& value, int mode) {
  Tensor v = value;
  if (v->dtype != var->dtype)
    throw InvalidArgument(cat("assign: value of ", meta_str(v), " does not match variable of ", meta_str(var)));
  if (mode != 0) {
    const OpDef& op = op_def(mode == 1 ? "Add" : "Sub");
    Tensors x = {view(var, var->shape), v};
    v = op.kernel(op, x, {}, op.infer(op, x, {}));
  }
  if (v->shape != var->shape)
    throw InvalidArgument(cat("assign: value of shape ", shape_str(v->shape), " does not match variable of shape ",
                              shape_str(var->shape)));
  if (var->storage.use_count() != 1) {  // someone still reads the old value: copy on write
    var->storage = std::make_shared<Storage>(var->nbytes());
    var->offset = 0;
  }
  std::memmove(var->data(), v->data(), var->nbytes());
}

bool needs_eager(const Graph& g, const Tensors& args) {
  if (tracing() || !variable_watchers().empty() || !active_accumulators().empty()) return true;  // forward mode too
  if (active_tapes().empty()) return false;
  return should_record(args) || should_record(g.variables);
}

// Runs an Assign or a HostCall; a host call's results (Note [Host calls with results]).
static Tensors run_side_effect(const Node& n, const Tensors& x, bool eager) {
  if (n.kind == NodeKind::Assign) {
    if (eager) traced_assign(n.value, x[0], n.mode);
    else assign_into(n.value, x[0], n.mode);
    return {};
  }
  if (building_backward()) {
    // The backward of a loop replays its body; a host call's results are not kept per iteration, and
    // running the call again would repeat its side effects. Refused, never replaced by made-up values.
    if (n.dynamic)
      throw Unimplemented(cat("tf.function: the gradient of a loop (or branch) whose body uses the results of ", n.name,
                              " (tf.py_function / tf.numpy_function) is not supported inside a tf.function yet: its "
                              "results are not kept per iteration. Compute the gradient eagerly (without tf.function "
                              "around the loop), or return the host call's results from a loop without a tape"));
    return {};
  }
  Tensors outs = (*n.host)(x);
  if (eager && !outs.empty() && should_record(x))
    throw Unimplemented(cat("tf.function: ", n.name, " inside a function called under a GradientTape that watches "
                            "its inputs: its gradient cannot flow through the graph yet (call it outside tf.function)"));
  if (eager) record_host_call(n.host, x, n.name, outs);
  return outs;
}

// Output k of a host call, checked against what the trace saw.
static Tensor host_result(const Node& out, const Tensors& results) {
  if ((size_t)out.arg >= results.size())
    throw InvalidArgument(cat(out.name, ": the host call returned ", results.size(), " tensors, the graph expects more"));
  const Tensor& t = results[(size_t)out.arg];
  bool fits = t && t->dtype == out.meta.dtype && t->ndim() == (int)out.meta.shape.size();
  for (int d = 0; fits && d < t->ndim(); ++d) fits = out.meta.shape[d] < 0 || out.meta.shape[d] == t->shape[d];
  if (!fits)
    throw InvalidArgument(cat(out.name, ": the host call returned ", t ? meta_str(t) : std::string("None"),
                              " where the traced graph has ", meta_text(out.meta)));
  return t;
}

static std::atomic<int64_t> g_in_place_writes{0};
int64_t in_place_writes() { return g_in_place_writes.load(std::memory_order_relaxed); }

// Marks the inputs of node i that may become its output buffer (see the file comment); their
// slots in vals are dropped now rather than after the node.
static bool find_donations(const Graph& g, size_t i, Tensors& vals, const Tensors& x, std::vector<char>& donate,
                           Tensors* owned_args) {
  const Node& node = g.nodes[i];
  const auto& dying = g.drop_after[i];
  bool any = false;
  donate.assign(x.size(), 0);
  for (size_t k = 0; k < x.size(); ++k) {
    const int in = node.inputs[k];
    const NodeKind kind = g.nodes[in].kind;
    if (!(kind == NodeKind::Op || (kind == NodeKind::Placeholder && owned_args)) || !x[k]) continue;
    if (std::find(dying.begin(), dying.end(), in) == dying.end()) continue;
    vals[in].reset();
    if (kind == NodeKind::Placeholder) (*owned_args)[(size_t)g.nodes[in].arg].reset();  // the graph's own reference
    if (x[k].use_count() == 1 && x[k]->storage.use_count() == 1 && x[k]->offset == 0 && x[k]->size > 0) {
      donate[k] = 1;
      any = true;
    }
  }
  return any;
}

// An elementwise node written into a donated input: all inputs full-size or one element.
static Tensor run_in_place(const Node& node, const Tensors& x, const OutMeta& m, const std::vector<char>& donate) {
  const OpDef& op = *node.op;
  if (op.kernel != &run_elementwise || x.size() > 3) return nullptr;
  const int64_t n = num_elements(m.shape);
  int pick = -1;
  for (size_t k = 0; k < x.size() && pick < 0; ++k)
    if (donate[k] && x[k]->dtype == m.dtype && x[k]->size == n) pick = (int)k;
  if (pick < 0) return nullptr;
  for (auto& t : x)
    if (t->size != n && t->size != 1) return nullptr;
  const DType dt = x.back()->dtype;
  EwKernel kern = ew_kernel(op, dt, active_isa());
  if (!kern) return nullptr;
  Tensor out = view(x[pick], m.shape);
  EwArgs a{};
  for (size_t k = 0; k < x.size(); ++k) {
    a.in[k] = x[k]->data();
    a.stride[k][0] = x[k]->size == n ? 1 : 0;
  }
  a.out = out->data();
  a.n = n;
  a.ndim = 1;
  a.shape[0] = n;
  a.alpha = node.attrs.f("alpha", 0.0);
  a.beta = node.attrs.f("beta", 0.0);
  kern(a);
  return out;
}

// Runs a fused node; output k >= 1 is the value of node i + k (Note [Fused nodes]).
static void run_fused_node(const Graph& g, size_t i, Tensors& vals, const Tensors& x, bool eager,
                           const std::vector<char>* donate) {
  const FusedGroup& f = *g.nodes[i].fused;
  Tensors outs = run_fused(f, x, eager, donate);
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!eager && g_check_numerics) check_finite(outs[k], f.members[f.outputs[k]].op->name);
    vals[i + k] = std::move(outs[k]);
  }
}

// owned: the arguments, which the graph may take over (Note [Donated loop variables]); null: borrowed.
static Tensors run_nodes(const Graph& g, const Tensors& args, Tensors* owned, bool eager) {
  if ((int)args.size() != g.num_args)
    throw InvalidArgument(cat("graph: expected ", g.num_args, " tensor arguments, got ", args.size()));
  ScopedFlushDenormal ftz;  // Note [Flush denormals]
  const size_t n = g.nodes.size();
  Tensors vals(n);
  Tensors x;
  std::vector<char> donate;
  std::vector<Tensors> results(g.has_control_flow || g.has_host_calls ? n : 0);  // per control node or host call
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    switch (node.kind) {
      case NodeKind::Placeholder: vals[i] = args[node.arg]; break;
      case NodeKind::Constant:
      case NodeKind::VariableRead: vals[i] = node.value; break;
      case NodeKind::Op: {
        if (is_fused_output(node)) break;  // filled in by its fused node
        x.clear();
        for (int in : node.inputs) x.push_back(vals[in]);
        if (eager) {
          if (node.fused) run_fused_node(g, i, vals, x, true, nullptr);
          else vals[i] = apply(*node.op, x, node.attrs);
          break;
        }
        const bool donated = find_donations(g, i, vals, x, donate, owned);
        if (node.fused) {
          run_fused_node(g, i, vals, x, false, donated ? &donate : nullptr);
          break;
        }
        OutMeta inferred;
        const OutMeta* m = &node.meta;
        if (g.relaxed) m = &(inferred = node.op->infer(*node.op, x, node.attrs));
        Tensor r;
        if (donated && node.op->in_place && donate[0]) {
          if ((r = node.op->in_place(*node.op, x, node.attrs, *m))) g_in_place_writes.fetch_add(1, std::memory_order_relaxed);
        } else if (donated) {
          r = run_in_place(node, x, *m, donate);
        }
        vals[i] = r ? std::move(r) : node.op->kernel(*node.op, x, node.attrs, *m);
        if (g_check_numerics) check_finite(vals[i], node.op->name);
        break;
      }
      case NodeKind::If:
      case NodeKind::While:
        x.clear();
        for (int in : node.inputs) x.push_back(vals[in]);
        results[i] = run_control(node, x, eager);
        break;
      case NodeKind::Output:
        if (g.nodes[node.inputs[0]].kind == NodeKind::HostCall) vals[i] = host_result(node, results[node.inputs[0]]);
        else vals[i] = results[node.inputs[0]][node.arg];
        break;
      default: {
        x.clear();
        for (int in : node.inputs) x.push_back(vals[in]);
        Tensors outs = run_side_effect(node, x, eager);
        if (!outs.empty()) results[i] = std::move(outs);
      }
    }
    for (int d : g.drop_after[i]) {
      vals[d].reset();
      if (!results.empty()) results[d].clear();
    }
  }
  Tensors out;
  out.reserve(g.outputs.size());
  for (int o : g.outputs) {
    const Node& node = g.nodes[o];
    // A variable returned as an output is returned as its current value, not the variable.
    out.push_back(node.kind == NodeKind::VariableRead ? copy(vals[o]) : vals[o]);
  }
  return out;
}

Tensors run_graph(const Graph& g, const Tensors& args, bool eager) { return run_nodes(g, args, nullptr, eager); }

Tensors run_graph_donating(const Graph& g, Tensors& args, bool eager) {
  return run_nodes(g, args, eager ? nullptr : &args, eager);
}

}  // namespace tg::graph
