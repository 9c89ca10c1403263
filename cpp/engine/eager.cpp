// eager.cpp -- the single entry point through which every op runs.
#include "engine/eager.h"
#include <cmath>
#include "core/error.h"
#include "engine/forward.h"
#include "engine/tape.h"
#include "graph/trace.h"

namespace tg {

bool g_check_numerics = false;
std::string (*g_call_site)() = nullptr;
thread_local const std::string* g_backward_context = nullptr;

Tensor apply(const OpDef& op, const Tensors& x, const Attrs& attrs) {
  if (op.num_inputs >= 0 && (int)x.size() != op.num_inputs)
    throw InvalidArgument(cat(op.name, ": expected ", op.num_inputs, " inputs, got ", x.size()));
  for (auto& xi : x)
    if (!xi) throw InvalidArgument(cat(op.name, ": an input is None"));
  Tensor out;
  try {  // Note [One set of error classes]: every failure of an op names it
    OutMeta m = op.infer(op, x, attrs);
    if (op.stateful && graph::tracing()) graph::before_stateful_op(x);
    out = op.kernel(op, x, attrs, m);
  } catch (OpFailure& e) {
    e.name_op(op.name);
    throw;
  }
  if (g_check_numerics) check_finite(out, op.name);
  if (op.differentiable && !active_tapes().empty()) record_op(op, x, attrs, out);
  if (!active_accumulators().empty()) forward_op(op, x, attrs, out);
  if (!variable_watchers().empty()) note_variables(x);
  if (graph::tracing()) graph::record_on_tracers(op, x, attrs, out);  // tf.function (cpp/graph/trace.h)
  return out;
}

Tensor apply(const char* op, const Tensors& x, const Attrs& attrs) { return apply(op_def(op), x, attrs); }

void check_finite(const Tensor& t, const std::string& what) {
  if (!is_floating(t->dtype)) return;
  dispatch_dtype(t->dtype, [&](auto v) {
    using T = decltype(v);
    const T* p = t->data_as<T>();
    for (int64_t i = 0; i < t->size; ++i)
      if (!std::isfinite((double)p[i]))
        throw NumericsError(cat(what, " produced a non-finite value (", std::to_string((double)p[i]),
                                ") in a tensor of ", meta_str(t),
                                g_backward_context ? " while computing " + *g_backward_context
                                : what.find(" at ") == std::string::npos && g_call_site ? ", at " + g_call_site() : ""));
    return 0;
  });
}

}  // namespace tg
