// tape.cpp -- GradientTape (TF semantics) over the C++ tape, nested structures, custom entries.
#include <pybind11/stl.h>
#include "bindings/nest.h"
#include "bindings/py_rules.h"
#include "core/error.h"
#include "engine/jacobian.h"

namespace tg {

namespace {

// Nested structures of tensors: see Note [Nest order] (bindings/nest.h).
void flatten(py::handle obj, std::vector<py::object>& out) { nest_flatten(obj, out); }
py::object unflatten(py::handle like, const std::vector<py::object>& flat, size_t& i) { return nest_pack(like, flat, i); }

Tensors as_tensors(const std::vector<py::object>& items, const char* what, bool allow_none) {
  Tensors r;
  for (auto h : items) {
    if (h.is_none() && allow_none) { r.push_back(nullptr); continue; }
    if (!is_tensor(h))
      throw InvalidArgument(cat("GradientTape.gradient: every ", what, " must be a Tensor or Variable, got ",
                                std::string(py::str(h.get_type().attr("__name__")))));
    r.push_back(tensor_of(h));
  }
  return r;
}

bool wants_zeros(py::handle u) {
  if (u.is_none()) return false;
  py::object v = py::hasattr(u, "value") ? u.attr("value") : py::reinterpret_borrow<py::object>(u);
  std::string s = py::str(v);
  if (s == "zero") return true;
  if (s == "none") return false;
  throw InvalidArgument("unconnected_gradients must be UnconnectedGradients.NONE or UnconnectedGradients.ZERO, got " + s);
}

// Note [Small sweeps keep the GIL]: releasing and re-taking the GIL costs about as much as the
// whole sweep of a scalar tape, so gradient() releases it only when the tape holds more than a
// few entries or enough elements that a kernel of the sweep may take long (as run_op does for
// one op, with the same threshold). Rules that call back into Python take the GIL either way.
bool sweep_is_small(const Tape& tape) {
  if (tape.entries.size() > 16) return false;
  int64_t n = 0;
  for (auto& e : tape.entries) {
    for (auto& t : e.inputs) n += t ? t->size : 0;
    for (auto& t : e.outputs) n += t ? t->size : 0;
  }
  return n < kReleaseGilMin;
}

template <class... Args>
auto run_gradient(Tape& tape, const Args&... args) {
  if (sweep_is_small(tape)) return tg::gradient(tape, args...);
  py::gil_scoped_release nogil;
  return tg::gradient(tape, args...);
}

// The tape lives in the Python object (one allocation less per GradientTape than a shared Tape);
// a _StopRecording keeps the object alive instead.
struct PyTape {
  Tape tape;
  bool active = false;

  PyTape(bool persistent, bool watch_accessed_variables) {
    tape.entries.reserve(4);
    tape.persistent = persistent;
    tape.watch_accessed_variables = watch_accessed_variables;
  }
  PyTape(const PyTape&) = delete;
  PyTape& operator=(const PyTape&) = delete;
  // A tape dropped while still entered (`__enter__` without `__exit__`) leaves this thread's stack.
  ~PyTape() {
    if (active) pop_tape(&tape);
  }

  // Translation only: the jacobian itself is the engine's (engine/jacobian.h).
  JacobianRequest jacobian_request(py::handle parallel_iterations, bool use_pfor, py::handle unconnected) {
    JacobianRequest req;
    req.parallel_iterations = parallel_iterations.is_none() ? 0 : parallel_iterations.cast<int64_t>();
    req.use_pfor = use_pfor;
    req.unconnected_zero = wants_zeros(unconnected);
    return req;
  }

  py::object jacobian(py::handle target, py::handle sources, py::handle unconnected, py::handle parallel_iterations,
                      bool use_pfor) {
    if (!py::isinstance<TensorImpl>(target)) throw InvalidArgument("GradientTape.jacobian: target must be a Tensor");
    JacobianRequest req = jacobian_request(parallel_iterations, use_pfor, unconnected);
    req.target = target.cast<Tensor>();
    std::vector<py::object> fs;
    flatten(sources, fs);
    req.sources = as_tensors(fs, "source", false);
    Tensors jac;
    {
      py::gil_scoped_release nogil;
      jac = tg::jacobian(tape, req);
    }
    std::vector<py::object> flat;
    for (auto& j : jac) flat.push_back(j ? py::cast(j) : py::none());
    size_t i = 0;
    return unflatten(sources, flat, i);
  }

