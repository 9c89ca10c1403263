// trace.cpp -- recording ops, variable reads, assignments and host calls into a Graph.
#include "graph/trace.h"
#include <sstream>
#include "core/error.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/observer.h"
#include "engine/tape.h"
#include "graph/executor.h"
#include "graph/varying_dims.h"
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

// Note [Node names]: every recorded node gets a name unique in its graph, as TF names graph
// nodes: the op type ("MatMul", "Tanh"), or for the Python operators TF's lower-case scope
// ("add" for x + y), then "add_1", "add_2", ...; placeholders take their argument's name.
static std::string base_name(const OpDef& op) {
  static const std::unordered_map<std::string, std::string> scope = {
      {"Add", "add"}, {"AddV2", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"RealDiv", "truediv"}, {"FloorDiv", "floordiv"},
      {"FloorMod", "mod"}, {"Pow", "pow"}, {"StridedSlice", "strided_slice"}, {"ConcatV2", "concat"}};
  auto it = scope.find(op.name);
  return it == scope.end() ? op.name : it->second;
}

std::string Tracer::unique_name(const std::string& base) {
  int& k = next_suffix[base];  // the suffix to try first: "add_7" after "add_6"
  std::string name = k == 0 ? base : base + "_" + std::to_string(k);
  while (names.count(name)) name = base + "_" + std::to_string(++k);
  ++k;
  names.insert(name);
  return name;
}

namespace {
// Leaked values by tensor id (Note [Leaked tensors]); entries of freed tensors are dropped at each finish().
std::unordered_map<int64_t, std::pair<std::weak_ptr<TensorImpl>, std::string>>& leaks() {
  static std::unordered_map<int64_t, std::pair<std::weak_ptr<TensorImpl>, std::string>> m;
  return m;
}
}  // namespace

bool g_leaks_alive = false;

size_t num_leaked() {
  auto& m = leaks();
  for (auto it = m.begin(); it != m.end();) it = it->second.first.expired() ? m.erase(it) : std::next(it);
  g_leaks_alive = !m.empty();
  return m.size();
}

const std::string* leaked_name(int64_t id) {
  auto& m = leaks();
  if (m.empty()) return nullptr;
  auto it = m.find(id);
  return it == m.end() ? nullptr : &it->second.second;
}

int Tracer::placeholder(const Tensor& t, const std::string& name) {
  Node n;
  n.kind = NodeKind::Placeholder;
  n.meta = {t->shape, t->dtype};
  n.arg = g.num_args++;
  n.dynamic = true;
  n.name = name;
  names.insert(name);
  int i = add_node(g, std::move(n));
  node_of[t->id] = i;
  return i;
}

// A variable read is valid until the variable is assigned (record_assign forgets it), so
// common-subexpression elimination never merges reads across an assignment.
// Whether a tape (paused or not) or a forward accumulator follows t: a subgraph must then take it
// as an argument, or its gradient could not flow out of the control-flow node.
static bool followed(const Tensor& t) {
  for (Tape* tape : active_tapes())
    if (tape->tracked.contains(t->id)) return true;
  return any_tangent({t});
}

