// control_flow.cpp -- what tf.cond / tf.while_loop need to build control-flow nodes while tracing:
// subgraph traces that capture outer values, and running (and recording) If and While nodes.
#include <pybind11/stl.h>
#include "bindings/py_rules.h"
#include "graph/control_flow.h"
#include "graph/trace.h"

namespace tg {

namespace {

using graph::Graph;
using graph::Tracer;

// A dry trace of a branch, condition or body (Note [Control-flow nodes]): while it is active
// the enclosing tracers are suspended, and the outer dynamic values it reads become captures.
struct SubTracer {
  std::unique_ptr<Tracer> tr = std::make_unique<Tracer>();

  void enter() {
    tr->begin_dry();
    tr->outer = graph::active_tracers();
    for (Tracer* t : tr->outer) graph::pop_tracer(t);
    graph::push_tracer(tr.get());
  }
  void exit() {
    graph::pop_tracer(tr.get());
    for (Tracer* t : tr->outer) graph::push_tracer(t);
    tr->restore_variables();
  }
};

graph::Node control_node(graph::NodeKind kind, std::shared_ptr<const graph::ControlFlow> flow) {
  graph::Node n;
  n.kind = kind;
  n.flow = std::move(flow);
  return n;
}

}  // namespace

void bind_control_flow(py::module_& m) {
  py::class_<SubTracer>(m, "_SubTracer", "A dry subgraph trace that captures the enclosing trace's values.")
      .def(py::init<>())
      .def("__enter__", [](SubTracer& t) { t.enter(); })
      .def("__exit__", [](SubTracer& t, py::args) { t.exit(); })
      .def("placeholder", [](SubTracer& t, const Tensor& x) { t.tr->placeholder(x, "arg"); })
      .def("capture", [](SubTracer& t, const Tensor& x) { t.tr->capture(x); })
      .def("finish", [](SubTracer& t, py::sequence outputs) {
             graph::OptimizeStats stats;
             auto g = t.tr->finish(tensor_list(outputs), &stats);
             return py::make_tuple(g, t.tr->captures);
           }, "The optimized subgraph and the outer values it captured (its last arguments, in order).");
  m.def("_alias", [](const Tensor& t) { return view(t, t->shape); }, "t's value under a new tensor id.");
  m.def("_run_if", [](const Tensor& pred, std::shared_ptr<Graph> then_g, std::shared_ptr<Graph> else_g,
                      py::sequence operands) {
          graph::Node n = control_node(graph::NodeKind::If, graph::make_if(std::move(then_g), std::move(else_g)));
          Tensors x = {pred};
          for (auto& t : tensor_list(operands)) x.push_back(t);
          return graph::run_control(n, x, true);
        }, "Runs (and records on the active tracers) an If node; returns its results.");
  m.def("_run_while", [](std::shared_ptr<Graph> cond_g, std::shared_ptr<Graph> body_g, py::sequence loop_vars,
                         py::sequence captures, std::optional<Tensor> limit) {
          Tensors x = tensor_list(loop_vars);
          const int nv = (int)x.size();
          for (auto& t : tensor_list(captures)) x.push_back(t);
          if (limit) x.push_back(*limit);
          graph::Node n = control_node(graph::NodeKind::While,
                                       graph::make_while(std::move(cond_g), std::move(body_g), nv, limit.has_value()));
          return graph::run_control(n, x, true);
        }, "Runs (and records on the active tracers) a While node; returns the final loop variables.");
}

}  // namespace tg
