// shape_probe.h -- relaxing a graph up front (Note [Relaxed graphs]) from one run at other shapes.
//
// A function with an input_signature whose dimensions are None is traced once, with the call's
// tensors; the graph then has to serve every size of those dimensions. A probe runs the graph's
// shape rules and kernels (not its side effects) on arguments of other sizes: the dimensions
// that differ from the traced ones are unknown (-1), and a graph that fails at the other sizes
// computed something from a traced size (a reshape to a baked shape) and cannot be relaxed.
#pragma once
#include "graph/graph.h"

namespace tg::graph {

// Each node's output shape when g runs on `args` (empty for nodes without a value). Assign and
// host-call nodes are skipped, stateful ops give zeros of their inferred meta. Throws what the
// graph throws at those shapes.
std::vector<Shape> probe_shapes(const Graph& g, const Tensors& args);

// Relaxes g: placeholder i takes shapes[i] (-1: any size), and every other node's dims that
// differ from probe (probe_shapes at other sizes) become -1.
void relax_by_probe(Graph& g, const std::vector<Shape>& shapes, const std::vector<Shape>& probe);

}  // namespace tg::graph
