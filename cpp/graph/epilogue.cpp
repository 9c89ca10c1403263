// epilogue.cpp -- fusing a convolution's or matmul's bias add and relu into its output pass.
//
// Note [Epilogue fusion]: a Keras Conv2D or Dense layer traces as Conv2D (or MatMul), Add of a
// bias vector, Relu: three passes over the output, the Add's and the Relu's each reading and
// writing a tensor as large as the product. The pass replaces the three (or a product with only
// its bias add, or only its relu) by one fused node whose kernel adds the bias and applies the
// relu to each block of the product right after computing it, while the block is in cache
// (kernels/epilogue.h; for a convolution per block of images, for a matmul one pass after the
// GEMM). The values are those of the separate ops: the same additions in the same order.
//
// A product qualifies when the Add is its only reader, the Add adds a 1-D vector of the
// product's last dimension and dtype, and no side effect lies between the product and the
// last fused op (so moving the product to that place reads the same values). In a training
// step the Add has a second reader: ReluGrad(add, dy) of the backward. ReluGrad only reads the
// sign of its first input, and relu(x) > 0 exactly when x > 0 (both false for NaN), so the pass
// first rewrites ReluGrad(x, dy) to ReluGrad(relu(x), dy) where Relu(x) is computed anyway.
//
// The fused node is a FusedGroup marked `epilogue` with the original ops as its members: eager
// runs (tapes, nested traces), backward plans (grad_graph.cpp unfuses it) and inputs the kernel
// does not take run those members one by one.
#include <string>
#include "core/error.h"
#include "graph/fusion.h"
#include "ops/conv_epilogue.h"

