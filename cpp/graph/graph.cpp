// graph.cpp -- printing a graph as text and Graphviz DOT, and comparing two traces.
#include "graph/graph.h"
#include <cstring>
#include <sstream>
#include "core/error.h"
#include "graph/fusion.h"

namespace tg::graph {

std::string meta_text(const OutMeta& m) {
  std::string s = dtype_name(m.dtype);
  s += "[";
  for (size_t i = 0; i < m.shape.size(); ++i) s += (i ? ", " : "") + (m.shape[i] < 0 ? std::string("?") : std::to_string(m.shape[i]));
  return s + "]";
}

static std::string attr_value_text(const AttrValue& v) {
  return std::visit([](auto& x) -> std::string {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
    else if constexpr (std::is_same_v<T, std::string>) return "\"" + x + "\"";
    else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
      std::string s = "[";
      for (size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + std::to_string(x[i]);
      return s + "]";
    } else if constexpr (std::is_same_v<T, double>) {
      std::ostringstream o;
      o << x;
      return o.str();
    } else return std::to_string(x);
  }, v);
}

std::string attrs_text(const Attrs& a) {
  if (a.items.empty()) return "";
  std::string s = "{";
  for (size_t i = 0; i < a.items.size(); ++i) s += (i ? ", " : "") + a.items[i].first + "=" + attr_value_text(a.items[i].second);
  return s + "}";
}

// A constant's value when it is small enough to read at a glance.
static std::string constant_text(const Tensor& t) {
  if (t->size != 1) return "<" + meta_str(t) + ">";
  std::ostringstream o;
  double v = scalar_value(t);
  if (t->dtype == DType::Bool) o << (v != 0 ? "true" : "false");
  else o << v;
  return o.str();
}

static std::string node_head(const Node& n) {
  switch (n.kind) {
    case NodeKind::Placeholder: return "Placeholder " + n.name;
    case NodeKind::Constant: return "Const " + constant_text(n.value);
    case NodeKind::VariableRead: return "ReadVariable";
    case NodeKind::Op:
      if (!n.fused) return n.op->name;
      return "Fused[" + n.fused->member_list() + "]" +
             (n.fused->shared_exp ? " {" + std::to_string(n.fused->shared_exp) + " share exp(-|x|)}" : "");
    case NodeKind::Assign: return n.mode == 0 ? "AssignVariable" : n.mode == 1 ? "AssignAddVariable" : "AssignSubVariable";
    case NodeKind::HostCall: return "HostCall " + n.name;
    case NodeKind::If: return "If";
    case NodeKind::While: return n.flow->has_limit ? "While {maximum_iterations}" : "While";
    case NodeKind::Output: return "Output " + std::to_string(n.arg);
  }
  return "?";
}

// The subgraphs of a control-flow node, indented under it.
static void subgraphs_text(std::ostringstream& o, const Node& n) {
  const bool is_if = n.kind == NodeKind::If;
  const std::pair<const char*, const Graph*> parts[] = {{is_if ? "then" : "cond", n.flow->first.get()},
                                                        {is_if ? "else" : "body", n.flow->second.get()}};
  for (auto& [label, sub] : parts) {
    std::istringstream lines(sub->to_text());
    std::string line;
    bool head = true;
    while (std::getline(lines, line)) {
      o << "      " << (head ? std::string(label) + ": " : std::string()) << line << "\n";
      head = false;
    }
  }
}

std::string Graph::to_text() const {
  std::ostringstream o;
  o << "graph(" << num_args << " args -> " << outputs.size() << " outputs, " << nodes.size() << " nodes"
    << (relaxed ? ", relaxed shapes" : "") << ")\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    std::string line = "  %" + std::to_string(i) + " = " + node_head(n);
    if (n.kind == NodeKind::Op || n.kind == NodeKind::Assign || n.kind == NodeKind::HostCall || n.is_control() ||
        n.kind == NodeKind::Output) {
      line += "(";
      for (size_t k = 0; k < n.inputs.size(); ++k) line += (k ? ", %" : "%") + std::to_string(n.inputs[k]);
      line += ")";
      if (n.kind == NodeKind::Op && !n.attrs.items.empty()) line += " " + attrs_text(n.attrs);
    }
    if (n.kind == NodeKind::Op || n.kind == NodeKind::Placeholder || n.kind == NodeKind::Constant ||
        n.kind == NodeKind::VariableRead || n.kind == NodeKind::Output) {
      if (line.size() < 48) line.resize(48, ' ');
      line += " : " + meta_text(n.meta);
    }
    o << line << "\n";
    if (n.is_control()) subgraphs_text(o, n);
  }
  o << "  return";
  for (size_t k = 0; k < outputs.size(); ++k) o << (k ? ", %" : " %") << outputs[k];
  o << "\n";
  return o.str();
}

static std::string dot_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

