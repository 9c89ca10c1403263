// trace.h -- the graph recorder: while a Tracer is active, apply() appends every op it runs.
//
// Tracing runs the Python function once with the call's real argument tensors (so every value
// is concrete and every shape rule has run); the Tracer maps each tensor id it has seen to the
// node that produces it. An input it has not seen is a constant (captured or created by non-op
// code) or, for a Variable, a variable read. Tracers nest (a Function traced inside another):
// every active tracer records.
#pragma once
#include <unordered_map>
#include <unordered_set>
#include "graph/graph.h"
#include "graph/optimize.h"

namespace tg::graph {

struct Tracer {
  Graph g;
  bool dry = false;  // get_concrete_function: variables assigned and random streams advanced
                     // while tracing are restored after (begin_dry, restore_variables)
  std::unordered_map<int64_t, int> node_of;           // tensor id -> node
  std::vector<std::pair<Tensor, Tensor>> saved_vars;  // (variable, value before the trace assigned it)
  std::unordered_map<int64_t, uint64_t> saved_random; // a dry trace: the random streams before it
  std::unordered_set<std::string> names;              // node names given so far (Note [Node names])
  std::unordered_map<std::string, int> next_suffix;   // per base name, the next "_k" to try
  std::shared_ptr<Graph> traced;                      // the graph as recorded, before optimization
  std::vector<std::pair<std::weak_ptr<TensorImpl>, int>> values;  // op results from the arguments: leak candidates
  std::string leak_use;                               // the first leaked tensor this trace used

  std::string unique_name(const std::string& base);
  // A subgraph trace (a branch or loop body, Note [Control-flow nodes]) runs with the enclosing
  // tracers suspended: `outer` are those tracers, and a value they see as dynamic becomes a
  // placeholder of this graph (a capture) the first time it is used here.
  std::vector<Tracer*> outer;
  Tensors captures;          // the captured outer values, in placeholder order
  bool shapes_vary = false;  // a control-flow result or a value-shaped op has -1 dims: the graph is relaxed
  // Nodes whose shape may differ at a later call from the trace's: the results of value-shaped ops
  // (Note [Value-shaped ops]) and of control flow with -1 dims, and every node computed from one;
  // each with the mask of its dimensions that may differ (Note [Varying dimensions] in varying_dims.cpp).
  std::unordered_map<int, uint64_t> varying;

  void begin_dry();
  // A subgraph trace (a branch or loop body) is dry and runs with the enclosing tracers suspended.
  bool subgraph = false;
  // Makes this the innermost tracer of the thread (a subgraph's: the only one); exit() undoes it and
  // a subgraph's assignments and random draws.
  void enter();
  void exit();

  int placeholder(const Tensor& t, const std::string& name);
  int input_node(const Tensor& t);
  void record_op(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out);
  // The dimensions of op's result that may vary, given its inputs' masks (Note [Varying dimensions]).
  uint64_t result_varying(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out,
                          const std::vector<int>& in, bool value_shaped) const;
  uint64_t shape_vector_varying(int node, const Tensor& value) const;
  void before_assign(const Tensor& var);  // a dry trace saves the variable's value once
  void record_assign(const Tensor& var, const Tensor& value, int mode);
  void record_host_call(std::shared_ptr<HostFn> fn, const Tensors& x, const std::string& label, const Tensors& outs);
  int capture(const Tensor& t);  // a placeholder for an outer value
  // An If / While node `proto` (kind and flow) run on x with results outs.
  void record_control(const Node& proto, const Tensors& x, const Tensors& outs);
  bool sees_dynamic(const Tensor& t) const;  // t depends on an argument or variable here or outside
  const Node* node_for(const Tensor& t) const;  // null when the tracer has not seen t
  void restore_variables();
  void mark_leaks(const Tensors& outputs);  // Note [Leaked tensors]
  // After the trace: the recorded nodes, `outputs` their results, as an optimized graph.
  std::shared_ptr<Graph> finish(const Tensors& outputs, OptimizeStats* stats);
};

// The active tracers of this thread, innermost last. While it is non-empty the tracers observe
// op application (Note [Op observers] in engine/observer.h): every op apply() runs is recorded
// on each of them, and a dry trace saves the Variable inputs a stateful op is about to change.
std::vector<Tracer*>& active_tracers();
inline bool tracing() { return !active_tracers().empty(); }
void push_tracer(Tracer* t);
void pop_tracer(Tracer* t);  // no-op when t is not active

// Makes a tracer active for a scope.
struct ActiveTracer {
  Tracer* t;
  explicit ActiveTracer(Tracer* tr) : t(tr) { push_tracer(t); }
  ~ActiveTracer() { pop_tracer(t); }
  ActiveTracer(const ActiveTracer&) = delete;
  ActiveTracer& operator=(const ActiveTracer&) = delete;
};
// Writes value into var (mode 0 =, 1 +=, 2 -=) and records the assignment on the active tracers.
void traced_assign(const Tensor& var, const Tensor& value, int mode);
// Records on the active tracers a callback that runs with x's values at every call of the graph.
// Note [Host calls with results]: a host call that returns tensors (an MPI collective) ran on
// the trace's real values and gave outs; later ops read them through Output nodes. At run time the
// executor checks each returned tensor against its Output node's dtype and shape (an unknown
// dimension matches any size), so ops after it never see a value of another shape than traced.
// Such values carry no gradient through a graph: run eagerly under a tape that would record
// the call, the executor raises instead of dropping the gradient.
void record_host_call(const std::shared_ptr<HostFn>& fn, const Tensors& x, const std::string& label,
                      const Tensors& outs = {});
// What a traced function receives for a tensor argument: a tensor with its own id and t's value.
// Under a tape that watches t (or an accumulator with a tangent for t) an Identity op links it to
// t, so gradients (tangents) flow to and from the caller's tensor.
Tensor fresh_view(const Tensor& t);
// True when some active tracer sees t as depending on an argument or variable.
bool is_traced_value(const Tensor& t);
// A short description of how the innermost tracer computes t: "Greater(x, 0)".
std::string describe_traced(const Tensor& t);
// The name of t's value in the innermost tracer that saw it ("add:0"), or "".
std::string traced_name(const Tensor& t);
// Whether an active tracer sees t's shape vary from call to call (Tracer::varying).
bool size_varies(const Tensor& t);
// The dimensions of t whose size may vary from call to call: bit d for dimension d (every bit set
// from 64 on), 0 when no active tracer sees t's shape vary.
uint64_t varying_dims(const Tensor& t);

// Note [Leaked tensors]: a value a trace computed from its arguments or variables stands for a
// different value at every call; when Python keeps it past the trace (a list, an attribute),
// its number is the first call's. finish() marks such values (alive, not outputs; nothing when
// a tape or accumulator is active, since a custom_gradient closure may read them later). A later
// trace that uses one records it in leak_use, and an op Python runs on one raises (run_op in
// bindings/convert.h): TypeError naming it, as TF's "out of scope" error.
const std::string* leaked_name(int64_t id);
size_t num_leaked();  // leaked tensors still alive
// Some leaked tensor may be alive (set when one is marked, cleared when none is): while it is
// true, the bindings check the inputs of every op Python runs (check_not_leaked in convert.h).
extern bool g_leaks_alive;

}  // namespace tg::graph
