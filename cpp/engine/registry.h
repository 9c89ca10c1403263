// registry.h -- the op table: one OpDef per primitive (name, shape/dtype rule, kernel, gradient rule).
#pragma once
#include <functional>
#include <string>
#include <vector>
#include "core/small_vector.h"
#include "core/tensor.h"
#include "engine/attrs.h"

namespace tg {

using Tensors = std::vector<Tensor>;

// A list of tensors held elsewhere, read in place: a Tensors, or a tape entry's saved inputs.
struct TensorSpan {
  const Tensor* ptr = nullptr;
  size_t n = 0;
  TensorSpan() = default;
  TensorSpan(const Tensor* p, size_t count) : ptr(p), n(count) {}
  TensorSpan(const Tensors& v) : ptr(v.data()), n(v.size()) {}
  template <size_t N>
  TensorSpan(const SmallVector<Tensor, N>& v) : ptr(v.data()), n(v.size()) {}
  const Tensor* begin() const { return ptr; }
  const Tensor* end() const { return ptr + n; }
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  const Tensor& operator[](size_t i) const { return ptr[i]; }
  Tensors vec() const { return Tensors(begin(), end()); }
};

// Inputs, output, upstream gradient and attributes handed to a gradient rule.
// Rules return one gradient per input (null = no gradient); the engine sums each back
// to its input's shape (see Note [Broadcast reduction] in backprop.cpp).
//
// Note [Batched gradients]: jacobian() sweeps once with a batch of upstream gradients: g then
// has `batch` (0 or 1) extra leading axes before the output's shape, and rules return gradients
// with the same leading axes. Rules of ops declared .batched() handle that (elementwise rules
// do so for free by broadcasting; shape rules use batched_shape()); for other ops the sweep
// runs the rule once per batch row (see run_rule in backprop.cpp).
struct GradCtx {
  TensorSpan x;         // inputs (saved values)
  const Tensor& out;    // the op's output
  const Tensor& g;      // upstream gradient: `batch` leading axes + the shape of out
  const Attrs& attrs;
  const std::vector<bool>& needs_grad;
  int batch = 0;
};

struct OutMeta {
  Shape shape;
  DType dtype;
};

struct OpDef;
using InferFn = OutMeta (*)(const OpDef& op, const Tensors& x, const Attrs& attrs);
struct OpDef;
using KernelFn = Tensor (*)(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m);
using GradFn = std::function<Tensors(GradCtx&)>;
// Forward-mode rule (see forward.h): the output's tangent from the inputs x, the output, one
// tangent per input (null where an input has none) and the attributes. Written in registered
// ops like gradient rules, so JVPs are recorded by tapes and differentiate again.
using JvpFn = std::function<Tensor(const Tensors& x, const Tensor& out, const Tensors& tx, const Attrs& attrs)>;

struct OpDef {
  std::string name;
  int id = -1;         // registration order; kernel tables are indexed by it (kernels/kernel_table.h)
  int num_inputs = 1;  // -1: variadic
  InferFn infer = nullptr;
  KernelFn kernel = nullptr;
  GradFn grad;             // current rule (RegisterGradient may replace it)
  GradFn builtin_grad;     // the rule declared in cpp/ops
  bool grad_replaced = false;  // grad is not builtin_grad (set only by set_gradient_rule)
  JvpFn jvp_rule;          // null: derived from the gradient rule (double VJP, see forward.cpp)
  bool differentiable = true;
  bool batched_rule = false;  // the rule accepts a batched g (see Note [Batched gradients])
  // The rule is elementwise in g: a g that broadcasts to the output gives the gradient for the
  // broadcast g (Note [Lazy broadcast gradients] in backprop.cpp).
  bool broadcast_grad = false;
  // The rule also takes a g of one element standing for that value at every element of the output
  // (the gradient of reduce_sum(f(x)) reaching f): Note [Uniform gradients] in backprop.cpp.
  bool uniform_grad = false;
  // Updates its Variable inputs in place (optimizer steps) or state kept in C++ (random ops):
  // never recorded on a tape, and a side effect for the graph passes (kept, never merged or
  // folded, and reads of a Variable input after it are new reads).
  bool stateful = false;
  // Note [Value-shaped ops]: the output's shape depends on the values of the inputs (a row count
  // read from a tensor), not only on their shapes, when this returns true for the attributes. A
  // trace marks such a node's leading dimension unknown, so the graph is relaxed and the executor
  // runs every shape rule at every call (a graph never reuses the trace's shape for it); gradient
  // rules and tf.shape recorded after it in the trace read sizes at run time (Note [Sizes in traced
  // rules] in engine/observer.h).
  bool (*value_shaped)(const Attrs&) = nullptr;
  // For a value-shaped op whose output shape is the value of one input (Fill's dims, a reshape's
  // shape): that input, so a trace knows which dimensions come from constants (Note [Varying
  // dimensions] in graph/trace.cpp); -1: the value sets the leading dimension only.
  int shape_vector_input = -1;
  bool trailing_dims_fixed = false;  // only the leading dimension ever varies (Where: the rest is a rank)
  // Optional: computes the output into input 0's buffer when the executor donates it (Note
  // [Donated loop variables] in graph/executor.cpp); null when it cannot (the kernel runs instead).
  KernelFn in_place = nullptr;
  // Whether the gradient rule reads input i (its value or shape) for these attributes; null: it may
  // read every input. A graph loop keeps no per-iteration history of a loop variable whose only
  // readers are inputs a rule does not read (Note [Histories a backward reads] in control_flow.cpp).
  bool (*grad_reads_input)(int i, const Attrs&) = nullptr;
  // The element types its inputs may have (Note [Element types] in core/dtype.h): apply() refuses
  // any other before the shape rule runs. The shape rule still says which combinations it takes.
  DTypeMask dtypes = kClassicTypes;
  DTypeMask no_cpu_kernel = 0;  // of the types refused, those TF's op takes but no CPU kernel does (NotFound)