// The nodes and edges of g, named with prefix; a control-flow node's subgraphs are clusters.
static void dot_body(std::ostringstream& o, const Graph& g, const std::string& p) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    std::string label = dot_escape(node_head(n));
    if (n.kind == NodeKind::Op && !n.attrs.items.empty()) label += "\\n" + dot_escape(attrs_text(n.attrs));
    if (!n.side_effect() && !n.is_control()) label += "\\n" + meta_text(n.meta);
    const char* style = n.kind == NodeKind::Placeholder ? ", style=filled, fillcolor=lightblue"
                        : n.kind == NodeKind::Constant ? ", style=filled, fillcolor=lightgrey"
                        : n.kind == NodeKind::VariableRead ? ", style=filled, fillcolor=lightyellow"
                        : n.side_effect() ? ", style=filled, fillcolor=pink"
                        : n.is_control() ? ", style=filled, fillcolor=lightcyan"
                        : n.fused ? ", style=filled, fillcolor=palegreen" : "";
    const std::string id = p + "n" + std::to_string(i);
    o << "  " << id << " [label=\"" << label << "\"" << style << "];\n";
    for (int in : n.inputs) o << "  " << p << "n" << in << " -> " << id << ";\n";
    if (!n.is_control()) continue;
    const bool is_if = n.kind == NodeKind::If;
    const std::pair<const char*, const Graph*> parts[] = {{is_if ? "then" : "cond", n.flow->first.get()},
                                                          {is_if ? "else" : "body", n.flow->second.get()}};
    for (auto& [name, sub] : parts) {
      const std::string q = id + name + "_";
      o << "  subgraph cluster_" << q << " {\n  label=\"" << name << "\";\n";
      dot_body(o, *sub, q);
      for (size_t k = 0; k < sub->outputs.size(); ++k) o << "  " << q << "n" << sub->outputs[k] << " -> " << id << " [style=dotted];\n";
      o << "  }\n";
    }
  }
}

std::string Graph::to_dot() const {
  std::ostringstream o;
  o << "digraph G {\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n";
  dot_body(o, *this, "");
  for (size_t k = 0; k < outputs.size(); ++k) {
    o << "  out" << k << " [label=\"output " << k << "\", shape=ellipse];\n";
    o << "  n" << outputs[k] << " -> out" << k << ";\n";
  }
  o << "}\n";
  return o.str();
}

void Graph::finalize() {
  work = 0;
  variables.clear();
  has_host_calls = false;
  has_control_flow = false;
  std::vector<int> last(nodes.size(), -1);
  auto add_variable = [&](const Tensor& v) {
    bool known = false;
    for (auto& w : variables) known |= w == v;
    if (!known) variables.push_back(v);
  };
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    if (n.kind == NodeKind::Op) {
      int64_t s = 1;
      for (int64_t d : n.meta.shape) s *= d < 0 ? 1024 : d;
      work += s;
    }
    if (n.kind == NodeKind::VariableRead || n.kind == NodeKind::Assign) add_variable(n.value);
    has_host_calls |= n.kind == NodeKind::HostCall;
    if (n.is_control()) {
      has_control_flow = true;
      for (const Graph* sub : {n.flow->first.get(), n.flow->second.get()}) {
        for (auto& v : sub->variables) add_variable(v);
        has_host_calls |= sub->has_host_calls;
        work += sub->work;
      }
    }
    for (int in : n.inputs) last[in] = (int)i;
  }
  for (int o : outputs) last[o] = (int)nodes.size();  // outputs live to the end
  drop_after.assign(nodes.size(), {});
  for (size_t v = 0; v < nodes.size(); ++v)
    if (last[v] >= 0 && last[v] < (int)nodes.size()) drop_after[last[v]].push_back((int)v);
}

static bool same_constant(const Tensor& a, const Tensor& b) {
  if (a == b) return true;
  return a->dtype == b->dtype && a->shape == b->shape && std::memcmp(a->data(), b->data(), a->nbytes()) == 0;
}

