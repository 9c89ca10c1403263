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
//
// Note [Untracked sources]: only a tensor the tape tracks (watched, or the output of an entry
// on it) is a source the sweep differentiates with respect to, as in TF: a constant or a
// variable the tape did not watch gets None (zeros with UnconnectedGradients.ZERO) even when
// the target depends on it through recorded ops; a source that is also a target keeps its seed.
//
// Note [Lazy broadcast gradients]: a gradient may be held in a shape that broadcasts to its
// tensor's shape: the rule of a reduction returns one value per reduced slice (the gradient
// of reduce_sum(f(x)) is one number for all of x), and a rule elementwise in g
// (OpDef::broadcast_grad: the elementwise rows) passes such a g on through broadcasting, so
// g * f'(x) reads the one number instead of a materialised array. The gradient is broadcast
// where a consumer needs its full shape: before any other rule, a custom gradient, in a
// batched sweep, and when returned.
//
// Note [Uniform gradients]: a rule marked uniform_grad (MatMul) also receives a one-element g
// that stands for that value everywhere in its output, and may use it: the gradient of
// reduce_sum(A @ B) with respect to A is every row equal to the row sums of B (times g), one
// reduction instead of a matrix product with a matrix of ones.
#include <array>
#include <algorithm>
#include "core/error.h"
#include "engine/math.h"
#include "engine/observer.h"
#include "engine/tape.h"

namespace tg {

namespace {

// Note [Sweep workspace]: the vectors a sweep fills -- the kept entries, each rule's upstream
// gradients and needs -- keep their capacity from one gradient() to the next on a thread (a scalar
// sweep was mostly allocations). A sweep that starts while another runs on the thread (a rule
// calling gradient()) leases a workspace of its own; a large one is not kept.
struct Workspace {
  std::vector<size_t> kept;
  Tensors out_grads;
  std::vector<bool> needs;
};

thread_local std::unique_ptr<Workspace> t_spare_workspace;

class WorkspaceLease {  // (made and destroyed on one thread: the slot is looked up once)
 public:
  WorkspaceLease() : spare_(&t_spare_workspace), w_(std::move(*spare_)) {
    if (!w_) w_ = std::make_unique<Workspace>();
  }
  ~WorkspaceLease() {
    w_->kept.clear();
    w_->out_grads.clear();
    if (!*spare_ && w_->kept.capacity() <= 4096) *spare_ = std::move(w_);
  }
  WorkspaceLease(const WorkspaceLease&) = delete;
  WorkspaceLease& operator=(const WorkspaceLease&) = delete;
  Workspace& operator*() const { return *w_; }