  py::object batch_jacobian(py::handle target, py::handle source, py::handle unconnected,
                            py::handle parallel_iterations, bool use_pfor) {
    if (!py::isinstance<TensorImpl>(target) || !py::isinstance<TensorImpl>(source))
      throw InvalidArgument("GradientTape.batch_jacobian: target and source must be Tensors");
    JacobianRequest req = jacobian_request(parallel_iterations, use_pfor, unconnected);
    req.target = target.cast<Tensor>();
    req.sources = {source.cast<Tensor>()};
    Tensor jac;
    {
      py::gil_scoped_release nogil;
      jac = tg::batch_jacobian(tape, req);
    }
    return jac ? py::cast(jac) : py::none();
  }

  py::object gradient(py::handle target, py::handle sources, py::handle output_gradients, py::handle unconnected) {
    if (target.is_none()) throw InvalidArgument("GradientTape.gradient: target is None");
    if (!tape.persistent && active && tape.used)
      throw TapeMisuse("A non-persistent GradientTape can only be used to compute one set of gradients");
    if (is_tensor(target) && is_tensor(sources) && output_gradients.is_none() && unconnected.is_none()) {
      // The common case, one target and one source: no nested structures to walk, no request to build
      // (the tensors are borrowed: the caller holds the objects for the call).
      return wrap_tensor(run_gradient(tape, tensor_ref(target), tensor_ref(sources)));
    }
    GradientRequest req;
    std::vector<py::object> ft, fs, fo;
    flatten(target, ft);
    flatten(sources, fs);
    req.targets = as_tensors(ft, "target", false);
    req.sources = as_tensors(fs, "source", false);
    if (!output_gradients.is_none()) {
      flatten(output_gradients, fo);
      if (fo.size() != ft.size())
        throw InvalidArgument(cat("GradientTape.gradient: ", fo.size(), " output_gradients for ", ft.size(), " targets"));
      req.output_gradients = as_tensors(fo, "output gradient", true);
    }
    req.unconnected_zero = wants_zeros(unconnected);
    Tensors grads = run_gradient(tape, req);
    std::vector<py::object> flat;
    for (auto& g : grads) flat.push_back(g ? py::cast(g) : py::none());
    size_t i = 0;
    return unflatten(sources, flat, i);
  }

