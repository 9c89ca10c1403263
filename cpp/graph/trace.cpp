// trace.cpp -- recording ops, variable reads, assignments and host calls into a Graph.
#include "graph/trace.h"
#include <sstream>
#include "core/error.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/observer.h"
#include "graph/executor.h"
#include "ops/random.h"

namespace tg::graph {

std::vector<Tracer*>& active_tracers() {
  thread_local std::vector<Tracer*> stack;
  return stack;
}

namespace {

// The tracers' observer (Note [Op observers]): on the list while a tracer is active.
struct TracersObserver final : OpObserver {
  TracersObserver() : OpObserver(kTracer) {}
  void before_stateful_op(const Tensors& x) override {
    for (Tracer* t : active_tracers())
      for (auto& xi : x)
        if (xi->is_variable) t->before_assign(xi);
  }
  void after_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) override {
    for (Tracer* t : active_tracers()) t->record_op(op, x, attrs, out);
  }
};
TracersObserver g_tracers_observer;

}  // namespace

void push_tracer(Tracer* t) { push_observed(active_tracers(), t, &g_tracers_observer); }
void pop_tracer(Tracer* t) { pop_observed(active_tracers(), t, &g_tracers_observer); }

static int add_node(Graph& g, Node n) {
  g.nodes.push_back(std::move(n));
  return (int)g.nodes.size() - 1;
}

int Tracer::placeholder(const Tensor& t, const std::string& name) {
  Node n;
  n.kind = NodeKind::Placeholder;
  n.meta = {t->shape, t->dtype};
  n.arg = g.num_args++;
  n.dynamic = true;
  n.name = name;
  int i = add_node(g, std::move(n));
  node_of[t->id] = i;
  return i;
}

// A variable read is valid until the variable is assigned (record_assign forgets it), so
// common-subexpression elimination never merges reads across an assignment.
int Tracer::input_node(const Tensor& t) {
  auto it = node_of.find(t->id);
  if (it != node_of.end()) return it->second;
  if (!t->is_variable)
    for (Tracer* o : outer)
      if (o->sees_dynamic(t)) return capture(t);
  Node n;
  n.meta = {t->shape, t->dtype};
  if (t->is_variable) {
    n.kind = NodeKind::VariableRead;
    n.value = t;
    n.dynamic = true;
  } else {
    n.kind = NodeKind::Constant;
    n.value = t;
  }
  int i = add_node(g, std::move(n));
  node_of[t->id] = i;
  return i;
}

void Tracer::record_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out) {
  Node n;
  n.kind = NodeKind::Op;
  n.op = &op;
  n.attrs = attrs;
  n.meta = {out->shape, out->dtype};
  for (auto& xi : x) {
    int k = input_node(xi);
    n.inputs.push_back(k);
    n.dynamic |= g.nodes[k].dynamic;
  }
  n.dynamic |= op.stateful;
  node_of[out->id] = add_node(g, std::move(n));
  // A stateful op changed its Variable inputs: later uses read them again (as after an assign).
  if (op.stateful)
    for (auto& xi : x)
      if (xi->is_variable) node_of.erase(xi->id);
}

void Tracer::before_assign(const Tensor& var) {
  if (!dry) return;
  for (auto& sv : saved_vars)
    if (sv.first == var) return;
  saved_vars.emplace_back(var, copy(var));
}

void Tracer::record_assign(const Tensor& var, const Tensor& value, int mode) {
  Node n;
  n.kind = NodeKind::Assign;
  n.value = var;
  n.mode = mode;
  n.inputs.push_back(input_node(value));
  n.meta = {var->shape, var->dtype};
  add_node(g, std::move(n));
  node_of.erase(var->id);
}

void Tracer::record_host_call(std::shared_ptr<HostFn> fn, const Tensors& x, const std::string& label) {
  Node n;
  n.kind = NodeKind::HostCall;
  n.host = std::move(fn);
  n.name = label;
  for (auto& xi : x) n.inputs.push_back(input_node(xi));
  add_node(g, std::move(n));
}

int Tracer::capture(const Tensor& t) {
  captures.push_back(t);
  return placeholder(t, "capture");
}

bool Tracer::sees_dynamic(const Tensor& t) const {
  const Node* n = node_for(t);
  if (n) return n->dynamic;
  for (Tracer* o : outer)
    if (o->sees_dynamic(t)) return true;
  return false;
}

