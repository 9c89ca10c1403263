// executor.cpp -- running a graph's nodes in order; each value is dropped after its last use.
#include "graph/executor.h"
#include "core/error.h"
#include "engine/eager.h"
#include "engine/forward.h"
#include "engine/tape.h"
#include "graph/trace.h"

namespace tg::graph {

void assign_into(const Tensor& var, const Tensor& value, int mode) {
  Tensor v = value;
  if (v->dtype != var->dtype)
    throw InvalidArgument(cat("assign: value of ", meta_str(v), " does not match variable of ", meta_str(var)));
  if (mode != 0) {
    const OpDef& op = op_def(mode == 1 ? "Add" : "Sub");
    Tensors x = {view(var, var->shape), v};
    v = op.kernel(op, x, {}, op.infer(op, x, {}));
  }
  if (v->shape != var->shape)
    throw InvalidArgument(cat("assign: value of shape ", shape_str(v->shape), " does not match variable of shape ",
                              shape_str(var->shape)));
  if (var->storage.use_count() != 1) {  // someone still reads the old value: copy on write
    var->storage = std::make_shared<Storage>(var->nbytes());
    var->offset = 0;
  }
  std::memmove(var->data(), v->data(), var->nbytes());
}

bool needs_eager(const Graph& g, const Tensors& args) {
  if (tracing() || !variable_watchers().empty() || !active_accumulators().empty()) return true;  // forward mode too
  if (active_tapes().empty()) return false;
  return should_record(args) || should_record(g.variables);
}

static void run_side_effect(const Node& n, const Tensors& x, bool eager) {
  if (n.kind == NodeKind::Assign) {
    if (eager)
      for (Tracer* t : active_tracers()) t->before_assign(n.value);
    assign_into(n.value, x[0], n.mode);
    if (eager)
      for (Tracer* t : active_tracers()) t->record_assign(n.value, x[0], n.mode);
  } else {
    (*n.host)(x);
    if (eager)
      for (Tracer* t : active_tracers()) t->record_host_call(n.host, x, n.name);
  }
}

Tensors run_graph(const Graph& g, const Tensors& args, bool eager) {
  if ((int)args.size() != g.num_args)
    throw InvalidArgument(cat("graph: expected ", g.num_args, " tensor arguments, got ", args.size()));
  const size_t n = g.nodes.size();
  Tensors vals(n);
  Tensors x;
  for (size_t i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    switch (node.kind) {
      case NodeKind::Placeholder: vals[i] = args[node.arg]; break;
      case NodeKind::Constant:
      case NodeKind::VariableRead: vals[i] = node.value; break;
      case NodeKind::Op: {
        x.clear();
        for (int in : node.inputs) x.push_back(vals[in]);
        if (eager) {
          vals[i] = apply(*node.op, x, node.attrs);
        } else {
          vals[i] = node.op->kernel(*node.op, x, node.attrs, g.relaxed ? node.op->infer(*node.op, x, node.attrs) : node.meta);
          if (g_check_numerics) check_finite(vals[i], node.op->name);
        }
        break;
      }
      default: {
        x.clear();
        for (int in : node.inputs) x.push_back(vals[in]);
        run_side_effect(node, x, eager);
      }
    }
    for (int d : g.drop_after[i]) vals[d].reset();
  }
  Tensors out;
  out.reserve(g.outputs.size());
  for (int o : g.outputs) {
    const Node& node = g.nodes[o];
    // A variable returned as an output is returned as its current value, not the variable.
    out.push_back(node.kind == NodeKind::VariableRead ? copy(vals[o]) : vals[o]);
  }
  return out;
}

}  // namespace tg::graph