int Tracer::input_node(const Tensor& t) {
  auto it = node_of.find(t->id);
  if (it != node_of.end()) return it->second;
  if (!t->is_variable && !outer.empty()) {
    for (Tracer* o : outer)
      if (o->sees_dynamic(t)) return capture(t);
    if (followed(t)) return capture(t);  // a watched constant of the enclosing function
  }
  Node n;
  n.meta = {t->shape, t->dtype};
  if (const std::string* leaked = leaked_name(t->id))
    if (leak_use.empty()) leak_use = *leaked;
  if (t->is_variable) {
    n.kind = NodeKind::VariableRead;
    n.value = t;
    n.dynamic = true;
    n.name = unique_name("ReadVariableOp");
  } else {
    n.kind = NodeKind::Constant;
    n.value = t;
    n.name = unique_name("Const");
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
  bool varies = false;
  for (auto& xi : x) {
    int k = input_node(xi);
    n.inputs.push_back(k);
    n.dynamic |= g.nodes[k].dynamic;
    varies |= varying.count(k) > 0;
  }
  n.dynamic |= op.stateful;
  const bool value_shaped = n.dynamic && op.value_shaped && op.value_shaped(attrs) && !n.meta.shape.empty();
  if (value_shaped) {
    n.meta.shape[0] = -1;  // Note [Value-shaped ops]
    shapes_vary = varies = true;
    // Sizes after this one vary from call to call: rules recorded from now on read them at run time
    // (Note [Sizes in traced rules], mode 2); the trace's caller restores the mode when it ends.
    set_sizes_at_run_time(2);
  }
  // A scalar, and the shape of a tensor (its length is the rank), have one size at every call.
  if (varies && (out->ndim() == 0 || op.name == "Shape")) varies = false;
  const uint64_t dims = varies ? result_varying(op, x, attrs, out, n.inputs, value_shaped) : 0;
  n.name = unique_name(base_name(op));
  const bool dynamic = n.dynamic;
  const int i = node_of[out->id] = add_node(g, std::move(n));
  if (dims) varying[i] = dims;
  if (dynamic) values.emplace_back(out, i);
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
  n.name = unique_name(mode == 0 ? "AssignVariableOp" : mode == 1 ? "AssignAddVariableOp" : "AssignSubVariableOp");
  add_node(g, std::move(n));
  node_of.erase(var->id);
}

void Tracer::record_host_call(std::shared_ptr<HostFn> fn, const Tensors& x, const std::string& label,
                              const Tensors& outs) {
  Node n;
  n.kind = NodeKind::HostCall;
  n.host = std::move(fn);
  n.name = label;
  n.meta = {{}, DType::Bool};  // no value of its own (its results are Output nodes)
  n.dynamic = !outs.empty();
  for (auto& xi : x) n.inputs.push_back(input_node(xi));
  const int at = add_node(g, std::move(n));
  for (size_t k = 0; k < outs.size(); ++k) {  // See Note [Host calls with results]
    Node o;
    o.kind = NodeKind::Output;
    o.arg = (int)k;
    o.inputs = {at};
    o.dynamic = true;
    o.meta = {outs[k]->shape, outs[k]->dtype};
    if (k < x.size() && x[k]->shape == outs[k]->shape && x[k]->dtype == outs[k]->dtype)
      o.meta = g.nodes[g.nodes[at].inputs[k]].meta;  // shape-preserving (all-reduce): unknown dims stay unknown
    o.name = label + ":" + std::to_string(k);
    node_of[outs[k]->id] = add_node(g, std::move(o));
  }
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
  bool varies = false;
  for (auto& xi : x) {
    int k = input_node(xi);
    n.inputs.push_back(k);
    n.dynamic |= g.nodes[k].dynamic;
    varies |= varying.count(k) > 0;
  }
  const bool dynamic = n.dynamic;
  n.name = unique_name(n.kind == NodeKind::While ? "while" : "cond");  // TF's names of its loop / conditional
  const std::string name = n.name;
  const int at = add_node(g, std::move(n));
  for (size_t k = 0; k < outs.size(); ++k) {
    Node o;
    o.kind = NodeKind::Output;
    o.arg = (int)k;
    o.inputs = {at};
    o.dynamic = dynamic;
    o.meta = proto.flow->out_meta[k];
    o.name = name + ":" + std::to_string(k);  // shown as output k of the node (not a name of its own)
    const bool history = proto.kind == NodeKind::While && (int)k > proto.flow->num_loop_vars;
    uint64_t dims = varies ? kAllDims : 0;
    if (!history)  // a history's leading dimension is the trip count, read only by the backward loop
      for (size_t d = 0; d < o.meta.shape.size(); ++d)
        if (o.meta.shape[d] < 0) dims |= dim_bit(d);
    if (o.meta.shape.empty()) dims = 0;  // a scalar has one size at every call
    shapes_vary |= dims && !history;
    const int i = node_of[outs[k]->id] = add_node(g, std::move(o));
    if (dims) varying[i] = dims;
  }
  for (auto& v : proto.flow->assigned) node_of.erase(v->id);  // later uses read it again
}

const Node* Tracer::node_for(const Tensor& t) const {
  auto it = node_of.find(t->id);
  return it == node_of.end() ? nullptr : &g.nodes[it->second];
}

std::shared_ptr<Graph> Tracer::finish(const Tensors& outputs, OptimizeStats* stats) {
  for (auto& t : outputs) g.outputs.push_back(input_node(t));
  mark_leaks(outputs);
  traced = std::make_shared<Graph>(g);
  traced->finalize();
  *stats = optimize(g);
  // Values whose shapes may change between calls flow on: every shape rule runs at run time.
  if (shapes_vary) relax_with_subgraphs(g);
  auto result = std::make_shared<Graph>(std::move(g));
  node_of.clear();
  return result;
}

// A shape as Python prints a tuple: "(2,)", "(2, 3)", "()".
static std::string tuple_text(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

void Tracer::mark_leaks(const Tensors& outputs) {
  num_leaked();  // drops the entries of freed tensors
  // Under a tape (or accumulator) the trace's values stay alive for it: a custom_gradient's
  // closure reads them when the gradient is computed. Nothing is marked then.
  if (!active_tapes().empty() || !active_accumulators().empty()) {
    values.clear();
    return;
  }
  auto& m = leaks();
  std::unordered_set<int64_t> out_ids;
  for (auto& t : outputs) out_ids.insert(t->id);
  for (auto& [weak, node] : values)
    if (Tensor t = weak.lock())
      if (!out_ids.count(t->id))
        m[t->id] = {weak, "<tf.Tensor '" + g.nodes[node].name + ":0' shape=" + tuple_text(t->shape) + " dtype=" +
                              dtype_name(t->dtype) + ">"};
  values.clear();
  g_leaks_alive = !m.empty();
}

void Tracer::begin_dry() {
  dry = true;
  saved_random = random_counters();
}

void Tracer::enter() {
  if (subgraph) {
    begin_dry();
    outer = active_tracers();
    for (Tracer* t : outer) pop_tracer(t);
  }
  push_tracer(this);
}

void Tracer::exit() {
  pop_tracer(this);
  if (!subgraph) return;
  for (Tracer* t : outer) push_tracer(t);
  restore_variables();
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

void record_host_call(const std::shared_ptr<HostFn>& fn, const Tensors& x, const std::string& label,
                      const Tensors& outs) {
  for (Tracer* t : active_tracers()) t->record_host_call(fn, x, label, outs);
}

Tensor fresh_view(const Tensor& t) {
  // The new trace's tracer is not active yet, so its graph does not see the Identity. Enclosing
  // traces (a tf.function called while another is traced) do: the view is their Identity of t,
  // not a constant holding the first call's value.
  if (tracing() || should_record({t}) || any_tangent({t})) return apply("Identity", {t});
  return view(t, t->shape);
}

bool size_varies(const Tensor& t) { return varying_dims(t) != 0; }


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

std::string traced_name(const Tensor& t) {
  for (auto it = active_tracers().rbegin(); it != active_tracers().rend(); ++it) {
    auto f = (*it)->node_of.find(t->id);
    if (f != (*it)->node_of.end()) return (*it)->g.nodes[f->second].name + ":0";
  }
  return "";
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