  // gradient() that reports each source's gradient as soon as it is final (Note [Final gradients]
  // in engine/tape.h): on_order(list of source indices), then on_final(index, gradient or None).
  py::list gradient_streamed(py::handle target, py::sequence sources, py::function on_order, py::function on_final) {
    std::vector<py::object> ft, fs(sources.begin(), sources.end());
    flatten(target, ft);
    GradientRequest req;
    req.targets = as_tensors(ft, "target", false);
    req.sources = as_tensors(fs, "source", false);
    auto order_fn = std::make_shared<GilObject>(), final_fn = std::make_shared<GilObject>();
    order_fn->obj = std::move(on_order);
    final_fn->obj = std::move(on_final);
    req.on_order = [order_fn](const std::vector<size_t>& order) {
      py::gil_scoped_acquire gil;
      order_fn->obj(py::cast(order));
    };
    req.on_final = [final_fn](size_t i, const Tensor& g) {
      py::gil_scoped_acquire gil;
      final_fn->obj(i, g ? py::cast(g) : py::none());
    };
    Tensors grads;
    {
      py::gil_scoped_release nogil;
      grads = tg::gradient(tape, req);
    }
    py::list r;
    for (auto& g : grads) r.append(g ? py::cast(g) : py::none());
    return r;
  }
};

py::dict attrs_dict(const Attrs& a) {
  py::dict d;
  for (auto& kv : a.items) std::visit([&](auto& v) { d[py::str(kv.first)] = py::cast(v); }, kv.second);
  return d;
}

struct StopRecording {
  py::object owner;  // the GradientTape
  Tape* tape;
};



// Note [Fast tape methods]: `with tape:`, watch and the one-tensor gradient are called once per
// training step or scalar evaluation, and pybind11's dispatcher costs more than the work they
// do: they are C-level methods in the class dict. gradient hands anything but (tensor, tensor)
// to the pybind11 method it replaces (kept in g_slow_gradient), and __init__ anything but
// bools for its two arguments to g_slow_init (a second __init__ call is ignored, as by pybind11).
PyTape& tape_of(PyObject* self) {
  return *static_cast<PyTape*>(value_ptr_of(self));
}

// Never freed: they must outlive the interpreter's finalisation, which would otherwise drop them too late.
PyObject* g_slow_gradient = nullptr;
PyObject* g_slow_init = nullptr;

PyObject* forward_to(PyObject* slow, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  std::vector<PyObject*> all(1 + (size_t)nargs + (kwnames ? (size_t)PyTuple_GET_SIZE(kwnames) : 0));
  all[0] = self;
  for (size_t i = 1; i < all.size(); ++i) all[i] = args[i - 1];
  return PyObject_Vectorcall(slow, all.data(), 1 + (size_t)nargs, kwnames);
}

template <class F>
PyObject* guarded(F f) {
  try {
    return f();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* fast_enter(PyObject* self, PyObject*) {
  return guarded([&] {
    PyTape& t = tape_of(self);
    if (t.active) throw TapeMisuse("This GradientTape is already recording");
    push_tape(&t.tape);
    t.active = true;
    return Py_NewRef(self);
  });
}

PyObject* fast_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
  PyTape& t = tape_of(self);
  pop_tape(&t.tape);
  t.active = false;
  Py_RETURN_NONE;
}

PyObject* fast_watch(PyObject* self, PyObject* arg) {
  return guarded([&] {
    Tape& tape = tape_of(self).tape;
    if (is_tensor(arg)) {
      tape.watch(tensor_ref(arg));
      Py_RETURN_NONE;
    }
    std::vector<py::object> items;
    flatten(arg, items);
    for (auto h : items) {
      if (!is_tensor(h))
        throw InvalidArgument(cat("GradientTape.watch: expected Tensors or Variables, got ",
                                  std::string(py::str(h.get_type().attr("__name__")))));
      tape.watch(tensor_of(h));
    }
    Py_RETURN_NONE;
  });
}

PyObject* fast_gradient(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs != 2 || kwnames || !is_tensor(args[0]) || !is_tensor(args[1]))
    return forward_to(g_slow_gradient, self, args, nargs, kwnames);
  return guarded([&] { return tape_of(self).gradient(args[0], args[1], py::none(), py::none()).release().ptr(); });
}

// __init__(persistent=False, watch_accessed_variables=True), as pybind11's constructor does it:
// the value is built, then init_instance makes the holder and registers the instance.
PyObject* fast_init(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  static const py::detail::type_info* const type = py::detail::get_type_info(typeid(PyTape));
  bool flags[2] = {false, true}, given[2] = {false, false};
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  py::detail::value_and_holder v_h;
  if (PyObject_TypeCheck(self, type->type)) {
    v_h = inst->get_value_and_holder(type, false);
    // pybind11 ignores a second __init__ of an object, which it recognises by its registration; an
    // unregistered tape (Note [Unregistered tapes]) by its holder.
    if (v_h.inst && v_h.holder_constructed()) Py_RETURN_NONE;
  }
  bool fast = nargs <= 2 && v_h.inst && !v_h.value_ptr();  // (v_h is false until it holds a value)
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t i = 0; fast && i < nargs + nkw; ++i) {
    int k = (int)i;
    if (i >= nargs) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, i - nargs);
      k = PyUnicode_CompareWithASCIIString(name, "persistent") == 0               ? 0
          : PyUnicode_CompareWithASCIIString(name, "watch_accessed_variables") == 0 ? 1
                                                                                     : -1;
    }
    fast = k >= 0 && !given[k] && PyBool_Check(args[i]);
    if (fast) flags[k] = args[i] == Py_True, given[k] = true;
  }
  if (!fast) return forward_to(g_slow_init, self, args, nargs, kwnames);
  return guarded([&] {
    // Note [Unregistered tapes]: pybind11's init_instance would also enter the object in its
    // instance map (a hash insert and node allocation, and an erase when it dies), which serves
    // only casts of a PyTape pointer back to its Python object; no binding makes one. The holder
    // is built as init_instance builds it; an unregistered instance is not deregistered.
    auto* t = new PyTape(flags[0], flags[1]);
    v_h.value_ptr() = t;
    new (&v_h.holder<std::unique_ptr<PyTape>>()) std::unique_ptr<PyTape>(t);
    v_h.set_holder_constructed();
    Py_RETURN_NONE;
  });
}

