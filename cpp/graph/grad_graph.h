// grad_graph.h -- one tape entry per Function call: the backward of a graph as a graph of its own.
//
// Note [Backward graphs]: built once per graph, at its first call under a single tape. The
// forward graph, its fused nodes expanded back into their member ops, is replayed op by op
// under a private tape; then that tape's gradient (from placeholder upstream gradients to the
// arguments and trainable variables) is traced while every forward value is a placeholder.
// The result: a forward graph whose extra outputs are the values the backward reads (`saved`;
// it is fused again around them), and a backward graph from (saved values, upstream gradients)
// to one gradient per source. A call then runs the forward graph in C++ and records one custom
// tape entry whose gradient runs the backward graph. Graphs with side effects, relaxed shapes
// or non-float outputs keep the op-by-op replay, and so do calls under nested tapes (their
// second derivatives need the forward ops on the outer tape).
#pragma once
#include <memory>
#include "graph/graph.h"

namespace tg::graph {

struct BackwardPlan {
  std::shared_ptr<Graph> forward;   // the graph, its outputs followed by the saved values
  std::shared_ptr<Graph> backward;  // args: saved values and upstream gradients; outputs: gradients
  size_t num_outputs = 0;
  std::vector<int> arg_slot;        // backward arg -> index into forward outputs (saved) or -1 - upstream index
  std::vector<int> source_arg;      // per source: the forward argument, or -1 - variable index
  Tensors variables;                // the trainable variables among the sources
  std::vector<int> grad_of_source;  // per source: backward output index, or -1 (unconnected)
};

// True when this call should record one entry (Note [Backward graphs]).
bool wants_single_entry(const Graph& g, const Tensors& args);
// Builds the plan (null when the graph is not suitable); runs the forward once, op by op.
std::shared_ptr<BackwardPlan> build_backward_plan(const Graph& g, const Tensors& args);
// Runs the forward graph and records one custom entry on the active tapes; returns the outputs.
Tensors run_with_single_entry(const std::shared_ptr<const BackwardPlan>& plan, const Tensors& args);

}  // namespace tg::graph
