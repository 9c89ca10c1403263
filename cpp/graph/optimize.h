// optimize.h -- graph passes run once per trace, before the graph is cached.
#pragma once
#include "graph/graph.h"

namespace tg::graph {

struct OptimizeStats {
  int folded = 0, simplified = 0, merged = 0, pruned = 0, fused = 0;
};

// Constant folding, arithmetic simplification, common-subexpression elimination, dead-node
// pruning, epilogue fusion and elementwise fusion (in that order; fusion.h).
OptimizeStats optimize(Graph& g);

OptimizeStats fold_constants(Graph& g);   // ops whose inputs are all constants become constants
OptimizeStats simplify_arithmetic(Graph& g);  // x * ones -> x
OptimizeStats eliminate_common(Graph& g); // identical ops on identical inputs are computed once
OptimizeStats prune_dead(Graph& g);       // nodes no output or side effect depends on are dropped

}  // namespace tg::graph
