// control_flow.cpp -- conditionals and while loops as graph nodes (Note [Control-flow nodes]).
#include "graph/control_flow.h"
#include <climits>
#include "core/error.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/tape.h"
#include "graph/executor.h"
#include "graph/trace.h"

namespace tg::graph {

namespace {

const OutMeta& output_meta(const Graph& g, size_t k) { return g.nodes[g.outputs[k]].meta; }

const Node* placeholder_of(const Graph& g, int arg) {
  for (auto& n : g.nodes)
    if (n.kind == NodeKind::Placeholder && n.arg == arg) return &n;
  return nullptr;
}

// The variables g may change: assigned, or the Variable inputs of its stateful ops.
void collect_assigned(const Graph& g, Tensors& out) {
  auto add = [&](const Tensor& v) {
    for (auto& w : out)
      if (w == v) return;
    out.push_back(v);
  };
  for (auto& n : g.nodes) {
    if (n.kind == NodeKind::Assign) add(n.value);
    if (n.kind == NodeKind::Op && n.op->stateful)
      for (int in : n.inputs)
        if (g.nodes[in].kind == NodeKind::VariableRead) add(g.nodes[in].value);
    if (n.is_control())
      for (auto& v : n.flow->assigned) add(v);
  }
}

std::shared_ptr<ControlFlow> flow_of(std::shared_ptr<Graph> a, std::shared_ptr<Graph> b) {
  auto f = std::make_shared<ControlFlow>();
  f->first = std::move(a);
  f->second = std::move(b);
  for (const Graph* g : {f->first.get(), f->second.get()}) {
    f->side_effects |= has_side_effects(*g);
    f->reads_variables |= !g->variables.empty();
    collect_assigned(*g, f->assigned);
  }
  return f;
}

// Tracers are suspended while a control node runs under them (they record the node, not the
// ops of its branches or iterations); tapes and accumulators keep observing.
struct SuspendTracers {
  std::vector<Tracer*> saved = active_tracers();
  SuspendTracers() {
    for (Tracer* t : saved) pop_tracer(t);
  }
  ~SuspendTracers() {
    for (Tracer* t : saved) push_tracer(t);
  }
  SuspendTracers(const SuspendTracers&) = delete;
  SuspendTracers& operator=(const SuspendTracers&) = delete;
};

Tensors run_sub(const Graph& g, const Tensors& args, bool eager) {
  return run_graph(g, args, eager && needs_eager(g, args));
}

bool truth(const Tensor& t, const char* what) {
  if (t->size != 1) throw InvalidArgument(cat(what, ": the condition must be a scalar, got ", meta_str(t)));
  return scalar_value(t) != 0;
}

Tensors execute_if(const ControlFlow& f, const Tensors& x, bool eager) {
  const Graph& branch = truth(x[0], "If") ? *f.first : *f.second;
  return run_sub(branch, Tensors(x.begin() + 1, x.end()), eager);
}

Tensors execute_while(const ControlFlow& f, const Tensors& x, bool eager) {
  const size_t nv = (size_t)f.num_loop_vars;
  const size_t ncap = x.size() - nv - (f.has_limit ? 1 : 0);
  int64_t limit = INT64_MAX;
  if (f.has_limit) {
    if (x.back()->size != 1)
      throw InvalidArgument(cat("While: maximum_iterations must be a scalar, got ", meta_str(x.back())));
    limit = (int64_t)scalar_value(x.back());
  }
  Tensors args(x.begin(), x.begin() + (long)(nv + ncap));
  for (int64_t step = 0; step < limit; ++step) {
    if (!truth(run_sub(*f.first, args, eager)[0], "While")) break;
    Tensors next = run_sub(*f.second, args, eager);
    for (size_t k = 0; k < nv; ++k) {
      const OutMeta& m = f.out_meta[k];
      bool fits = next[k]->dtype == m.dtype && next[k]->shape.size() == m.shape.size();
      for (size_t d = 0; fits && d < m.shape.size(); ++d) fits = m.shape[d] < 0 || m.shape[d] == next[k]->shape[d];
      if (!fits)
        throw InvalidArgument(cat("While: loop variable ", k, " has ", meta_str(next[k]), " after iteration ", step + 1,
                                  " but the loop was traced for ", meta_text(m)));
      args[k] = std::move(next[k]);
    }
  }
  args.resize(nv);
  return args;
}

Tensors execute(const Node& n, const Tensors& x, bool eager) {
  return n.kind == NodeKind::If ? execute_if(*n.flow, x, eager) : execute_while(*n.flow, x, eager);
}

}  // namespace

std::shared_ptr<const ControlFlow> make_if(std::shared_ptr<Graph> then_g, std::shared_ptr<Graph> else_g) {
  if (then_g->outputs.size() != else_g->outputs.size())
    throw InvalidArgument(cat("cond: true_fn returned ", then_g->outputs.size(), " tensors and false_fn ",
                              else_g->outputs.size()));
  const int args = std::max(then_g->num_args, else_g->num_args);
  then_g->num_args = else_g->num_args = args;
  auto f = flow_of(std::move(then_g), std::move(else_g));
  for (size_t k = 0; k < f->first->outputs.size(); ++k) {
    OutMeta a = output_meta(*f->first, k);
    const OutMeta& b = output_meta(*f->second, k);
    if (a.dtype != b.dtype)
      throw InvalidArgument(cat("cond: output ", k, " is ", dtype_name(a.dtype), " in true_fn and ", dtype_name(b.dtype),
                          " in false_fn; both branches must return the same dtypes"));
    if (a.shape.size() != b.shape.size())
      throw InvalidArgument(cat("cond: output ", k, " is ", meta_text(a), " in true_fn and ", meta_text(b),
                                " in false_fn; both branches must return the same ranks"));
    for (size_t d = 0; d < a.shape.size(); ++d)
      if (a.shape[d] != b.shape[d]) a.shape[d] = -1;
    f->out_meta.push_back(a);
  }
  return f;
}

std::shared_ptr<const ControlFlow> make_while(std::shared_ptr<Graph> cond_g, std::shared_ptr<Graph> body_g,
                                              int num_loop_vars, bool has_limit) {
  if ((int)body_g->outputs.size() != num_loop_vars)
    throw InvalidArgument(cat("while_loop: body returned ", body_g->outputs.size(), " tensors for ", num_loop_vars,
                              " loop variables"));
  if (cond_g->outputs.size() != 1 || output_meta(*cond_g, 0).dtype != DType::Bool ||
      !output_meta(*cond_g, 0).shape.empty())
    throw InvalidArgument("while_loop: cond must return a boolean scalar");
  const int args = std::max(cond_g->num_args, body_g->num_args);
  cond_g->num_args = body_g->num_args = args;
  auto f = flow_of(std::move(cond_g), std::move(body_g));
  f->num_loop_vars = num_loop_vars;
  f->has_limit = has_limit;
  for (int k = 0; k < num_loop_vars; ++k) {
    const Node* p = placeholder_of(*f->second, k);
    if (!p) throw InvalidArgument(cat("while_loop: loop variable ", k, " has no placeholder"));
    const OutMeta& out = output_meta(*f->second, (size_t)k);
    if (out.dtype != p->meta.dtype)
      throw InvalidArgument(cat("while_loop: loop variable ", k, " enters the loop as ", dtype_name(p->meta.dtype),
                          " but the body returns ", dtype_name(out.dtype)));
    f->out_meta.push_back(p->meta);
  }
  return f;
}

Tensors run_control(const Node& n, const Tensors& x, bool eager) {
  if (!eager || !tracing()) return execute(n, x, eager);
  Tensors outs;
  {
    SuspendTracers suspended;
    for (Tracer* t : suspended.saved)
      for (auto& v : n.flow->assigned) t->before_assign(v);
    outs = execute(n, x, true);
    // Each result gets its own id: a branch may return an operand or a constant as it is, and the
    // tracers must not take that tensor for this node's output elsewhere.
    for (auto& o : outs) o = should_record({o}) || any_tangent({o}) ? apply("Identity", {o}) : view(o, o->shape);
  }
  for (Tracer* t : active_tracers()) t->record_control(n, x, outs);
  return outs;
}

}  // namespace tg::graph