void Tracer::record_control(const Node& proto, const Tensors& x, const Tensors& outs) {
  Node n;
  n.kind = proto.kind;
  n.flow = proto.flow;
  n.dynamic = n.flow->side_effects || n.flow->reads_variables;
  for (auto& xi : x) {
    int k = input_node(xi);
    n.inputs.push_back(k);
    n.dynamic |= g.nodes[k].dynamic;
  }
  const bool dynamic = n.dynamic;
  const int at = add_node(g, std::move(n));
  for (size_t k = 0; k < outs.size(); ++k) {
    Node o;
    o.kind = NodeKind::Output;
    o.arg = (int)k;
    o.inputs = {at};
    o.dynamic = dynamic;
    o.meta = proto.flow->out_meta[k];
    const bool history = proto.kind == NodeKind::While && (int)k > proto.flow->num_loop_vars;
    if (!history)  // a history's leading dimension is the trip count, read only by the backward loop
      for (int64_t d : o.meta.shape) shapes_vary |= d < 0;
    node_of[outs[k]->id] = add_node(g, std::move(o));
  }
  for (auto& v : proto.flow->assigned) node_of.erase(v->id);  // later uses read it again
}

const Node* Tracer::node_for(const Tensor& t) const {
  auto it = node_of.find(t->id);
  return it == node_of.end() ? nullptr : &g.nodes[it->second];
}

std::shared_ptr<Graph> Tracer::finish(const Tensors& outputs, OptimizeStats* stats) {
  for (auto& t : outputs) g.outputs.push_back(input_node(t));
  *stats = optimize(g);
  // Values whose shapes may change between calls flow on: every shape rule runs at run time.
  if (shapes_vary) g.relaxed = true;
  auto result = std::make_shared<Graph>(std::move(g));
  node_of.clear();
  return result;
}

void Tracer::begin_dry() {
  dry = true;
  saved_random = random_counters();
}

void Tracer::restore_variables() {
  for (auto it = saved_vars.rbegin(); it != saved_vars.rend(); ++it) assign_into(it->first, it->second, 0);
  saved_vars.clear();
  if (dry) set_random_counters(saved_random);
}

void traced_assign(const Tensor& var, const Tensor& value, int mode) {
  for (Tracer* t : active_tracers()) t->before_assign(var);
  assign_into(var, value, mode);
  for (Tracer* t : active_tracers()) t->record_assign(var, value, mode);
}

void record_host_call(const std::shared_ptr<HostFn>& fn, const Tensors& x, const std::string& label) {
  for (Tracer* t : active_tracers()) t->record_host_call(fn, x, label);
}

Tensor fresh_view(const Tensor& t) {
  // No tracer is active yet, so the graph does not see the Identity.
  if (should_record({t}) || any_tangent({t})) return apply("Identity", {t});
  return view(t, t->shape);
}

bool is_traced_value(const Tensor& t) {
  for (Tracer* tr : active_tracers())
    if (tr->sees_dynamic(t)) return true;
  return false;
}

static std::string operand_text(const Graph& g, int i) {
  const Node& n = g.nodes[i];
  switch (n.kind) {
    case NodeKind::Placeholder: return n.name;
    case NodeKind::VariableRead: return "a variable";
    case NodeKind::Constant:
      if (n.value->size == 1) {
        std::ostringstream o;
        o << scalar_value(n.value);
        return o.str();
      }
      return "a constant " + meta_str(n.value);
    case NodeKind::Op: return n.op->name + "(...)";
    default: return "?";
  }
}

std::string describe_traced(const Tensor& t) {
  for (auto it = active_tracers().rbegin(); it != active_tracers().rend(); ++it) {
    const Tracer& tr = **it;
    auto f = tr.node_of.find(t->id);
    if (f == tr.node_of.end()) continue;
    const Node& n = tr.g.nodes[f->second];
    if (n.kind != NodeKind::Op) return operand_text(tr.g, f->second);
    std::string s = n.op->name + "(";
    for (size_t k = 0; k < n.inputs.size(); ++k) s += (k ? ", " : "") + operand_text(tr.g, n.inputs[k]);
    return s + ")";
  }
  return "a tensor";
}

}  // namespace tg::graph
