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
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include "engine/registry.h"

namespace tg::graph {

// A host callback run at its place in the graph (tf.print); it receives the input values.
using HostFn = std::function<void(const Tensors&)>;

struct FusedGroup;  // fusion.h

enum class NodeKind : uint8_t { Placeholder, Constant, VariableRead, Op, Assign, HostCall };

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

  bool side_effect() const {
    return kind == NodeKind::Assign || kind == NodeKind::HostCall || (kind == NodeKind::Op && op->stateful);
  }
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
// ReadVariable, AssignVariable, HostCall.
std::vector<std::string> node_ops(const Graph& g);

// Relaxes g (Note [Relaxed graphs]): placeholder i takes shapes[i] (-1: any size), and every
// other node's dims that differ from `other` (the same structure traced for other shapes) become -1.
void relax(Graph& g, const std::vector<Shape>& shapes, const Graph& other);

}  // namespace tg::graph