// Note [Tape construction slot]: with __init__ in the class dict, CPython's type_call reaches it
// through slot_tp_init, which looks __init__ up and makes a bound method for every tape (a quarter
// of constructing one). The type's tp_init slot calls fast_init directly instead; __init__ stays
// in the dict for explicit calls, and a Python subclass gets CPython's generic slot as before.
int tape_tp_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  PyObject* const* items = &PyTuple_GET_ITEM(args, 0);
  const Py_ssize_t nargs = PyTuple_GET_SIZE(args);
  PyObject* r;
  if (!kwargs || PyDict_GET_SIZE(kwargs) == 0) {
    r = fast_init(self, items, nargs, nullptr);
  } else {  // keywords as a vectorcall: positional values, then one value per name
    std::vector<PyObject*> all(items, items + nargs);
    py::tuple names(PyDict_GET_SIZE(kwargs));
    Py_ssize_t pos = 0, i = 0;
    PyObject *k, *v;
    while (PyDict_Next(kwargs, &pos, &k, &v)) {
      all.push_back(v);
      PyTuple_SET_ITEM(names.ptr(), i++, Py_NewRef(k));
    }
    r = fast_init(self, all.data(), nargs, names.ptr());
  }
  if (!r) return -1;
  Py_DECREF(r);
  return 0;
}

// Note [Plain tape objects]: as for tensors (Note [Simple tensor objects] in convert.cpp), an
// object of exactly the GradientTape type in pybind11's simple layout, not in its instance map, is
// freed by destroying its holder, without clear_instance's lookup of the type's records; a
// subclass's object, or one with weak references, goes through pybind11's tp_dealloc. (tp_new
// stays pybind11's: replacing it makes the inherited __new__ refuse the type.)
destructor g_pybind_dealloc = nullptr;

void tape_dealloc(PyObject* self) {
  static const PyTypeObject* const tape_type = py::detail::get_type_info(typeid(PyTape))->type;
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  PyTypeObject* t = Py_TYPE(self);
  if (t != tape_type || !inst->simple_layout || inst->simple_instance_registered || inst->weakrefs ||
      inst->has_patients)
    return g_pybind_dealloc(self);
  if (PyType_HasFeature(t, Py_TPFLAGS_HAVE_GC)) PyObject_GC_UnTrack(self);
  if (inst->simple_holder_constructed) {
    py::error_scope keep_error;  // a custom entry's function is a Python object
    reinterpret_cast<std::unique_ptr<PyTape>&>(inst->simple_value_holder[1]).~unique_ptr();
  }
  t->tp_free(self);
  Py_DECREF(t);
}

void install_fast_methods(py::handle cls) {
  static PyMethodDef defs[] = {
      {"__init__", (PyCFunction)(void (*)())fast_init, METH_FASTCALL | METH_KEYWORDS,
       "__init__(persistent=False, watch_accessed_variables=True)"},
      {"__enter__", (PyCFunction)fast_enter, METH_NOARGS, nullptr},
      {"__exit__", (PyCFunction)(void (*)())fast_exit, METH_FASTCALL, nullptr},
      {"watch", (PyCFunction)fast_watch, METH_O, "Watches a tensor (or nested structure of tensors)."},
      {"gradient", (PyCFunction)(void (*)())fast_gradient, METH_FASTCALL | METH_KEYWORDS,
       "gradient(target, sources, output_gradients=None, unconnected_gradients=NONE)"},
  };
  auto* type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  g_slow_gradient = py::object(cls.attr("gradient")).release().ptr();
  g_slow_init = py::object(cls.attr("__init__")).release().ptr();
  for (auto& d : defs) {
    py::object descr = py::reinterpret_steal<py::object>(PyDescr_NewMethod(type, &d));
    if (!descr || PyObject_SetAttrString(cls.ptr(), d.ml_name, descr.ptr()) != 0) throw py::error_already_set();
  }
  type->tp_init = tape_tp_init;  // after setting __init__, which set the generic slot
  g_pybind_dealloc = type->tp_dealloc;
  type->tp_dealloc = tape_dealloc;
}

