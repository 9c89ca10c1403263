// fusion.h -- fusing connected elementwise ops (and a final full Sum) into one kernel pass.
//
// Note [Fused nodes]: the fusion pass replaces each group of elementwise nodes of one element
// count and float type by one Op node "Fused" whose FusedGroup holds the member nodes and a
// register program (kernels/fused_program.h). Inputs of the group are the fused node's inputs,
// each either full-size or a single element broadcast to every element. A group value used
// outside the group is an output: output 0 is the fused node's own value, output k >= 1 is the
// value of a "FusedOutput" node {index=k} placed right after it (the executor fills those when
// it runs the fused node). Eager runs (tapes, nested traces) and shapes the program was not
// built for run the members one by one, so the fused graph always computes what the traced ops do.
#pragma once
#include "graph/graph.h"
#include "kernels/fused_program.h"

namespace tg::graph {

struct FusedGroup {
  std::vector<Node> members;  // in execution order; inputs: >= 0 member, < 0 input -1-k
  std::vector<int> outputs;   // member per output
  std::vector<int> slot;      // per output: full-output slot >= 0, or -1-k for accumulator k
  std::vector<char> mean;     // per accumulator: Mean (divide by the element count) or Sum
  std::vector<char> scalar;   // per input: broadcast from its single element
  std::vector<DType> in_dtype;
  std::vector<Shape> in_shape;  // per input: the traced shape
  int64_t n = 0;              // elements of every full-size value
  Shape shape;                // the traced shape of the first full-size member
  DType dtype = DType::Float32;
  bool uniform = true;        // every full-size member has that shape
  bool has_broadcast = false; // a BroadcastTo member (its shape is an attribute)
  std::vector<FusedInstr> prologue, body;
  int nregs = 0;
  int nfull = 0;              // full-size outputs
  int shared_exp = 0;         // members computed from a shared exponential (Note [Shared exponentials])
  std::vector<int> last_read;   // per input: the last body instruction reading it (-1: none)
  std::vector<int> written_at;  // per full-size output: the body instruction writing it
  bool epilogue = false;      // a Conv2D or MatMul with its bias add and/or relu (Note [Epilogue fusion])

  std::string member_list() const;  // "Softplus, Tanh, Mul, Sum"
};

const OpDef& fused_op();         // the op of a fused node (never registered)
const OpDef& fused_output_op();  // the op of output k >= 1 of a fused node
inline bool is_fused_output(const Node& n) { return n.kind == NodeKind::Op && n.op == &fused_output_op(); }

// Replaces groups of elementwise nodes by fused nodes; returns the number of ops fused.
// TAPEGRAD_FUSION=off disables the pass, =all fuses groups of any size (by default groups
// of fewer than kFuseMinElements elements stay as they are).
int fuse_elementwise(Graph& g);
// The registry ops a fused node can compute (those with block kernels), sorted: tests derive their lists from it.
std::vector<std::string> fusable_ops();
constexpr int64_t kFuseMinElements = 1024;
// TAPEGRAD_FUSION=off: no fusion pass runs (the traced ops run one by one).
bool fusion_off();

// Note [Epilogue fusion] (epilogue.cpp): a Conv2D or MatMul whose only consumer adds a bias
// vector and/or applies Relu becomes one fused node computing the three in one pass; ReluGrad
// reads the relu's output instead of its input (the same mask) so that the bias sum has no
// other reader. Returns the number of ops fused. Runs before fuse_elementwise.
int fuse_epilogues(Graph& g);
// Runs an epilogue node (FusedGroup::epilogue) on its inputs (x, filter or b, [bias]).
Tensor run_epilogue(const FusedGroup& f, const Tensors& x);

// Runs a fused node on its input values. In fast mode, inputs marked in donate (values no
// one else holds) may become output buffers.
Tensors run_fused(const FusedGroup& f, const Tensors& x, bool eager, const std::vector<char>* donate);

bool same_fused(const FusedGroup& a, const FusedGroup& b);

}  // namespace tg::graph
