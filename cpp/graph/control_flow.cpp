// control_flow.cpp -- conditionals and while loops as graph nodes (Note [Control-flow nodes]).
#include "graph/control_flow.h"
#include <algorithm>
#include <climits>
#include <cstring>
#include "core/error.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/observer.h"
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

// The values of one loop variable per iteration as one tensor [steps, ...]; through ops (so tapes
// and accumulators follow it) when they observe the values.
Tensor stack(const Tensors& values, const Tensor& like, bool eager) {
  Shape shape = like->shape;
  shape.insert(shape.begin(), (int64_t)values.size());
  if (values.empty()) return zeros(shape, like->dtype);
  if (eager && (should_record(values) || any_tangent(values))) {
    Tensors rows;
    Shape one = like->shape;
    one.insert(one.begin(), 1);
    for (auto& v : values) rows.push_back(reshape(v, one));
    return concat(rows, 0);
  }
  Tensor out = zeros(shape, like->dtype);
  const size_t row = like->nbytes();
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]->shape != like->shape)
      throw InvalidArgument(cat("While: a loop variable changed shape from ", meta_str(like), " to ", meta_str(values[i])));
    std::memcpy(static_cast<char*>(out->data()) + i * row, values[i]->data(), row);
  }
  return out;
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
  std::vector<Tensors> history(f.keep_history ? nv : 0);
  int64_t step = 0;
  Tensors given;  // the body's arguments, which it takes over
  for (; step < limit; ++step) {
    if (!truth(run_sub(*f.first, args, eager)[0], "While")) break;
    for (size_t k = 0; k < history.size(); ++k)
      if (f.history_read[k]) history[k].push_back(args[k]);
    // The body takes the loop variables over (Note [Donated loop variables] in executor.cpp);
    // the captures stay for the next iteration.
    given.resize(args.size());  // (one vector for every iteration)
    for (size_t k = 0; k < args.size(); ++k) given[k] = k < nv ? std::move(args[k]) : args[k];
    const bool eager_body = eager && needs_eager(*f.second, given);
    Tensors next = run_graph_donating(*f.second, given, eager_body);
    for (size_t k = 0; k < nv; ++k) given[k].reset();  // this iteration's values go now, not at the next
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
  for (size_t k = 0; k < history.size(); ++k)  // and the final values
    if (f.history_read[k]) history[k].push_back(args[k]);
  Tensors outs(args.begin(), args.begin() + (long)nv);
  outs.push_back(scalar((double)step, DType::Int64));  // the trip count (the backward's bound)
  for (size_t k = 0; k < history.size(); ++k) outs.push_back(stack(history[k], x[k], eager));
  return outs;
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
  f->out_meta.push_back({Shape{}, DType::Int64});  // the trip count
  return f;
}

