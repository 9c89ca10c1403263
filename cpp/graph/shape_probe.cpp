// shape_probe.cpp -- one run of a graph at other argument sizes, recording each node's shape.
#include "graph/shape_probe.h"
#include "core/error.h"
#include "graph/fusion.h"

namespace tg::graph {

std::vector<Shape> probe_shapes(const Graph& g, const Tensors& args) {
  if ((int)args.size() != g.num_args)
    throw InvalidArgument(cat("graph: expected ", g.num_args, " tensor arguments, got ", args.size()));
  const size_t n = g.nodes.size();
  Tensors vals(n);
  std::vector<Shape> shapes(n);
  Tensors x;
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    x.clear();
    for (int in : node.inputs) x.push_back(vals[in]);
    switch (node.kind) {
      case NodeKind::Placeholder: vals[i] = args[node.arg]; break;
      case NodeKind::Constant:
      case NodeKind::VariableRead: vals[i] = node.value; break;
      case NodeKind::Op:
        if (is_fused_output(node)) break;  // filled in by its fused node
        if (node.fused) {
          Tensors outs = run_fused(*node.fused, x, false, nullptr);
          for (size_t k = 0; k < outs.size(); ++k) vals[i + k] = std::move(outs[k]);
        } else if (node.op->stateful) {
          const OutMeta m = node.op->infer(*node.op, x, node.attrs);
          vals[i] = zeros(m.shape, m.dtype);
        } else {
          vals[i] = node.op->kernel(*node.op, x, node.attrs, node.op->infer(*node.op, x, node.attrs));
        }
        break;
      default: break;  // side effects do not run
    }
    if (vals[i]) shapes[i] = vals[i]->shape;
    if (i < g.drop_after.size())
      for (int d : g.drop_after[i]) vals[d].reset();
  }
  return shapes;
}

void relax_by_probe(Graph& g, const std::vector<Shape>& shapes, const std::vector<Shape>& probe) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    auto& n = g.nodes[i];
    if (n.kind == NodeKind::Placeholder && n.arg < (int)shapes.size()) {
      n.meta.shape = shapes[n.arg];
    } else if (i < probe.size() && probe[i].size() == n.meta.shape.size()) {
      for (size_t d = 0; d < n.meta.shape.size(); ++d)
        if (n.meta.shape[d] != probe[i][d]) n.meta.shape[d] = -1;
    }
  }
  g.relaxed = true;
}

}  // namespace tg::graph