void bind_gradient_tape(py::module_& m) {
  py::class_<PyTape>(m, "GradientTape")
      .def(py::init<bool, bool>(), py::arg("persistent") = false, py::arg("watch_accessed_variables") = true)
      .def("watched_variables", [](PyTape& t) { return py::tuple(py::cast(t.tape.watched_variables)); })
      .def("gradient", &PyTape::gradient, py::arg("target"), py::arg("sources"),
           py::arg("output_gradients") = py::none(), py::arg("unconnected_gradients") = py::none())
      .def("_gradient_streamed", &PyTape::gradient_streamed, py::arg("target"), py::arg("sources"),
           py::arg("on_order"), py::arg("on_final"))
      .def("jacobian", &PyTape::jacobian, py::arg("target"), py::arg("sources"),
           py::arg("unconnected_gradients") = py::none(), py::arg("parallel_iterations") = py::none(),
           py::arg("experimental_use_pfor") = true,
           "Jacobian of target w.r.t. each source: shape target.shape + source.shape, by one batched sweep.")
      .def("batch_jacobian", &PyTape::batch_jacobian, py::arg("target"), py::arg("source"),
           py::arg("unconnected_gradients") = py::none(), py::arg("parallel_iterations") = py::none(),
           py::arg("experimental_use_pfor") = true)
      .def("reset", [](PyTape& t) { t.tape.reset(); })
      .def("stop_recording", [](py::object self) {
             PyTape& t = self.cast<PyTape&>();
             if (!t.active) throw TapeMisuse("Tape.stop_recording() can only be used while the tape is recording");
             return StopRecording{self, &t.tape};
           })
      .def("release", [](PyTape& t) { t.tape.entries.clear(); t.tape.entries.shrink_to_fit(); },
           "Frees everything a (persistent) tape holds.")
      .def_property_readonly("nbytes", [](PyTape& t) { return t.tape.nbytes(); })
      .def_property_readonly("persistent", [](PyTape& t) { return t.tape.persistent; })
      .def_property_readonly("_num_entries", [](PyTape& t) { return t.tape.entries.size(); });
  install_fast_methods(m.attr("GradientTape"));
  py::class_<StopRecording>(m, "_StopRecording")
      .def("__enter__", [](StopRecording& s) { s.tape->paused++; })
      .def("__exit__", [](StopRecording& s, py::args) { s.tape->paused--; });
}

void bind_custom_entries(py::module_& m) {
  m.def("record_custom", [](py::sequence inputs, py::sequence outputs, py::function fn) {
          record_custom(tensor_list(inputs), tensor_list(outputs), custom_rule(std::move(fn)));
        }, "Records one tape entry whose gradient is fn(list of output grads) -> list of input grads.");
  py::class_<PauseAllTapes>(m, "_PauseAllTapes")
      .def(py::init<>())
      .def("__enter__", [](PauseAllTapes&) {})
      .def("__exit__", [](PauseAllTapes& p, py::args) { p.release(); });
  py::class_<VariableWatcher>(m, "_VariableWatcher")
      .def(py::init<>())
      .def("__enter__", [](VariableWatcher& w) { push_variable_watcher(&w); })
      .def("__exit__", [](VariableWatcher& w, py::args) { pop_variable_watcher(&w); })
      .def("variables", [](VariableWatcher& w) { return py::list(py::cast(w.seen)); });
  m.def("should_record", [](py::sequence inputs) { return should_record(tensor_list(inputs)); });
  m.def("any_tape_recording", &any_tape_recording);
}

void bind_gradient_rules(py::module_& m) {
  m.def("set_gradient", [](const std::string& name, py::object fn) {
          if (fn.is_none()) return set_gradient_rule(name, nullptr);
          // Deliberately never released: OpDefs outlive the interpreter, and a reference
          // dropped after finalisation would crash at exit.
          auto* f = new py::object(fn);
          set_gradient_rule(name, [f](GradCtx& ctx) -> Tensors {
            py::gil_scoped_acquire gil;
            return grads_from_py((*f)(ctx.x.vec(), ctx.out, ctx.g, ctx.attrs.items.empty() ? py::dict() : attrs_dict(ctx.attrs)));
          });
        }, py::arg("name"), py::arg("fn"),
        "Replaces the gradient rule of a registered op with fn(inputs, output, grad, attrs) (None restores it).");
}

}  // namespace

void bind_tape(py::module_& m) {
  bind_gradient_tape(m);
  bind_custom_entries(m);
  bind_gradient_rules(m);
}

}  // namespace tg
