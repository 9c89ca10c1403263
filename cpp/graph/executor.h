// executor.h -- runs a Graph: its nodes in order, calling the kernels directly.
#pragma once
#include "graph/graph.h"

namespace tg::graph {

// Runs g on its flat tensor arguments and returns the flat outputs.
// Fast mode calls each kernel directly (shape rules only for relaxed graphs, Note [Relaxed
// graphs]). Eager mode runs every op through apply(), so active tapes and tracers record it
// exactly as if the traced Python had run (gradients through a Function, nested Functions).
Tensors run_graph(const Graph& g, const Tensors& args, bool eager);
// The same, taking the arguments over: an argument nothing else holds may become an op's output
// buffer (Note [Donated loop variables] in executor.cpp); args' entries may be reset.
Tensors run_graph_donating(const Graph& g, Tensors& args, bool eager);
// How many times an op wrote its output into a donated input with OpDef::in_place (for tests).
int64_t in_place_writes();

// Whether a call must run in eager mode: a tracer is active, or a tape would record an op on
// an argument or on a variable the graph reads.
bool needs_eager(const Graph& g, const Tensors& args);

// Writes value into variable var (mode 0 =, 1 +=, 2 -=), copying on write when the storage is
// shared (tapes, NumPy views or earlier reads may hold it).
void assign_into(const Tensor& var, const Tensor& value, int mode);

}  // namespace tg::graph
