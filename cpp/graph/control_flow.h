// control_flow.h -- building and running conditional and while-loop nodes (Note [Control-flow nodes]).
#pragma once
#include "graph/graph.h"

namespace tg::graph {

// The subgraphs of an If: both take the same arguments (the operands) and return as many values.
// Throws when the branches' results differ in number, dtype or rank.
std::shared_ptr<const ControlFlow> make_if(std::shared_ptr<Graph> then_g, std::shared_ptr<Graph> else_g);
// The subgraphs of a While over num_loop_vars loop variables: both take (loop variables,
// captures); the body returns the loop variables with the dtypes and shapes of its placeholders.
std::shared_ptr<const ControlFlow> make_while(std::shared_ptr<Graph> cond_g, std::shared_ptr<Graph> body_g,
                                              int num_loop_vars, bool has_limit);

// Runs an If (inputs: predicate, operands...) or While (inputs: loop variables, captures...,
// [maximum_iterations]) node on x. In eager mode the subgraphs' ops run through apply(), so
// tapes and accumulators record each one, while active tracers record the node itself.
// A While's results are its loop variables, then its trip count (int64). Under a tracer, a
// tape records the node as one entry whose gradient is a control node (Note [Control-flow
// gradients] in control_flow.cpp).
Tensors run_control(const Node& n, const Tensors& x, bool eager);
// Builds and runs (recording it on the active tracers) an If node on pred and operands, or a While
// node on the loop variables, captures and (when not null) limit.
Tensors run_if(std::shared_ptr<Graph> then_g, std::shared_ptr<Graph> else_g, const Tensor& pred, const Tensors& operands);
Tensors run_while(std::shared_ptr<Graph> cond_g, std::shared_ptr<Graph> body_g, const Tensors& loop_vars,
                  const Tensors& captures, const Tensor& limit);

// True while a backward graph is being traced: host calls are recorded but do not run.
bool building_backward();

}  // namespace tg::graph