namespace {

// Note [Control-flow gradients]: under a tracer, a tape records a control node as one custom
// entry (the tracers must see a loop, not this call's iterations). Its gradient is a control
// node again, so the backward graph decides and loops at every call as the forward does:
// - If: an If of the branches' backward graphs (operands, upstream -> operand gradients);
// - While: a While counting j = N-1 .. 0 (N the forward's trip count, a result of every While)
//   that applies the body's backward graph to the loop variables of iteration j. The forward
//   node recorded under a tape keeps those values per iteration and the final ones (keep_history:
//   one [N + 1, ...] result per loop variable) and the backward gathers row j (and row j + 1,
//   the step's results, Note [Given outputs]). When a tape or accumulator
//   watches the backward itself (a second derivative), the step instead recomputes them with
//   a While bounded by j from the initial values (O(N^2) body runs, every value an op).
// Backward graphs are traced here with dry tracers (prints skipped, assignments undone); the
// recomputing loop runs a copy of the body without its prints and assignments. Each backward
// node records the same way under outer tapes, so gradients of gradients work (and a graph
// replayed op by op under a tape builds the histories with ops, so the tape follows them).

thread_local int g_building = 0;  // > 0 while a backward graph is traced: host calls do not run

// Traces body(placeholders for args) into a graph: a dry trace that no tape or tracer outside sees.
template <class F>
std::shared_ptr<Graph> trace_graph(const Tensors& args, F body) {
  SuspendTracers suspended;
  PauseAllTapes paused;
  struct KeepSizeMode {  // a value-shaped op in the trace raises the mode (Note [Sizes in traced rules])
    int mode = set_sizes_at_run_time(0);
    ~KeepSizeMode() { set_sizes_at_run_time(mode); }
  } keep_mode;
  set_sizes_at_run_time(keep_mode.mode);
  Tracer tr;
  tr.begin_dry();
  Tensors views;
  for (auto& a : args) {
    views.push_back(view(a, a->shape));
    tr.placeholder(views.back(), "arg");
  }
  Tensors outs;
  ++g_building;
  try {
    ActiveTracer active(&tr);
    outs = body(views);
  } catch (...) {
    --g_building;
    tr.restore_variables();
    throw;
  }
  --g_building;
  tr.restore_variables();
  OptimizeStats stats;
  return tr.finish(outs, &stats);
}

struct Backward {
  // (args..., upstream per float output[, value per float output]) -> (grad per float arg, grad per variable)
  std::shared_ptr<Graph> g;
  std::vector<int> float_args, float_outs;
};

// Note [Given outputs]: the backward graph of a loop body replays the body on a tape, so every
// backward step recomputes the step's forward ops. A rule reads its op's inputs and output: the
// inputs of the body's first ops are loop variables (kept per iteration), and the output the
// rules of the last ops read, tanh's in h = tanh(...), is the step's result, the next iteration's
// loop variable, also kept. With `given_outputs` the graph takes those results as arguments and
// the tape entry that made a result (read by no other entry) has it as its output: the rules
// read the argument, and the recomputation nothing else reads is pruned (for the tanh RNN, both
// matmuls of the forward step). The values are the same: the kernels are deterministic.
void use_given_output(Tape& tape, const Tensor& computed, const Tensor& given) {
  if (computed->shape != given->shape || computed->dtype != given->dtype) return;
  TapeEntry* maker = nullptr;
  for (auto& e : tape.entries) {
    for (auto& x : e.inputs)
      if (x->id == computed->id) return;  // another op reads it: its gradient must reach the maker
    for (auto& o : e.outputs)
      if (o->id == computed->id) maker = &e;
  }
  if (!maker || !maker->op || maker->op->stateful) return;
  for (auto& o : maker->outputs)
    if (o->id == computed->id) o = given;
}

// The backward graph of subgraph sub, traced at these argument values, for the float arguments
// `wanted` and the variables; outs: values of its outputs.
Backward backward_of(const Graph& sub, const Tensors& args, const std::vector<int>& wanted, const Tensors& vars,
                     const Tensors& outs, bool given_outputs = false) {
  Backward b;
  b.float_args = wanted;
  Tensors all = args;
  for (size_t k = 0; k < sub.outputs.size(); ++k)
    if (is_floating(outs[k]->dtype)) {
      b.float_outs.push_back((int)k);
      all.push_back(zeros(outs[k]->shape, outs[k]->dtype));
    }
  const size_t nargs = args.size(), nout = b.float_outs.size();
  if (given_outputs)
    for (int k : b.float_outs) all.push_back(outs[k]);
  b.g = trace_graph(all, [&](const Tensors& v) {
    Tape tape;
    GradientRequest req;
    for (int i : b.float_args) req.sources.push_back(v[i]);
    for (auto& var : vars) req.sources.push_back(var);
    for (auto& s : req.sources) tape.watch(s);
    Tensors ys;
    {
      ActiveTape recording(&tape);
      ys = run_graph(sub, Tensors(v.begin(), v.begin() + (long)nargs), true);
    }
    for (size_t j = 0; j < nout; ++j) {
      Tensor y = ys[b.float_outs[j]];
      int uses = 0;  // a value returned twice keeps its maker's output (both upstreams reach it)
      for (auto& other : ys) uses += other->id == y->id;
      if (given_outputs && uses == 1) {  // Note [Given outputs]
        const Tensor& given = v[nargs + nout + j];
        use_given_output(tape, y, given);
        bool swapped = false;
        for (auto& e : tape.entries)
          for (auto& o : e.outputs) swapped |= o == given;
        if (swapped) y = given;
      }
      req.targets.push_back(y);
      req.output_gradients.push_back(v[nargs + j]);
    }
    req.unconnected_zero = true;
    return gradient(tape, req);
  });
  return b;
}

Node control_node(NodeKind kind, std::shared_ptr<const ControlFlow> flow) {
  Node n;
  n.kind = kind;
  n.flow = std::move(flow);
  return n;
}

// A copy of g without its prints and assignments (a recomputation must not repeat them).
std::shared_ptr<Graph> without_side_effects(const Graph& g) {
  auto r = std::make_shared<Graph>(g);
  std::vector<Node> kept;
  std::vector<int> at(r->nodes.size(), -1);
  for (size_t i = 0; i < r->nodes.size(); ++i) {
    Node n = r->nodes[i];
    if (n.kind == NodeKind::Assign || n.kind == NodeKind::HostCall) continue;
    if (n.is_control() && n.flow->side_effects) {
      auto f = std::make_shared<ControlFlow>(*n.flow);
      f->first = without_side_effects(*f->first);
      f->second = without_side_effects(*f->second);
      f->side_effects = false;
      n.flow = f;
    }
    for (int& in : n.inputs) in = at[in];
    at[i] = (int)kept.size();
    kept.push_back(std::move(n));
  }
  r->nodes = std::move(kept);
  for (int& o : r->outputs) o = at[o];
  r->finalize();
  return r;
}

Tensor zero_if_null(const Tensor& g, const Tensor& like) { return g ? g : zeros(like->shape, like->dtype); }

// src: the inputs (indices into x) the gradient is for, besides the variables.
Tensors if_backward(const Node& n, const Tensors& x, const std::vector<int>& src, const Tensors& vars,
                    const Tensors& outs, const Tensors& gout) {
  const Tensors operands(x.begin() + 1, x.end());
  std::vector<int> wanted;
  for (int i : src) wanted.push_back(i - 1);
  Backward bt = backward_of(*n.flow->first, operands, wanted, vars, outs);
  Backward be = backward_of(*n.flow->second, operands, wanted, vars, outs);
  Tensors in = {x[0]};
  for (auto& o : operands) in.push_back(o);
  for (int k : bt.float_outs) in.push_back(zero_if_null(gout[k], outs[k]));
  return run_control(control_node(NodeKind::If, make_if(bt.g, be.g)), in, true);
}

Tensors while_backward(const Node& n, const Tensors& x, const std::vector<int>& src, const Tensors& vars,
                       const Tensors& outs, const Tensors& gout) {
  const ControlFlow& f = *n.flow;
  const size_t nv = (size_t)f.num_loop_vars, ncap = x.size() - nv - (f.has_limit ? 1 : 0);
  const Tensors state(x.begin(), x.begin() + (long)(nv + ncap));  // initial loop variables, captures
  // Gradients flow through every float loop variable, and out to the captures asked for.
  std::vector<int> wanted;
  for (size_t k = 0; k < nv; ++k)
    if (is_floating(x[k]->dtype)) wanted.push_back((int)k);
  for (int i : src)
    if ((size_t)i >= nv) wanted.push_back(i);
  // Its captures: the loop variables' values per iteration when the forward kept them and no
  // tape or accumulator watches this backward (a second derivative would need the gather's
  // gradient at shapes of this call); else the initial values, from which each step recomputes.
  Tensors watched = x;
  for (auto& g : gout)
    if (g) watched.push_back(g);
  const bool use_history = f.keep_history && !should_record(watched) && !any_tangent(watched);
  Backward bb = backward_of(*f.second, state, wanted, vars, Tensors(x.begin(), x.begin() + (long)nv), use_history);
  auto recompute = std::make_shared<ControlFlow>(f);
  recompute->has_limit = true;
  recompute->second = without_side_effects(*f.second);
  recompute->first = without_side_effects(*f.first);
  recompute->side_effects = false;
  // backward loop variables: j, the gradient of each float loop variable, the accumulated
  // gradient of each float capture and variable; its captures: the initial state.
  size_t nf = 0;
  for (int i : bb.float_args) nf += (size_t)i < nv;
  const size_t nacc = bb.float_args.size() - nf + vars.size();
  Tensors init = {apply("Sub", {outs[nv], scalar(1.0, DType::Int64)})};
  for (size_t k = 0; k < nf; ++k) init.push_back(zero_if_null(gout[bb.float_args[k]], outs[bb.float_args[k]]));
  for (size_t k = nf; k < bb.float_args.size(); ++k) init.push_back(zeros(state[bb.float_args[k]]->shape, state[bb.float_args[k]]->dtype));
  for (auto& v : vars) init.push_back(zeros(v->shape, v->dtype));
  const size_t nloop = init.size();
  Tensors all = init;
  // A loop variable without a history (Note [Histories a backward reads]) goes in as its initial
  // value, which the backward graph does not read: it stands in for the step's value and result.
  auto has_history = [&](size_t k) { return use_history && f.history_read[k]; };
  for (size_t k = 0; k < nv; ++k) all.push_back(has_history(k) ? outs[nv + 1 + k] : state[k]);
  for (size_t c = 0; c < ncap; ++c) all.push_back(state[nv + c]);
  // Traced at step 0 (this call's steps may be none; a trace needs values a step can read).
  Tensors example = all;
  example[0] = scalar(0.0, DType::Int64);
  for (size_t k = 0; k < nv; ++k)
    if (has_history(k) && example[nloop + k]->shape[0] < 2) {  // rows j and j + 1 for the trace (a call of no steps has one)
      Shape two = example[nloop + k]->shape;
      two[0] = 2;
      example[nloop + k] = zeros(two, example[nloop + k]->dtype);
    }
  auto cond_g = trace_graph(example, [&](const Tensors& a) {
    return Tensors{apply("GreaterEqual", {a[0], scalar(0.0, DType::Int64)})};
  });
  auto body_g = trace_graph(example, [&](const Tensors& a) {
    Tensors vj;
    if (use_history) {
      for (size_t k = 0; k < nv; ++k)
        vj.push_back(has_history(k) ? apply("GatherV2", {a[nloop + k], a[0]}, Attrs().set("axis", 0).set("batch_dims", 0))
                                    : a[nloop + k]);
    } else {
      Tensors rx(a.begin() + (long)nloop, a.end());
      rx.push_back(a[0]);
      vj = run_control(control_node(NodeKind::While, recompute), rx, true);
    }
    Tensors bx(vj.begin(), vj.begin() + (long)nv);
    for (size_t c = 0; c < ncap; ++c) bx.push_back(a[nloop + nv + c]);
    for (size_t k = 0; k < nf; ++k) bx.push_back(a[1 + k]);
    if (use_history && !bb.float_outs.empty()) {  // Note [Given outputs]: row j + 1, the value after step j
      Tensor next_row = apply("Add", {a[0], scalar(1.0, DType::Int64)});
      for (size_t k = 0; k < bb.float_outs.size(); ++k) {
        const Tensor& h = a[nloop + bb.float_outs[k]];
        bx.push_back(has_history((size_t)bb.float_outs[k])
                         ? apply("GatherV2", {h, next_row}, Attrs().set("axis", 0).set("batch_dims", 0)) : h);
      }
    }
    Tensors r = run_graph(*bb.g, bx, true);
    Tensors next = {apply("Sub", {a[0], scalar(1.0, DType::Int64)})};
    for (size_t k = 0; k < nf; ++k) next.push_back(r[k]);
    for (size_t k = 0; k < nacc; ++k) next.push_back(apply("Add", {a[1 + nf + k], r[nf + k]}));
    return next;
  });
  Tensors r = run_control(control_node(NodeKind::While, make_while(cond_g, body_g, (int)nloop, false)), all, true);
  Tensors grads;  // per src, then per variable
  for (int i : src) {
    const size_t pos = (size_t)(std::find(wanted.begin(), wanted.end(), i) - wanted.begin());
    grads.push_back(r[1 + pos]);
  }
  for (size_t v = 0; v < vars.size(); ++v) grads.push_back(r[1 + wanted.size() + v]);
  return grads;
}

// The trainable float variables the subgraphs read: sources of the gradient besides the inputs.
Tensors trainable_variables(const ControlFlow& f) {
  Tensors r;
  for (const Graph* g : {f.first.get(), f.second.get()})
    for (auto& v : g->variables) {
      bool known = false;
      for (auto& w : r) known |= w == v;
      if (!known && v->trainable && is_floating(v->dtype)) r.push_back(v);
    }
  return r;
}

// Records n's run on x (results outs) as one custom entry on the active tapes (Note [Control-flow gradients]).
// Its inputs: the float operands / loop variables and captures a tape tracks, then the variables.
void record_gradient_entry(const Node& n, const Tensors& x, const Tensors& vars, const Tensors& outs) {
  Tensors inputs;
  std::vector<int> src;
  const size_t first = n.kind == NodeKind::If ? 1 : 0;
  const size_t last = n.kind == NodeKind::If || !n.flow->has_limit ? x.size() : x.size() - 1;
  for (size_t i = first; i < last; ++i)
    if (is_floating(x[i]->dtype) && should_record({x[i]})) {
      src.push_back((int)i);
      inputs.push_back(x[i]);
    }
  for (auto& v : vars) inputs.push_back(v);
  Node node = control_node(n.kind, n.flow);
  auto fn = std::make_shared<CustomGradFn>([node, x, src, vars, outs](const Tensors& gout) {
    return node.kind == NodeKind::If ? if_backward(node, x, src, vars, outs, gout)
                                     : while_backward(node, x, src, vars, outs, gout);
  });
  record_custom(inputs, outs, fn);
}

// Note [Control-flow tangents]: under a tracer, an accumulator holding tangents for a control
// node's inputs does not push the node's ops forward one by one (the tracers would see this
// call's iterations, not a loop); the tangents of its results are the results of a second
// control node: an If of the branches' JVP graphs, or a While carrying (loop variables, their
// tangents) whose body is the body's JVP graph. JVP graphs are traced with a private accumulator.

// The tangents of sub's float outputs `fo` at args, given tangents for the args `with` (the
// graph's extra arguments, after args); the variables' tangents are zero.
std::shared_ptr<Graph> jvp_of(const Graph& sub, const Tensors& args, const std::vector<int>& with, const Tensors& dargs,
                              const std::vector<int>& fo, bool keep_primals) {
  Tensors all = args;
  for (auto& d : dargs) all.push_back(d);
  const size_t nargs = args.size();
  return trace_graph(all, [&](const Tensors& v) {
    Accumulator acc;
    for (size_t j = 0; j < with.size(); ++j) acc.watch(v[with[j]], v[nargs + j]);
    Tensors ys;
    push_accumulator(&acc);
    try {
      ys = run_graph(sub, Tensors(v.begin(), v.begin() + (long)nargs), true);
    } catch (...) {
      pop_accumulator(&acc);
      throw;
    }
    pop_accumulator(&acc);
    Tensors r = keep_primals ? ys : Tensors{};
    for (int k : fo) {
      Tensor t = acc.tangent(ys[k]);
      r.push_back(t ? t : zeros(ys[k]->shape, ys[k]->dtype));
    }
    return r;
  });
}

// The tangents (per output, null for none) that a gives n's results on x, as a control node.
Tensors control_tangents(const Node& n, const Tensors& x, Accumulator& a) {
  const ControlFlow& f = *n.flow;
  auto tangent = [&](const Tensor& t) { return is_floating(t->dtype) ? a.tangent(t) : nullptr; };
  if (n.kind == NodeKind::If) {
    const Tensors operands(x.begin() + 1, x.end());
    std::vector<int> with, fo;
    Tensors in = x;
    for (size_t i = 0; i < operands.size(); ++i)
      if (Tensor t = tangent(operands[i])) {
        with.push_back((int)i);
        in.push_back(t);
      }
    Tensors dargs(in.begin() + (long)x.size(), in.end());
    for (size_t k = 0; k < f.out_meta.size(); ++k)
      if (is_floating(f.out_meta[k].dtype)) fo.push_back((int)k);
    auto then_g = jvp_of(*f.first, operands, with, dargs, fo, false);
    auto else_g = jvp_of(*f.second, operands, with, dargs, fo, false);
    Tensors r = run_control(control_node(NodeKind::If, make_if(then_g, else_g)), in, true);
    Tensors out(f.out_meta.size());
    for (size_t j = 0; j < fo.size(); ++j) out[fo[j]] = r[j];
    return out;
  }
  const size_t nv = (size_t)f.num_loop_vars, ncap = x.size() - nv - (f.has_limit ? 1 : 0);
  // loop variables: v..., tangents of the float ones...; captures: caps..., tangents given for them...
  std::vector<int> fv, fc;
  Tensors dv, dc;
  for (size_t k = 0; k < nv; ++k)
    if (is_floating(x[k]->dtype)) {
      fv.push_back((int)k);
      Tensor t = tangent(x[k]);
      dv.push_back(t ? t : zeros(x[k]->shape, x[k]->dtype));
    }
  for (size_t c = 0; c < ncap; ++c)
    if (Tensor t = tangent(x[nv + c])) {
      fc.push_back((int)c);
      dc.push_back(t);
    }
  Tensors in(x.begin(), x.begin() + (long)nv);
  for (auto& t : dv) in.push_back(t);
  for (size_t c = 0; c < ncap; ++c) in.push_back(x[nv + c]);
  for (auto& t : dc) in.push_back(t);
  const size_t nloop = nv + fv.size();
  // The subgraphs take (v, caps); the JVP graphs take (v, dv, caps, dcaps).
  auto split = [&](const Tensors& a) {
    Tensors args(a.begin(), a.begin() + (long)nv);
    for (size_t c = 0; c < ncap; ++c) args.push_back(a[nloop + c]);
    return args;
  };
  auto cond_g = trace_graph(in, [&](const Tensors& a) { return run_graph(*f.first, split(a), true); });
  auto body_g = trace_graph(in, [&](const Tensors& a) {
    Accumulator acc;
    for (size_t j = 0; j < fv.size(); ++j) acc.watch(a[fv[j]], a[nv + j]);
    for (size_t j = 0; j < fc.size(); ++j) acc.watch(a[nloop + fc[j]], a[nloop + ncap + j]);
    Tensors ys;
    push_accumulator(&acc);
    try {
      ys = run_graph(*f.second, split(a), true);
    } catch (...) {
      pop_accumulator(&acc);
      throw;
    }
    pop_accumulator(&acc);
    Tensors r = ys;
    for (int k : fv) {
      Tensor t = acc.tangent(ys[k]);
      r.push_back(t ? t : zeros(ys[k]->shape, ys[k]->dtype));
    }
    return r;
  });
  if (f.has_limit) in.push_back(x.back());
  Tensors r = run_control(control_node(NodeKind::While, make_while(cond_g, body_g, (int)nloop, f.has_limit)), in, true);
  Tensors out(f.out_meta.size());
  for (size_t j = 0; j < fv.size(); ++j) out[fv[j]] = r[nv + j];
  return out;
}

}  // namespace