namespace tg::graph {

namespace {

bool is_op(const Node& n, const char* name) { return n.kind == NodeKind::Op && !n.fused && n.op->name == name; }

// ReluGrad(x, dy) -> ReluGrad(relu(x), dy) where a Relu of x comes earlier in the graph.
void read_relu_outputs(Graph& g) {
  std::vector<int> relu_of(g.nodes.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node& n = g.nodes[i];
    if (is_op(n, "Relu") && relu_of[n.inputs[0]] < 0) relu_of[n.inputs[0]] = (int)i;
    if (is_op(n, "ReluGrad") && n.inputs.size() == 2) {
      const int r = relu_of[n.inputs[0]];
      if (r >= 0 && g.nodes[r].meta.dtype == g.nodes[n.inputs[0]].meta.dtype) n.inputs[0] = r;
    }
  }
}

// The fused group of members p (the product), then the Add (bias input `bias`, -1 if none) and
// the Relu (-1 if none), all nodes of g.
std::shared_ptr<FusedGroup> make_group(const Graph& g, int p, int add, int bias, int relu) {
  auto f = std::make_shared<FusedGroup>();
  f->epilogue = true;
  Node prod = g.nodes[p];
  prod.inputs = {-1, -2};
  f->members.push_back(prod);
  if (add >= 0) {
    Node a = g.nodes[add];
    for (int& in : a.inputs) in = in == p ? 0 : -3;
    f->members.push_back(a);
  }
  if (relu >= 0) {
    Node r = g.nodes[relu];
    r.inputs = {(int)f->members.size() - 1};
    f->members.push_back(r);
  }
  f->outputs = {(int)f->members.size() - 1};
  f->slot = {0};
  std::vector<int> ins = g.nodes[p].inputs;
  if (bias >= 0) ins.push_back(bias);
  for (int in : ins) {
    f->scalar.push_back(0);
    f->in_dtype.push_back(g.nodes[in].meta.dtype);
    f->in_shape.push_back(g.nodes[in].meta.shape);
  }
  f->shape = g.nodes[p].meta.shape;
  f->dtype = g.nodes[p].meta.dtype;
  return f;
}

}  // namespace

int fuse_epilogues(Graph& g) {
  if (fusion_off() || g.nodes.empty()) return 0;
  read_relu_outputs(g);
  const size_t N = g.nodes.size();
  std::vector<int> uses(N, 0), reader(N, -1);
  for (size_t i = 0; i < N; ++i)
    for (int in : g.nodes[i].inputs) {
      ++uses[in];
      reader[in] = (int)i;
    }
  for (int o : g.outputs) uses[o] += 2;  // a graph output is never fused away
  std::vector<int> side_effects_before(N + 1, 0);  // side-effect nodes among nodes [0, i)
  for (size_t i = 0; i < N; ++i) side_effects_before[i + 1] = side_effects_before[i] + g.nodes[i].side_effect();

  std::vector<std::shared_ptr<FusedGroup>> group_at(N);  // at the last member's place
  std::vector<std::vector<int>> group_inputs(N);
  std::vector<char> group_dynamic(N, 0);
  std::vector<char> absorbed(N, 0);
  int fused = 0;
  for (size_t p = 0; p < N; ++p) {
    const Node& prod = g.nodes[p];
    if (!(is_op(prod, "Conv2D") || is_op(prod, "MatMul")) || prod.inputs.size() != 2) continue;
    if (!is_floating(prod.meta.dtype) || prod.meta.shape.empty() || uses[p] != 1) continue;
    const int64_t O = prod.meta.shape.back();
    int last = (int)p, add = -1, bias = -1, relu = -1;
    const Node& next = g.nodes[reader[p]];
    if (is_op(next, "Add") && next.inputs.size() == 2 && next.meta.dtype == prod.meta.dtype &&
        next.meta.shape == prod.meta.shape) {
      const int b = next.inputs[0] == (int)p ? next.inputs[1] : next.inputs[0];
      const Node& bn = g.nodes[b];
      if (b != (int)p && O >= 0 && bn.meta.dtype == prod.meta.dtype && bn.meta.shape == Shape{O}) {
        add = last = reader[p];
        bias = b;
      }
    }
    if (uses[last] == 1 && is_op(g.nodes[reader[last]], "Relu")) relu = last = reader[last];
    if (last == (int)p) continue;
    if (side_effects_before[last] != side_effects_before[p + 1]) continue;
    group_at[last] = make_group(g, (int)p, add, bias, relu);
    group_inputs[last] = prod.inputs;
    if (bias >= 0) group_inputs[last].push_back(bias);
    for (int in : group_inputs[last]) group_dynamic[last] |= g.nodes[in].dynamic;
    absorbed[p] = 1;
    if (add >= 0 && add != last) absorbed[add] = 1;
    fused += 1 + (add >= 0) + (relu >= 0);
  }
  if (!fused) return 0;

  // Rebuild: absorbed members vanish, the last member's place holds the fused node. Only the
  // group reads an absorbed value, so every input below is already renumbered.
  std::vector<int> new_index(N, -1);
  std::vector<Node> out;
  out.reserve(N);
  for (size_t i = 0; i < N; ++i) {
    if (absorbed[i]) continue;
    Node n = std::move(g.nodes[i]);
    if (group_at[i]) {
      Node fn;
      fn.op = &fused_op();
      fn.meta = n.meta;
      fn.inputs = group_inputs[i];
      fn.dynamic = group_dynamic[i];
      fn.fused = std::move(group_at[i]);
      n = std::move(fn);
    }
    for (int& in : n.inputs) in = new_index[in];
    new_index[i] = (int)out.size();
    out.push_back(std::move(n));
  }
  for (int& o : g.outputs) o = new_index[o];
  g.nodes = std::move(out);
  return fused;
}

Tensor run_epilogue(const FusedGroup& f, const Tensors& x) {
  const Node& prod = f.members[0];
  const Tensors operands = {x[0], x[1]};
  const OutMeta m = prod.op->infer(*prod.op, operands, prod.attrs);
  Epilogue ep;
  for (size_t k = 1; k < f.members.size(); ++k) {
    if (f.members[k].op->name == "Relu") ep.relu = true;
    else ep.bias = x[2]->data();
  }
  // Shapes the trace did not see (a relaxed graph) may not fit: then the members run one by one.
  if (!is_floating(m.dtype) || m.shape.empty()) return nullptr;
  if (ep.bias && (x[2]->dtype != m.dtype || x[2]->shape != Shape{m.shape.back()})) return nullptr;
  if (prod.op->name == "Conv2D") return conv2d_with_epilogue(x[0], x[1], prod.attrs, m, ep);
  Tensor y = prod.op->kernel(*prod.op, operands, prod.attrs, m);
  if (y.use_count() != 1 || y->storage.use_count() != 1 || y->dtype != m.dtype) return nullptr;
  apply_epilogue(ep, y);
  return y;
}

}  // namespace tg::graph
