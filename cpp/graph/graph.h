// graph.h -- a traced function as data: a straight-line list of nodes in execution order.
//
// Terminology: a *node* produces at most one value; its inputs are earlier nodes (so the node
// list is already a topological order). A *placeholder* is a function argument, a *constant*
// a tensor captured while tracing (created outside the trace, or by non-op code inside it),
// a *variable read* a Variable captured by reference (its value is read when the graph runs,
// so assignments between calls are seen). *Assign* and *host call* nodes, and ops with side
// effects (OpDef::stateful: optimizer updates, random draws), are kept by every pass and run
// in their recorded order.
//
// Note [Relaxed graphs]: a graph traced with concrete shapes is valid for exactly those shapes
// (node metas are exact, the executor skips the shape rules). A graph confirmed to be the same
// for two different argument shapes (see same_structure) is *relaxed*: the differing
// dimensions become -1 in the placeholder metas, and the executor re-runs each node's shape
// rule on every call.
//
// Note [Control-flow nodes]: a conditional (If) and a while loop (While) are nodes holding
// subgraphs (ControlFlow). If's inputs are the predicate and the operands its branches read;
// both branches take all operands as their arguments and return the same number of values.
// While's inputs are the loop variables, then the captured values the condition and body read,
// then (with a limit) maximum_iterations; both subgraphs take (loop variables, captures), the
// condition returns a boolean scalar and the body the next loop variables. A captured outer
// value is always an input (a placeholder of the subgraph), never a baked-in constant. A node
// has several results: each is read by an Output node {arg = its index} whose only input is
// the control node, so every pass treats outputs as ordinary single-value nodes. The executor
// (control_flow.h) runs the subgraphs in C++, a loop with no Python per iteration; in eager
// mode each subgraph runs its ops through apply(), so tapes and forward accumulators record
// every iteration (their saved values are the loop's backward), while active tracers record
// the control node itself; under a tracer a tape records the node as one entry whose gradient
// is again a control node (Note [Control-flow gradients] in control_flow.cpp). A While's
// results are its loop variables, then its trip count. Graphs holding control flow keep the
// op-by-op replay under a tape (no single-entry backward plan, Note [Backward graphs]).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "engine/registry.h"

namespace tg::graph {

// A host callback run at its place in the graph; it receives the input values. tf.print returns
// nothing; a collective of tapegrad.distribute returns tensors, each the value of one Output node
// after the HostCall node (as a control node's results; Note [Host calls with results] in trace.h).
using HostFn = std::function<Tensors(const Tensors&)>;

struct FusedGroup;  // fusion.h
struct Graph;

enum class NodeKind : uint8_t { Placeholder, Constant, VariableRead, Op, Assign, HostCall, If, While, Output };

// The subgraphs of a control-flow node (Note [Control-flow nodes]).
struct ControlFlow {
  std::shared_ptr<Graph> first, second;  // If: then, else; While: condition, body
  int num_loop_vars = 0;                 // While
  bool has_limit = false;                // While: the last input is maximum_iterations
  bool keep_history = false;             // While: also returns each loop variable's values per iteration
  std::vector<char> history_read;        // With keep_history: per loop variable, whether its backward reads it
  bool side_effects = false;             // a subgraph assigns, prints or runs a stateful op
  bool reads_variables = false;
  Tensors assigned;                      // variables the subgraphs may change
  std::vector<OutMeta> out_meta;         // per result (-1 dims: may differ between calls)
};

struct Node {
  NodeKind kind = NodeKind::Op;
  const OpDef* op = nullptr;    // Op
  Attrs attrs;                  // Op
  std::vector<int> inputs;      // earlier node indices
  OutMeta meta;                 // traced shape and dtype of the value (-1 dims: relaxed)
  Tensor value;                 // Constant: the value; VariableRead / Assign: the variable
  int arg = -1;                 // Placeholder: position among the flat tensor arguments
  int mode = 0;                 // Assign: 0 assign, 1 add, 2 sub
  bool dynamic = false;         // depends on an argument or a variable
  std::string name;             // placeholder name / host call label
  std::shared_ptr<HostFn> host; // HostCall
  std::shared_ptr<const FusedGroup> fused;  // Op "Fused": its member ops and kernel program
  std::shared_ptr<const ControlFlow> flow;  // If / While

  bool side_effect() const {
    return kind == NodeKind::Assign || kind == NodeKind::HostCall || (kind == NodeKind::Op && op->stateful) ||
           (flow && flow->side_effects);
  }
  bool is_control() const { return kind == NodeKind::If || kind == NodeKind::While; }
};

struct Graph {
  std::vector<Node> nodes;
  std::vector<int> outputs;   // node per flat output
  int num_args = 0;
  bool relaxed = false;       // see Note [Relaxed graphs]
  int64_t work = 0;           // sum of traced output sizes: large graphs run without the GIL
  Tensors variables;          // every variable the graph reads or assigns
  std::vector<std::vector<int>> drop_after;  // per node: values whose last use it is
  bool has_host_calls = false;
  bool has_control_flow = false;  // an If or While node (Note [Control-flow nodes])

  // Readable text: one line per node with op, inputs, attributes, shape and dtype.
  std::string to_text() const;
  // Graphviz DOT: nodes labelled with op, shape and dtype; edges from inputs.
  std::string to_dot() const;
  // Recomputes work, variables and drop_after after the node list changed.
  void finalize();
};

std::string meta_text(const OutMeta& m);   // "float32[2, ?]"
std::string attrs_text(const Attrs& a);    // "{axis=[0], keepdims=false}"

// True when a and b are the same computation (ops, attributes, edges, constants, variables),
// allowing placeholder dimensions to differ; otherwise *why names the first difference.
bool same_structure(const Graph& a, const Graph& b, std::string* why);

// The op of each node in execution order: its registry name, or Placeholder, Const,
// ReadVariable, AssignVariable, HostCall, If, While, Output.
std::vector<std::string> node_ops(const Graph& g);
// The TF op type of a node as graph inspection shows it (Note [Node names] in trace.cpp names the
// nodes), and whether it has a value (an assignment, host call, If or While has none of its own).
std::string tf_op_type(const Node& n);
bool has_value(const Node& n);

// Relaxes g (Note [Relaxed graphs]): placeholder i takes shapes[i] (-1: any size), and every
// other node's dims that differ from `other` (the same structure traced for other shapes) become -1.
void relax(Graph& g, const std::vector<Shape>& shapes, const Graph& other);
// Marks g relaxed with its subgraphs (their arguments may then take any size): a trace whose sizes
// follow values (Note [Value-shaped ops]) passes varying values into its loops and conditionals.
void relax_with_subgraphs(Graph& g);

// True when g or a subgraph of it assigns a variable, prints or runs a stateful op.
bool has_side_effects(const Graph& g);

}  // namespace tg::graph