  // Builder used by the op table rows.
  OpDef& inputs(int n) { num_inputs = n; return *this; }
  OpDef& shape(InferFn f) { infer = f; return *this; }
  OpDef& forward(KernelFn f) { kernel = f; return *this; }
  OpDef& gradient(GradFn f) { grad = builtin_grad = std::move(f); return *this; }
  OpDef& jvp(JvpFn f) { jvp_rule = std::move(f); return *this; }
  OpDef& not_differentiable() { differentiable = false; return *this; }
  OpDef& batched() { batched_rule = true; return *this; }
  OpDef& elementwise_grad() { broadcast_grad = true; return *this; }
  OpDef& takes_uniform_grad() { uniform_grad = true; return *this; }
  OpDef& shape_from_values(bool (*when)(const Attrs&), int shape_vector = -1, bool trailing_fixed = false) {
    value_shaped = when;
    shape_vector_input = shape_vector;
    trailing_dims_fixed = trailing_fixed;
    return *this;
  }
  OpDef& writes_into_input(KernelFn f) { in_place = f; return *this; }
  OpDef& grad_reads(bool (*f)(int i, const Attrs&)) { grad_reads_input = f; return *this; }
  OpDef& also_types(DTypeMask m) { dtypes |= m; return *this; }
  OpDef& only_types(DTypeMask m) { dtypes = m; return *this; }
  OpDef& has_side_effects() { stateful = true; differentiable = false; return *this; }
};

// Whether the op's rule is still the one declared in cpp/ops (RegisterGradient may replace it).
// A flag, not a comparison of the std::functions: the sweep asks this for every entry.
inline bool grad_is_builtin(const OpDef& op) { return !op.grad_replaced; }
// RegisterGradient: the op's rule becomes f, and tapes record the op; a null f puts back the
// rule declared in cpp/ops and whether the op is recorded at all.
void set_gradient_rule(const std::string& name, GradFn f);

// Registration is explicit: register_all_ops() calls each family in a fixed order.
OpDef& def_op(const char* name);
const OpDef* find_op(const std::string& name);
const OpDef& op_def(const char* name);  // throws InvalidArgument if unknown
OpDef& mutable_op(const std::string& name);
std::vector<std::string> registered_ops();
void register_all_ops();

}  // namespace tg