bool building_backward() { return g_building > 0; }

namespace {

// The While n, also keeping its loop variables' values per iteration (for its backward) when
// their shapes are fixed.
//
// Note [Histories a backward reads]: a loop variable that the body reads only through inputs
// whose gradient rules do not read them (OpDef::grad_reads_input: the buffer of a SetRow, a
// TensorArray's rows) gets no history: the backward step, which replays the body, never reads
// its value, so the initial value stands in for it. That keeps the history of a loop collecting
// n rows at O(n) elements instead of O(n^2).
std::vector<char> backward_reads(const Graph& body, int num_loop_vars) {
  std::vector<char> read((size_t)num_loop_vars, 0);
  for (const Node& n : body.nodes)
    for (size_t j = 0; j < n.inputs.size(); ++j) {
      const Node& in = body.nodes[(size_t)n.inputs[j]];
      if (in.kind != NodeKind::Placeholder || in.arg >= num_loop_vars) continue;
      const bool skipped = n.kind == NodeKind::Op && !n.fused && n.op->grad_reads_input &&
                           !n.op->grad_reads_input((int)j, n.attrs);
      if (!skipped) read[(size_t)in.arg] = 1;
    }
  return read;
}

Node with_history(const Node& n) {
  if (n.kind != NodeKind::While || n.flow->keep_history) return n;
  const ControlFlow& f = *n.flow;
  for (int k = 0; k < f.num_loop_vars; ++k)
    for (int64_t d : f.out_meta[k].shape)
      if (d < 0) return n;
  auto h = std::make_shared<ControlFlow>(f);
  h->keep_history = true;
  h->history_read = backward_reads(*f.second, f.num_loop_vars);
  for (int k = 0; k < f.num_loop_vars; ++k) {
    OutMeta m = f.out_meta[k];
    m.shape.insert(m.shape.begin(), -1);
    h->out_meta.push_back(m);
  }
  return control_node(NodeKind::While, h);
}

}  // namespace

