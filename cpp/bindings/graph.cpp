// graph.cpp -- tf.function's C++ side: tracers, graphs, concrete functions and the cached call path.
#include <pybind11/stl.h>
#include "bindings/nest.h"
#include "bindings/py_rules.h"
#include "core/error.h"
#include "engine/observer.h"
#include "graph/executor.h"
#include "graph/call_policy.h"
#include "graph/control_flow.h"
#include "graph/trace.h"

namespace tg {

namespace {

using graph::Graph;
using graph::Tracer;

// The sentinel marking an output slot in an output template.
py::object& out_slot() {
  static py::object* slot = nullptr;
  if (!slot) slot = new py::object(py::module_::import("builtins").attr("object")());
  return *slot;
}

// A traced graph (its call policy in graph/call_policy.h) plus the structure of its outputs.
struct Concrete : graph::ConcreteGraph {
  py::object tmpl;     // nested outputs with out_slot() leaves
  bool single = false; // the function returned exactly one tensor

  py::object run(const Tensors& args) const {
    const graph::Route r = route(args);
    Tensors outs;
    if (r == graph::Route::kGraph && g->work >= kReleaseGilMin) {
      py::gil_scoped_release nogil;
      outs = ConcreteGraph::run(r, args);
    } else {
      outs = ConcreteGraph::run(r, args);
    }
    if (single) return py::cast(std::move(outs[0]));
    std::vector<py::object> flat;
    flat.reserve(outs.size());
    for (auto& t : outs) flat.push_back(wrap_tensor(std::move(t)));
    size_t i = 0;
    return nest_pack(tmpl, flat, i, out_slot());
  }
};

// The key of a call (Note [Call keys]); false when an argument is not one the key describes.
bool call_key(const py::args& args, graph::CallKey& key) {
  key.clear();
  for (auto a : args) {
    PyObject* o = a.ptr();
    if (PyFloat_CheckExact(o)) {
      key.add_float(PyFloat_AS_DOUBLE(o));
    } else if (PyBool_Check(o)) {
      key.add_bool(o == Py_True);
    } else if (PyLong_CheckExact(o)) {
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow) return false;
      key.add_int(v);
    } else if (o == Py_None) {
      key.add_none();
    } else if (is_tensor(a)) {
      key.add_tensor(tensor_of(a));
    } else {
      return false;
    }
  }
  return true;
}

// The C++ base of tapegrad.Function: a hit in its cache runs without Python; a miss (or a call
// the key cannot describe) goes to the Python method _call_slow, which traces.
struct FunctionBase {
  graph::CallCache cache;
  int64_t calls = 0;  // every call, hit or miss (the retracing warning counts calls between traces)
};

py::object function_call(py::object self, py::args args, py::kwargs kwargs) {
  auto& base = self.cast<FunctionBase&>();
  ++base.calls;
  if (kwargs.empty()) {
    thread_local graph::CallKey key;
    const bool described = call_key(args, key);
    Tensors tensors = std::move(key.tensors);  // the key keeps no tensor alive
    key.tensors.clear();
    if (described)
      if (auto* c = base.cache.find(key)) return static_cast<const Concrete*>(c)->run(tensors);
  }
  return self.attr("_call_slow")(*args, **kwargs);
}

std::shared_ptr<graph::HostFn> make_host_fn(py::function fn) {
  auto holder = std::make_shared<GilObject>();
  holder->obj = std::move(fn);
  return std::make_shared<graph::HostFn>([holder](const Tensors& x) {
    py::gil_scoped_acquire gil;
    py::object r = holder->obj(py::cast(x));
    return r.is_none() ? Tensors{} : tensor_list(r);
  });
}

// One tuple per node for Python's graph inspection: (name, type, inputs, shape with None for
// unknown dims, dtype code, has a value).
py::list node_list(const Graph& g) {
  py::list r;
  for (auto& n : g.nodes) {
    py::list shape;
    for (int64_t d : n.meta.shape) shape.append(d < 0 ? py::none() : py::object(py::int_(d)));
    r.append(py::make_tuple(n.name, graph::tf_op_type(n), n.inputs, shape, (int)n.meta.dtype, graph::has_value(n)));
  }
  return r;
}

py::object attr_object(const AttrValue& v) {
  return std::visit([](const auto& x) { return py::cast(x); }, v);
}

// Note [Exported nodes]: one dict per node for writing the graph in TF's formats (tf.saved_model): what
// node_list shows plus the registry op's attributes, a constant's value, the variable a read or an
// assignment names, a placeholder's argument index, a host call's label and a control node's subgraphs.
py::list export_list(const Graph& g) {
  py::list r;
  for (auto& n : g.nodes) {
    py::dict d;
    py::list shape;
    for (int64_t dim : n.meta.shape) shape.append(dim < 0 ? py::none() : py::object(py::int_(dim)));
    d["type"] = graph::tf_op_type(n);
    d["name"] = n.name;
    d["inputs"] = n.inputs;
    d["shape"] = shape;
    d["dtype"] = (int)n.meta.dtype;
    d["arg"] = n.arg;
    if (n.kind == graph::NodeKind::Op && !n.fused) {
      py::dict attrs;
      for (auto& kv : n.attrs.items) attrs[py::str(kv.first)] = attr_object(kv.second);
      d["attrs"] = attrs;
    }
    if (n.value) d["value"] = wrap_tensor(n.value);
    if (n.flow) {
      d["subgraphs"] = py::make_tuple(n.flow->first, n.flow->second);
      d["num_loop_vars"] = n.flow->num_loop_vars;
      d["has_limit"] = n.flow->has_limit;
    }
    r.append(d);
  }
  return r;
}

void bind_graph_class(py::module_& m) {
  py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph", "A traced function: nodes in execution order.")
      .def("__str__", &Graph::to_text)
      .def("to_text", &Graph::to_text, "One line per node: op, inputs, attributes, shape and dtype.")
      .def("to_dot", &Graph::to_dot, "The graph in Graphviz DOT.")
      .def_property_readonly("num_nodes", [](const Graph& g) { return g.nodes.size(); })
      .def_property_readonly("num_args", [](const Graph& g) { return g.num_args; })
      .def_property_readonly("relaxed", [](const Graph& g) { return g.relaxed; })
      .def_property_readonly("ops", &graph::node_ops, "The op of each node, in execution order.")
      .def("same_structure", [](const Graph& a, const Graph& b) {
             std::string why;
             bool same = graph::same_structure(a, b, &why);
             return py::make_tuple(same, why);
           })
      .def("relax", &graph::relax, "Note [Relaxed graphs]: per placeholder the dims to keep (-1: any size).")
      .def("nodes", &node_list, "Per node: (name, type, inputs, shape, dtype code, has a value).")
      .def("export_nodes", &export_list, "Note [Exported nodes]: per node a dict for writing TF's formats.")
      .def_property_readonly("outputs", [](const Graph& g) { return g.outputs; })
      .def("run", [](const Graph& g, py::sequence args) {
             Tensors x = tensor_list(args);
             return graph::run_graph(g, x, graph::needs_eager(g, x));
           });
}

void bind_tracer(py::module_& m) {
  m.def("_set_sizes_at_run_time", [](int mode) {
          // True (1) inside a trace whose sizes vary with values (2) keeps the stronger mode
          return set_sizes_at_run_time(mode == 1 && sizes_vary_with_values() ? 2 : mode);
        }, py::arg("on"),
        "Note [Sizes in traced rules]: sets whether gradient rules take sizes at run time (0 no, 1 or True yes, 2 "
        "also broadcasting gradients at run time); returns the old mode, to be passed back.");
  py::class_<Tracer>(m, "_Tracer")
      .def(py::init([](bool dry, bool subgraph) {
             auto t = std::make_unique<Tracer>();
             t->subgraph = subgraph;
             if (dry) t->begin_dry();
             return t;
           }), py::arg("dry") = false, py::arg("subgraph") = false,
           "The trace of a tf.function (dry: variables and random streams restored after), or of a branch or loop "
           "body (subgraph: dry, capturing the enclosing trace's values; Note [Control-flow nodes]).")
      .def("__enter__", &Tracer::enter)
      .def("__exit__", [](Tracer& t, py::args) { t.exit(); })
      .def("placeholder", [](Tracer& t, const Tensor& x, const std::string& name) { t.placeholder(x, name); },
           py::arg("x"), py::arg("name") = "arg")
      .def("capture", [](Tracer& t, const Tensor& x) { t.capture(x); })
      .def("restore_variables", &Tracer::restore_variables)
      .def_property_readonly("traced_graph", [](const Tracer& t) { return t.traced; },
                             "After finish(): the graph as recorded, before optimization.")
      .def_property_readonly("leak_use", [](const Tracer& t) { return t.leak_use; },
                             "Note [Leaked tensors]: the first leaked tensor the trace used, or ''.")
      .def_property_readonly("captures", [](const Tracer& t) { return t.captures; },
                             "A subgraph's captured outer values (its last arguments, in order).")
      .def("finish", [](Tracer& t, py::sequence outputs) {
             // Called after __exit__: turns the recorded nodes into an optimized graph.
             graph::OptimizeStats stats;
             auto g = t.finish(tensor_list(outputs), &stats);
             py::dict d;
             d["folded"] = stats.folded;
             d["simplified"] = stats.simplified;
             d["merged"] = stats.merged;
             d["pruned"] = stats.pruned;
             d["fused"] = stats.fused;
             return py::make_tuple(g, d);
           });
  m.def("_alias", [](const Tensor& t) { return view(t, t->shape); }, "t's value under a new tensor id.");
  m.def("_run_if", &graph::run_if, py::arg("then_g"), py::arg("else_g"), py::arg("pred"), py::arg("operands"),
        "Runs (and records on the active tracers) an If node; returns its results.");
  m.def("_run_while", [](std::shared_ptr<Graph> cond_g, std::shared_ptr<Graph> body_g, const Tensors& loop_vars,
                         const Tensors& captures, std::optional<Tensor> limit) {
          return graph::run_while(std::move(cond_g), std::move(body_g), loop_vars, captures, limit.value_or(nullptr));
        }, py::arg("cond_g"), py::arg("body_g"), py::arg("loop_vars"), py::arg("captures"), py::arg("limit"), "Runs (and records on the active tracers) a While node; returns the "
        "final loop variables, then the trip count.");
}

void bind_concrete(py::module_& m) {
  py::class_<Concrete, std::shared_ptr<Concrete>>(m, "_Concrete")
      .def(py::init([](std::shared_ptr<Graph> g, py::object tmpl, bool single) {
             auto c = std::make_shared<Concrete>();
             c->g = std::move(g);
             c->tmpl = std::move(tmpl);
             c->single = single;
             return c;
           }))
      .def_property_readonly("graph", [](const Concrete& c) { return c.g; })
      .def_property_readonly("backward_graph", [](const Concrete& c) {
             return c.plan ? c.plan->backward : std::shared_ptr<Graph>();
           }, "The backward graph (Note [Backward graphs]), once a call under a tape built it; else None.")
      .def("run", [](const Concrete& c, py::sequence args) { return c.run(tensor_list(args)); });

  py::class_<FunctionBase>(m, "_FunctionBase")
      .def(py::init<>())
      .def("__call__", &function_call)
      .def("_memo_insert", [](FunctionBase& f, std::shared_ptr<Concrete> c, py::args args) {
             graph::CallKey key;
             return call_key(args, key) && f.cache.insert(key, std::move(c));
           })
      .def("_memo_clear", [](FunctionBase& f) { f.cache.memo.clear(); })
      .def_property_readonly("_memo_size", [](const FunctionBase& f) { return f.cache.memo.size(); })
      .def_property_readonly("_num_calls", [](const FunctionBase& f) { return f.calls; });
}

void bind_trace_hooks(py::module_& m) {
  m.attr("_OUT") = out_slot();
  m.def("_tracing", &graph::tracing, "True while a tf.function is being traced on this thread.");
  m.def("_is_traced", [](const Tensor& t) { return graph::tracing() && graph::is_traced_value(t); },
        "True when t depends on a traced function's arguments or variables.");
  m.def("_fresh_view", &graph::fresh_view,
        "A tensor with its own id and t's value: what a traced function receives for each tensor argument.");
  m.def("_describe_traced", [](const Tensor& t) { return graph::describe_traced(t); });
  m.def("_size_varies", [](const Tensor& t) { return graph::tracing() && graph::size_varies(t); },
        "True when a trace sees t's shape vary from call to call (computed from a value-shaped op's result).");
  {
    // A C function, not a pybind11 one: Tensor.shape asks it at every read, eager reads included.
    static PyMethodDef def = {
        "_varying_dims",
        [](PyObject*, PyObject* t) -> PyObject* {
          if (!graph::tracing() || !is_tensor(t)) return PyLong_FromLong(0);
          return PyLong_FromLongLong((long long)graph::varying_dims(tensor_ref(t)));
        },
        METH_O, "Note [Varying dimensions]: bit d set when a trace sees t's dimension d vary from call to call (-1: all)."};
    py::object f = py::reinterpret_steal<py::object>(PyCFunction_New(&def, nullptr));
    if (!f) throw py::error_already_set();
    m.attr("_varying_dims") = f;
  }
  m.def("_leaked_name", [](const Tensor& t) -> py::object {
          const std::string* name = graph::leaked_name(t->id);
          return name ? py::object(py::str(*name)) : py::object(py::none());
        }, "Note [Leaked tensors]: TF's text for t if a trace computed it and Python kept it, else None.");
  m.def("_in_place_writes", &graph::in_place_writes, "Note [Donated loop variables]: rows written in place so far.");
  m.def("_num_leaked", &graph::num_leaked, "Note [Leaked tensors]: how many leaked tensors are alive.");
  m.def("_traced_name", [](const Tensor& t) { return graph::traced_name(t); },
        "The name of t's value in the innermost trace (\"add:0\"), or '' when no trace saw it.");
  m.def("_traced_assign", [](const Tensor& var, py::handle value, int mode) {
          graph::traced_assign(var, to_tensor(value, (int)var->dtype), mode);
        }, "Assigns a variable while tracing and records the assignment in the graph.");
  m.def("_record_host_call", [](py::function fn, py::sequence tensors, const std::string& label, py::sequence outs) {
          graph::record_host_call(make_host_fn(std::move(fn)), tensor_list(tensors), label, tensor_list(outs));
        }, py::arg("fn"), py::arg("tensors"), py::arg("label"), py::arg("outs") = py::list(),
        "Records a callback that runs with the given tensors' values at every call of the graph; a callback "
        "that returned `outs` while tracing returns such tensors at every call (later ops read them).");
}

}  // namespace

void check_not_leaked(const Tensors& x) {
  for (auto& t : x)
    if (const std::string* text = t ? graph::leaked_name(t->id) : nullptr)
      throw py::type_error(*text + " is out of scope and cannot be used here. Use return values, explicit Python "
                           "locals or TensorFlow collections to access it. (A value a tf.function computed while "
                           "tracing stands for a different value at every call; this one holds the first call's.)");
}

void bind_graph(py::module_& m) {
  bind_graph_class(m);
  bind_tracer(m);
  bind_concrete(m);
  bind_trace_hooks(m);
}

}  // namespace tg