 private:
  std::unique_ptr<Workspace>* spare_;
  std::unique_ptr<Workspace> w_;
};

struct Pruned {
  const std::vector<size_t>& entries;  // indices into tape.entries, oldest first
  IdSet from_sources;                  // ids that depend on a source
};

// Fills kept (empty) with the entries on a path from a source to a target.
Pruned prune(const Tape& tape, TensorSpan targets, TensorSpan sources, std::vector<size_t>& kept) {
  Pruned p{kept, {}};
  for (auto& s : sources)  // See Note [Untracked sources]
    if (tape.tracked.contains(s->id)) p.from_sources.insert(s->id);
  // first the reachable entries, then filtered in place
  kept.reserve(tape.entries.size());
  for (size_t i = 0; i < tape.entries.size(); ++i) {
    auto& e = tape.entries[i];
    for (auto& x : e.inputs)
      if (p.from_sources.contains(x->id)) {
        for (auto& o : e.outputs) p.from_sources.insert(o->id);
        kept.push_back(i);
        break;
      }
  }
  IdSet needed;
  for (auto& t : targets) needed.insert(t->id);
  size_t first = kept.size();  // the kept entries end up in kept[first:], oldest first
  for (size_t k = kept.size(); k-- > 0;) {
    auto& e = tape.entries[kept[k]];
    bool use = false;
    for (auto& o : e.outputs) use |= needed.contains(o->id);
    if (!use) continue;
    kept[--first] = kept[k];  // first >= k: only visited positions are overwritten
    for (auto& x : e.inputs) needed.insert(x->id);
  }
  kept.erase(kept.begin(), kept.begin() + (long)first);
  return p;
}

using GradMap = IdMap<Tensor>;

// The gradient for a tensor of shape `shape`, from g standing for a gradient of shape `logical`
// (g broadcast to it): summed over the axes logical has beyond shape. An axis along which g has
// one value is summed by multiplying with its extent, so the result still broadcasts to shape
// (Note [Lazy broadcast gradients]).
Tensor reduce_toward(const Tensor& g, const Shape& shape, const Shape& logical) {
  if (g->shape == shape && shape == logical) return g;  // (g of shape [1] for [1] may stand for [3])
  const int lead = (int)logical.size() - (int)shape.size(), skip = (int)logical.size() - g->ndim();
  Shape b;
  bool fits = lead >= 0 && skip >= 0 && broadcast_shapes(g->shape, logical, b) && b == logical;
  for (int i = std::max(lead, 0); fits && i < (int)logical.size(); ++i)
    fits = shape[i - lead] == 1 || shape[i - lead] == logical[i];
  if (!fits)
    throw InvalidArgument(cat("a gradient of ", meta_str(g), " cannot be reduced to shape ", shape_str(shape)));
  std::vector<int64_t> axes;
  double times = 1;
  for (int i = 0; i < (int)logical.size(); ++i) {
    if (i >= lead && !(shape[i - lead] == 1 && logical[i] != 1)) continue;
    const int gi = i - skip;  // g's axis, if it has one
    if (gi >= 0 && g->shape[gi] != 1) axes.push_back(gi);
    else times *= (double)logical[i];
  }
  if (times == 0) return sum_to(broadcast_to(g, logical), shape);  // a sum of nothing is 0, even of inf
  Tensor s = axes.empty() ? g : reduce_sum(g, axes, true);
  if (skip < lead) s = reshape(s, Shape(s->shape.begin() + (lead - skip), s->shape.end()));
  return times == 1 ? s : s * times;
}

bool has_unit_dim(const Shape& s) { return std::find(s.begin(), s.end(), 1) != s.end(); }

// In a trace whose sizes vary with values (Note [Sizes in traced rules], mode 2), whether g must be
// summed or broadcast to t's shape is decided at run time: a dimension of 1 at the trace may be n.
bool fit_at_run_time(const Tensor& g, const Tensor& t) {
  return sizes_vary_with_values() && !(g->shape == t->shape && !has_unit_dim(t->shape));
}

// g broadcast to the shape of t, whose gradient it is; in a trace the broadcast reads t's run-time
// shape (Note [Sizes in traced rules]).
Tensor full_shape_of(const Tensor& g, const Tensor& t) {
  if (fit_at_run_time(g, t)) return call("SumToLike", {g, t});
  if (g->shape == t->shape) return g;
  return sizes_at_run_time() ? call("BroadcastLike", {g, t}) : broadcast_to(g, t->shape);
}

// Adds g into grads[like]. g stands for a gradient of shape logical (null: its own shape).
void accumulate(GradMap& grads, const Tensor& like, Tensor g, const Shape& batch_prefix,
                const Shape* logical = nullptr) {
  Shape b;  // a gradient that broadcasts to like (a custom gradient's scalar, say) stands for like's shape
  if (!logical && (g->shape == like->shape || (broadcast_shapes(g->shape, like->shape, b) && b == like->shape)))
    logical = &like->shape;
  if (!batch_prefix.empty()) g = sum_to(g, like->shape, batch_prefix);
  else if (fit_at_run_time(g, like)) g = call("SumToLike", {g, like});  // (never lazy then: sweep_entry)
  else if (!(g->shape == like->shape && *logical == like->shape))  // (else nothing to reduce)
    g = reduce_toward(g, like->shape, logical ? *logical : g->shape);
  if (g->dtype != like->dtype) g = cast(g, like->dtype);
  auto slot = grads.insert(like->id);
  if (*slot.first) add_into(*slot.first, g);
  else *slot.first = std::move(g);
}

// Note [Shared seed]: in eager mode with nothing observing ops (no tape records the rules' ops, no
// tracer turns the seed into a graph constant), the seed of a scalar target is one tensor per dtype,
// made once and never written (a tensor only the sweep holds is summed into in place, Note
// [Gradient sums in place]; the seed is held here too). run_sweep hands a copy to the caller when a
// gradient is the seed itself, so no two results share a tensor id. Traced and recorded sweeps make
// a fresh seed: a trace tells its own constants from captured ones by id (grad_graph.cpp).
const Tensor& shared_seed(DType dtype) {
  static const std::array<Tensor, kNumDTypes> seeds = [] {
    std::array<Tensor, kNumDTypes> s;
    for (int c = 0; c < kNumDTypes; ++c)
      if (is_valid_dtype(c)) s[(size_t)c] = scalar(1, (DType)c);
    return s;
  }();
  return seeds[(size_t)dtype];
}

bool is_shared_seed(const Tensor& g) { return g && g->ndim() == 0 && g == shared_seed(g->dtype); }

Tensor ones_seed(const Tensor& t) {
  return t->ndim() == 0 && !any_observer() ? shared_seed(t->dtype) : ones_like(t);
}

void initial_grads(GradMap& grads, TensorSpan targets, const GradientRequest& req) {
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor& t = targets[i];
    Tensor seed = req.output_gradients.empty() || !req.output_gradients[i] ? ones_seed(t)
                                                                            : req.output_gradients[i];
    if (seed->dtype != t->dtype)
      throw InvalidArgument(cat("output_gradients of ", meta_str(seed), " does not match target of ", meta_str(t)));
    const Shape prefix = req.batch ? Shape{seed->shape.at(0)} : Shape{};
    accumulate(grads, t, std::move(seed), prefix);
  }
}

Tensors run_rule_once(TapeEntry& e, const Tensors& out_grads, const std::vector<bool>& needs, int batch) {
  if (e.custom) return (*e.custom)(out_grads);
  const OpDef& op = *e.op;
  if (!op.grad) throw InvalidArgument(cat("no gradient is defined for op '", op.name, "'"));
  GradCtx ctx{e.inputs, e.outputs[0], out_grads[0], e.attrs, needs, batch};
  return op.grad(ctx);
}

// Row b of a batched gradient, through registered ops so outer tapes can follow it.
Tensor batch_row(const Tensor& g, int64_t b) {
  std::vector<int64_t> begin(g->ndim(), 0), end(g->shape.begin(), g->shape.end()), strides(g->ndim(), 1);
  begin[0] = b;
  end[0] = b + 1;
  return reshape(strided_slice(g, begin, end, strides), Shape(g->shape.begin() + 1, g->shape.end()));
}

// See Note [Batched gradients]: a rule that cannot take a batched g runs once per row.
Tensors run_rule(TapeEntry& e, const Tensors& out_grads, const std::vector<bool>& needs, int batch) {
  if (!batch || (e.op && e.op->batched_rule)) return run_rule_once(e, out_grads, needs, batch);
  const int64_t rows = out_grads[0]->shape[0];
  if (rows == 0) {  // an empty batch (the jacobian of a 0-size target): every needed gradient is empty
    Tensors result(e.inputs.size());
    for (size_t i = 0; i < result.size(); ++i)
      if (needs[i]) {
        Shape s = e.inputs[i]->shape;
        s.insert(s.begin(), 0);
        result[i] = zeros(s, e.inputs[i]->dtype);
      }
    return result;
  }
  std::vector<Tensors> per_input(e.inputs.size());
  for (int64_t b = 0; b < rows; ++b) {
    Tensors row;
    for (auto& g : out_grads) row.push_back(batch_row(g, b));
    Tensors r = run_rule_once(e, row, needs, 0);
    for (size_t i = 0; i < r.size() && i < per_input.size(); ++i)
      if (r[i]) {
        Tensor gi = sum_to(r[i], e.inputs[i]->shape);
        Shape one = gi->shape;
        one.insert(one.begin(), 1);
        per_input[i].push_back(reshape(gi, one));
      }
  }
  Tensors result(e.inputs.size());
  for (size_t i = 0; i < result.size(); ++i)
    if (per_input[i].size() == (size_t)rows && rows > 0) result[i] = concat(per_input[i], 0);
  return result;
}

// See Note [Final gradients] (tape.h): which sources become final after the entry at each
// position of p.entries (a source no kept entry reads is final before the sweep: position -1).
struct FinalPlan {
  std::vector<std::vector<size_t>> after;  // by position in p.entries
  std::vector<size_t> at_start, order;
};

FinalPlan plan_finals(const Tape& tape, const Pruned& p, const GradientRequest& req) {
  FinalPlan f;
  f.after.resize(p.entries.size());
  IdMap<size_t> first_read;  // source id -> position of the oldest kept entry reading it
  for (auto& s : req.sources) first_read.insert(s->id, SIZE_MAX);
  for (size_t k = 0; k < p.entries.size(); ++k)
    for (auto& x : tape.entries[p.entries[k]].inputs)
      if (size_t* pos = first_read.find(x->id); pos && *pos == SIZE_MAX) *pos = k;
  IdSet targets;
  for (auto& t : req.targets) targets.insert(t->id);
  for (size_t i = 0; i < req.sources.size(); ++i) {
    const int64_t id = req.sources[i]->id;
    if (!p.from_sources.contains(id)) continue;
    const size_t k = *first_read.find(id);
    if (k != SIZE_MAX) f.after[k].push_back(i);
    else if (targets.contains(id)) f.at_start.push_back(i);
  }
  f.order = f.at_start;
  for (size_t k = p.entries.size(); k-- > 0;) f.order.insert(f.order.end(), f.after[k].begin(), f.after[k].end());
  return f;
}

void announce(const std::vector<size_t>& finals, const GradientRequest& req, GradMap& grads) {
  for (size_t i : finals) {
    const Tensor& s = req.sources[i];
    Tensor* g = grads.find(s->id);
    Tensor full = g && *g ? full_shape_of(*g, s) : nullptr;
    if (is_shared_seed(full)) full = copy(full);  // Note [Shared seed]
    if (g && *g) *g = full;
    req.on_final(i, full);
  }
}

// Runs the rule of one entry and accumulates what it returns.
void sweep_entry(TapeEntry& e, const Pruned& p, GradMap& grads, const IdSet& keep, int batch, int64_t rows,
                 bool drop_saved, Workspace& scratch) {
  Tensors& out_grads = scratch.out_grads;
  out_grads.clear();
  bool any = false;
  // A rule RegisterGradient put in sees and returns full shapes, as TF's rules do; so does every rule
  // in a trace whose sizes vary with values (a lazy g's stand-in shape is the trace's).
  const bool shapes_known = !batch && !sizes_vary_with_values();
  const bool lazy_ok = shapes_known && e.op && e.op->broadcast_grad && grad_is_builtin(*e.op);
  const bool uniform_ok = shapes_known && e.op && e.op->uniform_grad && grad_is_builtin(*e.op);  // Note [Uniform gradients]
  for (auto& o : e.outputs) {
    Tensor* g = grads.find(o->id);
    if (g && *g) {
      const bool as_is = lazy_ok || batch || (uniform_ok && (*g)->size == 1);
      const bool complete = !keep.contains(o->id);  // every consumer is newer: the slot is done
      if (as_is && complete) out_grads.push_back(std::move(*g));
      else out_grads.push_back(as_is ? *g : full_shape_of(*g, o));
      any = true;
      if (complete) *g = nullptr;
    } else {
      Shape s = o->shape;
      if (batch) s.insert(s.begin(), rows);
      out_grads.push_back(zeros(s, o->dtype));
    }
  }
  if (!any) {
    out_grads.clear();
    return;
  }
  std::vector<bool>& needs = scratch.needs;
  needs.assign(e.inputs.size(), false);
  for (size_t i = 0; i < needs.size(); ++i)
    needs[i] = p.from_sources.contains(e.inputs[i]->id) && any_floating(e.inputs[i]->dtype);
  Tensors in_grads;
  if (g_check_numerics) {
    const std::string context = cat("the gradient of ", e.op ? e.op->name : std::string("a custom_gradient function"),
                                    " (op run at ", e.site.empty() ? std::string("?") : e.site, ")");
    g_backward_context = &context;
    try {
      in_grads = run_rule(e, out_grads, needs, batch);
    } catch (...) {
      g_backward_context = nullptr;
      throw;
    }
    g_backward_context = nullptr;
  } else {
    in_grads = run_rule(e, out_grads, needs, batch);
  }
  if (in_grads.size() > e.inputs.size())
    throw InvalidArgument(cat(e.op ? e.op->name : std::string("custom_gradient"), ": the gradient function returned ",
                              in_grads.size(), " gradients for ", e.inputs.size(), " inputs"));
  if (g_check_numerics)
    for (size_t i = 0; i < in_grads.size(); ++i)
      if (in_grads[i] && needs[i])
        check_finite(in_grads[i], cat("the gradient of ", e.op ? e.op->name : std::string("a custom_gradient function"),
                                      " (input ", i, ", op run at ", e.site.empty() ? std::string("?") : e.site, ")"));
  for (size_t i = 0; i < in_grads.size(); ++i)
    if (in_grads[i] && needs[i])  // an elementwise rule's results stand for the output's shape
      accumulate(grads, e.inputs[i], std::move(in_grads[i]), batch ? Shape{rows} : Shape{},
                 lazy_ok ? &e.outputs[0]->shape : nullptr);
  out_grads.clear();
  if (drop_saved) {
    e.inputs.clear();
    e.outputs.clear();
  }
}

void sweep(Tape& tape, const Pruned& p, GradMap& grads, const IdSet& keep, int batch, int64_t rows,
           bool drop_saved, const GradientRequest& req, const FinalPlan* finals, Workspace& scratch) {
  for (size_t k = p.entries.size(); k-- > 0;) {
    sweep_entry(tape.entries[p.entries[k]], p, grads, keep, batch, rows, drop_saved, scratch);
    if (finals && !finals->after[k].empty()) announce(finals->after[k], req, grads);
  }
}

// Note [Gradients inside the context]: gradient() (or jacobian(), batched sweeps included) called on a
// persistent tape inside its `with` block (and not under stop_recording) records the sweep's ops on
// that tape, as TF does, so a
// gradient of that gradient follows them: `u_x = tape.gradient(u, x)` in the block, then
// `tape.gradient(u_x, x)` is u's second derivative (a PINN's one-tape form). The sweep reads
// tape.entries while its rules run, so their new entries collect in a side list (Tape::sink) and
// join the tape when the sweep ends. Elsewhere the tape records nothing of its own sweep.
struct SweepRecording {
  Tape& tape;
  std::vector<TapeEntry> added;
  bool records;
  SweepRecording(Tape& t, const GradientRequest& req) : tape(t) {
    auto& active = active_tapes();
    records = t.persistent && t.paused == 0 && !t.sink &&
              std::find(active.begin(), active.end(), &t) != active.end();
    if (records) t.sink = &added;
    else t.paused++;
  }
  ~SweepRecording() {
    if (!records) {
      tape.paused--;
      return;
    }
    tape.sink = nullptr;
    for (auto& e : added) tape.entries.push_back(std::move(e));
  }
};

// The sweep of gradient(): targets and sources are read in place and source i's gradient is
// written to result[i]. A streamed request (on_final) passes its own targets and sources.
void run_sweep(Tape& tape, TensorSpan targets, TensorSpan sources, const GradientRequest& req, Tensor* result) {
  if (tape.used)
    throw TapeMisuse("A non-persistent GradientTape can only be used to compute one set of gradients "
                     "(or jacobians)");
  WorkspaceLease ws;
  Pruned p = prune(tape, targets, sources, (*ws).kept);
  IdSet keep;
  for (auto& s : sources) keep.insert(s->id);
  GradMap grads;
  try {
    SweepRecording recording(tape, req);
    initial_grads(grads, targets, req);
    const int64_t rows = req.batch ? req.output_gradients.at(0)->shape.at(0) : 0;
    FinalPlan finals;
    const bool streamed = req.on_final && !req.batch;
    if (streamed) {
      finals = plan_finals(tape, p, req);
      req.on_order(finals.order);
      announce(finals.at_start, req, grads);
    }
    sweep(tape, p, grads, keep, req.batch, rows, !tape.persistent && !req.keep_tape, req, streamed ? &finals : nullptr,
          *ws);
  } catch (...) {
    if (!tape.persistent && !req.keep_tape) tape.used = true;
    throw;
  }
  if (!tape.persistent && !req.keep_tape) {
    tape.used = true;
    tape.entries.clear();
  }
  for (size_t i = 0; i < sources.size(); ++i) {
    const Tensor& s = sources[i];
    Tensor* g = grads.find(s->id);
    bool integral = !any_floating(s->dtype);
    if (g && *g && !integral) result[i] = req.batch ? *g : full_shape_of(*g, s);
    else if (req.unconnected_zero && !integral) {
      Shape shape = s->shape;
      if (req.batch) shape.insert(shape.begin(), req.output_gradients[0]->shape[0]);
      result[i] = zeros(shape, s->dtype);
    }
    if (is_shared_seed(result[i])) result[i] = copy(result[i]);  // Note [Shared seed]
  }
}

}  // namespace

Tensors gradient(Tape& tape, const GradientRequest& req) {
  Tensors result(req.sources.size());
  run_sweep(tape, req.targets, req.sources, req, result.data());
  return result;
}

Tensor gradient(Tape& tape, const Tensor& target, const Tensor& source) {
  static const GradientRequest defaults;
  Tensor result;
  run_sweep(tape, {&target, 1}, {&source, 1}, defaults, &result);
  return result;
}

}  // namespace tg