bool same_structure(const Graph& a, const Graph& b, std::string* why) {
  auto fail = [&](size_t i, const std::string& what) {
    if (why) *why = cat("node %", i, " (", i < a.nodes.size() ? node_head(a.nodes[i]) : std::string("?"), "): ", what);
    return false;
  };
  if (a.nodes.size() != b.nodes.size())
    return fail(std::min(a.nodes.size(), b.nodes.size()), cat("the traces have ", a.nodes.size(), " and ", b.nodes.size(), " nodes"));
  if (a.outputs != b.outputs) return fail(0, "the outputs differ");
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node &x = a.nodes[i], &y = b.nodes[i];
    if (x.kind != y.kind || x.op != y.op) return fail(i, "a different op was traced");
    if (x.inputs != y.inputs) return fail(i, "the inputs differ");
    if (x.meta.dtype != y.meta.dtype || x.meta.shape.size() != y.meta.shape.size()) return fail(i, "the dtype or rank differs");
    switch (x.kind) {
      case NodeKind::Placeholder:
        if (x.arg != y.arg) return fail(i, "argument order differs");
        break;
      case NodeKind::Constant:
        if (!same_constant(x.value, y.value))
          return fail(i, cat("a constant differs (", meta_str(x.value), " vs ", meta_str(y.value),
                             "): the function computed it from an argument's shape"));
        break;
      case NodeKind::VariableRead:
      case NodeKind::Assign:
        if (x.value != y.value || x.mode != y.mode) return fail(i, "a different variable");
        break;
      case NodeKind::Op:
        if (x.fused && y.fused && !same_fused(*x.fused, *y.fused)) return fail(i, "different ops were fused");
        if (!(x.attrs.items == y.attrs.items))
          return fail(i, cat("attributes differ (", attrs_text(x.attrs), " vs ", attrs_text(y.attrs),
                             "): the function computed them from an argument's shape"));
        break;
      case NodeKind::HostCall:
        if (x.name != y.name) return fail(i, "a different host call");
        break;
      case NodeKind::If:
      case NodeKind::While: {
        const ControlFlow &f = *x.flow, &h = *y.flow;
        if (f.num_loop_vars != h.num_loop_vars || f.has_limit != h.has_limit) return fail(i, "a different loop");
        std::string inner;
        if (!same_structure(*f.first, *h.first, &inner) || !same_structure(*f.second, *h.second, &inner))
          return fail(i, "a subgraph differs: " + inner);
        break;
      }
      case NodeKind::Output:
        if (x.arg != y.arg) return fail(i, "a different output");
        break;
    }
  }
  return true;
}

bool has_side_effects(const Graph& g) {
  for (auto& n : g.nodes)
    if (n.side_effect()) return true;
  return false;
}

std::string tf_op_type(const Node& n) {
  switch (n.kind) {
    case NodeKind::Op: return n.fused ? "Fused" : n.op->name;
    case NodeKind::Placeholder: return "Placeholder";
    case NodeKind::Constant: return "Const";
    case NodeKind::VariableRead: return "ReadVariableOp";
    case NodeKind::Assign: return n.mode == 0 ? "AssignVariableOp" : n.mode == 1 ? "AssignAddVariableOp" : "AssignSubVariableOp";
    case NodeKind::HostCall: return "PrintV2";
    case NodeKind::If: return "If";
    case NodeKind::While: return "While";
    case NodeKind::Output: return "Identity";  // one result of the If / While before it
  }
  return "?";
}

bool has_value(const Node& n) {
  return n.kind != NodeKind::Assign && n.kind != NodeKind::HostCall && n.kind != NodeKind::If && n.kind != NodeKind::While;
}

std::vector<std::string> node_ops(const Graph& g) {
  std::vector<std::string> r;
  for (auto& n : g.nodes) {
    switch (n.kind) {
      case NodeKind::Op: r.push_back(n.op->name); break;
      case NodeKind::Placeholder: r.push_back("Placeholder"); break;
      case NodeKind::Constant: r.push_back("Const"); break;
      case NodeKind::VariableRead: r.push_back("ReadVariable"); break;
      case NodeKind::Assign: r.push_back("AssignVariable"); break;
      case NodeKind::HostCall: r.push_back("HostCall"); break;
      case NodeKind::If: r.push_back("If"); break;
      case NodeKind::While: r.push_back("While"); break;
      case NodeKind::Output: r.push_back("Output"); break;
    }
  }
  return r;
}

// A copy of a control-flow node's subgraphs that re-run their shape rules (their inputs' shapes
// may now change between calls).
static std::shared_ptr<const ControlFlow> relaxed_flow(const ControlFlow& f) {
  auto r = std::make_shared<ControlFlow>(f);
  for (auto* sub : {&r->first, &r->second}) {
    auto g = std::make_shared<Graph>(**sub);
    std::vector<Shape> any;
    for (auto& n : g->nodes)
      if (n.kind == NodeKind::Placeholder) {
        if ((int)any.size() <= n.arg) any.resize(n.arg + 1);
        any[n.arg] = Shape(n.meta.shape.size(), -1);
      }
    relax(*g, any, *g);
    *sub = std::move(g);
  }
  for (auto& m : r->out_meta) std::fill(m.shape.begin(), m.shape.end(), -1);
  return r;
}

void relax_with_subgraphs(Graph& g) {
  for (auto& n : g.nodes)
    if (n.is_control() && !n.flow->first->relaxed) n.flow = relaxed_flow(*n.flow);
  g.relaxed = true;
}

void relax(Graph& g, const std::vector<Shape>& shapes, const Graph& other) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto& n = g.nodes[i];
    if (n.is_control() && !n.flow->first->relaxed) n.flow = relaxed_flow(*n.flow);
    if (n.kind == NodeKind::Placeholder && n.arg < (int)shapes.size()) {
      n.meta.shape = shapes[n.arg];
    } else if (i < other.nodes.size() && other.nodes[i].meta.shape.size() == n.meta.shape.size()) {
      for (size_t d = 0; d < n.meta.shape.size(); ++d)
        if (n.meta.shape[d] != other.nodes[i].meta.shape[d]) n.meta.shape[d] = -1;
    }
  }
  g.relaxed = true;
}

}  // namespace tg::graph