Tensors run_control(const Node& node, const Tensors& x, bool eager) {
  if (!eager || !tracing()) return execute(node, x, eager);
  Tensors vars;  // the variables read inside that a tape records
  for (auto& v : trainable_variables(*node.flow))
    if (should_record({v})) vars.push_back(v);
  const bool taped = should_record(x) || !vars.empty();
  const Node n = taped ? with_history(node) : node;
  std::vector<Accumulator*> pushing;  // Note [Control-flow tangents]
  for (Accumulator* a : active_accumulators())
    if (!a->paused)
      for (auto& xi : x)
        if (a->tangents.contains(xi->id)) {
          pushing.push_back(a);
          break;
        }
  Tensors outs;
  {
    SuspendTracers suspended;
    for (Tracer* t : suspended.saved)
      for (auto& v : n.flow->assigned) t->before_assign(v);
    for (Accumulator* a : pushing) a->paused++;
    try {
      if (taped) {
        PauseAllTapes paused;
        outs = execute(n, x, true);
      } else {
        outs = execute(n, x, true);
      }
    } catch (...) {
      for (Accumulator* a : pushing) a->paused--;
      throw;
    }
    for (Accumulator* a : pushing) a->paused--;
    // Each result gets its own id: a branch may return an operand or a constant as it is, and the
    // tracers must not take that tensor for this node's output elsewhere.
    for (auto& o : outs) o = view(o, o->shape);
  }
  if (taped) record_gradient_entry(n, x, vars, outs);
  for (Tracer* t : active_tracers()) t->record_control(n, x, outs);
  for (Accumulator* a : pushing) {
    a->paused++;  // its own tangent node is not pushed forward by it again
    Tensors tangents;
    try {
      tangents = control_tangents(n, x, *a);
    } catch (...) {
      a->paused--;
      throw;
    }
    a->paused--;
    for (size_t k = 0; k < outs.size(); ++k)
      if (tangents[k]) a->set(outs[k], tangents[k]);
  }
  return outs;
}

Tensors run_if(std::shared_ptr<Graph> then_g, std::shared_ptr<Graph> else_g, const Tensor& pred, const Tensors& operands) {
  Node n;
  n.kind = NodeKind::If;
  n.flow = make_if(std::move(then_g), std::move(else_g));
  Tensors x = {pred};
  x.insert(x.end(), operands.begin(), operands.end());
  return run_control(n, x, true);
}

Tensors run_while(std::shared_ptr<Graph> cond_g, std::shared_ptr<Graph> body_g, const Tensors& loop_vars,
                  const Tensors& captures, const Tensor& limit) {
  Node n;
  n.kind = NodeKind::While;
  n.flow = make_while(std::move(cond_g), std::move(body_g), (int)loop_vars.size(), limit != nullptr);
  Tensors x = loop_vars;
  x.insert(x.end(), captures.begin(), captures.end());
  if (limit) x.push_back(limit);
  return run_control(n, x, true);
}

}  // namespace tg::graph
