// varying_dims.cpp -- which dimensions of a traced value may change from call to call.
#include "graph/varying_dims.h"
#include <functional>
#include <numeric>
#include "core/error.h"
#include "graph/trace.h"

namespace tg::graph {

// Note [Varying dimensions]: TF gives a value-shaped result None for the dimensions it cannot
// know while tracing, and so must we: x.shape[0] of tf.boolean_mask's result read as a Python int
// would keep the first call's count in every later call. For each node whose shape may vary the
// tracer keeps the mask of the dimensions that may. A value-shaped op's are its leading dimension
// (every dimension when an input varies, unless the op declares the others fixed), or for an op
// whose shape is the value of a vector input (Fill, a computed reshape) the elements of that
// vector that do not come from constants or from static sizes of tf.shape's argument. Any
// other op's follow from its shape rule, which the executor of a relaxed graph runs again at every
// call with that call's shapes: the rule runs once more on probe inputs, each varying dimension of
// size s made 2s (so that a reshape's -1 still divides; 5040 for 0), and the dimensions of the
// result that change are those that vary. Probe inputs have no storage: the shape rule of an op
// that is not value-shaped reads only the shapes of its inputs that are not scalars (a scalar
// never varies). When the probe is refused (a varying size meets a fixed one), an elementwise
// op's dimension varies where an input's aligned dimension does, any other op's all do.
constexpr int64_t kProbeForEmpty = 5040;  // divisible by 1..10: a reshape to [-1, k] of it succeeds

uint64_t Tracer::shape_vector_varying(int node, const Tensor& value) const {
  // Elements from constants are known; a negative one (reshape's -1) is computed from the others.
  auto known = [&](int64_t j) { return scalar_value(value, j) >= 0; };
  const Node& v = g.nodes[node];
  uint64_t mask = 0;
  if (!v.dynamic) {
    for (int64_t j = 0; j < value->size; ++j)
      if (!known(j)) mask |= dim_bit((size_t)j);
    return mask;
  }
  // tf.shape(y): its elements vary where y's dimensions do.
  if (v.kind == NodeKind::Op && v.op->name == "Shape") {
    auto f = varying.find(v.inputs[0]);
    return f == varying.end() ? 0 : f->second;
  }
  // A vector assembled from one-element parts (tf.zeros([tf.shape(x)[0], 3]) concatenates them).
  const bool parts = v.kind == NodeKind::Op && (v.op->name == "ConcatV2" || v.op->name == "Pack") &&
                     (int64_t)v.inputs.size() == value->size;
  if (!parts) return kAllDims;
  for (size_t j = 0; j < v.inputs.size(); ++j) {
    const Node& part = g.nodes[v.inputs[j]];
    const int64_t elements = std::accumulate(part.meta.shape.begin(), part.meta.shape.end(), int64_t{1},
                                             std::multiplies<int64_t>());
    if (elements != 1) return kAllDims;
    if (part.dynamic || !known((int64_t)j)) mask |= dim_bit(j);
  }
  return mask;
}

uint64_t Tracer::result_varying(const OpDef& op, const Tensors& x, const Attrs& attrs, const Tensor& out,
                                const std::vector<int>& in, bool value_shaped) const {
  std::vector<uint64_t> masks(x.size(), 0);
  bool input_varies = false;
  for (size_t j = 0; j < x.size(); ++j) {
    auto f = varying.find(in[j]);
    if (f != varying.end()) masks[j] = f->second, input_varies = true;
  }
  if (value_shaped) {
    const int sv = op.shape_vector_input;
    if (sv >= 0 && sv < (int)x.size()) return shape_vector_varying(in[sv], x[sv]);
    return input_varies && !op.trailing_dims_fixed ? kAllDims : dim_bit(0);
  }
  Tensors probe(x);
  for (size_t j = 0; j < x.size(); ++j) {
    if (!masks[j]) continue;
    auto p = std::make_shared<TensorImpl>();  // no storage: see the Note
    p->dtype = x[j]->dtype;
    p->shape = x[j]->shape;
    double size = 1;
    for (size_t d = 0; d < p->shape.size(); ++d) {
      if (dim_in(masks[j], d)) p->shape[d] = p->shape[d] ? 2 * p->shape[d] : kProbeForEmpty;
      size *= (double)p->shape[d];
    }
    if (size > 0x1p52) return kAllDims;  // no rule should see sizes near overflow
    p->size = (int64_t)size;
    probe[j] = std::move(p);
  }
  try {
    const Shape s = op.infer(op, probe, attrs).shape;
    if (s.size() != out->shape.size()) return kAllDims;
    uint64_t mask = 0;
    for (size_t d = 0; d < s.size(); ++d)
      if (s[d] != out->shape[d]) mask |= dim_bit(d);
    return mask;
  } catch (const std::exception&) {
    if (!op.broadcast_grad) return kAllDims;
    uint64_t mask = 0;  // right-aligned, as elementwise ops broadcast
    const size_t rank = out->shape.size();
    for (size_t j = 0; j < x.size(); ++j)
      for (size_t d = 0; d < x[j]->shape.size() && d < rank; ++d)
        if (dim_in(masks[j], x[j]->shape.size() - 1 - d)) mask |= dim_bit(rank - 1 - d);
    return mask;
  }
}

uint64_t varying_dims(const Tensor& t) {
  uint64_t mask = 0;
  for (Tracer* tr : active_tracers()) {
    auto f = tr->node_of.find(t->id);
    if (f == tr->node_of.end()) continue;
    auto v = tr->varying.find(f->second);
    if (v != tr->varying.end()) mask |= v->second;
  }
  return mask;
}

}  // namespace tg::graph
