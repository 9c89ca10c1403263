// tape.cpp -- GradientTape (TF semantics) over the C++ tape, custom entries and Python gradient rules.
#include <algorithm>
#include <tuple>
#include <pybind11/stl.h>
#include "bindings/nest.h"
#include "bindings/py_rules.h"
#include <structmember.h>  // (after Python.h)
#include "core/error.h"
#include "engine/jacobian.h"

namespace tg {

namespace {

// Note [Tape objects]: GradientTape is a plain CPython type, as Tensor is (Note [Tensor objects]):
// `with tape:`, watch and the one-tensor gradient run once per training step or scalar evaluation,
// and pybind11's dispatcher would cost more than the work they do. They are C methods; the rest is
// bound with pybind11 below. GradientTape is the C type itself (a Python subclass would add a
// Python-level __init__ and __enter__ to every step).
struct TapeObject {
  PyObject_HEAD
  Tape tape;
  bool active;       // between __enter__ and __exit__
  unsigned long thread;  // the thread that entered it: the one whose tape stack holds it
  bool initialised;  // a second __init__ call changes nothing
  PyObject* weakrefs;
};
PyTypeObject* g_tape_type = nullptr;

TapeObject& tape_of(py::handle self) {
  if (!PyObject_TypeCheck(self.ptr(), g_tape_type)) throw py::type_error("expected a GradientTape");
  return *reinterpret_cast<TapeObject*>(self.ptr());
}

Tensors as_tensors(const std::vector<py::object>& items, const char* what, bool allow_none) {
  Tensors r;
  for (auto h : items) {
    if (h.is_none() && allow_none) { r.push_back(nullptr); continue; }
    if (!is_tensor(h))
      throw InvalidArgument(cat("GradientTape.gradient: every ", what, " must be a Tensor or Variable, got ",
                                Py_TYPE(h.ptr())->tp_name));
    r.push_back(tensor_of(h));
  }
  return r;
}
Tensors flat_tensors(py::handle nested, const char* what, bool allow_none = false) {
  std::vector<py::object> flat;
  nest_flatten(nested, flat);
  return as_tensors(flat, what, allow_none);
}
// Results in the structure of `like` (None for a null gradient).
py::object packed_like(py::handle like, const Tensors& results) {
  std::vector<py::object> flat;
  for (auto& r : results) flat.push_back(wrap_tensor(r));
  size_t i = 0;
  return nest_pack(like, flat, i);
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

// Note [Sparse variable gradients]: as in TF, the gradient of a variable that the tape saw read only by
// gathers of its rows (GatherV2 with the variable as params, axis 0, batch_dims 0) is a tf.IndexedSlices:
// each gather's upstream gradient as values, its indices as indices, the variable's shape as
// dense_shape; the rows of a repeated index stay separate (an optimizer may treat them so, as Keras on
// TF does). The sweep then takes the gathers' results as sources instead of the variable. A variable
// with any other recorded use gets a dense gradient. Found with one pass over the entries, which
// costs nothing more when no entry gathers from a variable.
struct SparseRead {
  size_t source;                 // the variable's position among the sources
  std::vector<size_t> gathers;   // the entries that gather from it
};

bool gathers_rows_of(const TapeEntry& e, int64_t var_id) {
  static const OpDef* gather = find_op("GatherV2");
  return e.op == gather && e.inputs.size() >= 2 && e.inputs[0] && e.inputs[0]->id == var_id &&
         e.attrs.i("axis", 0) == 0 && e.attrs.i("batch_dims", 0) == 0 && !e.outputs.empty() && e.outputs[0];
}

std::vector<SparseRead> sparse_reads(const Tape& tape, const Tensors& sources) {
  static const OpDef* gather = find_op("GatherV2");
  std::vector<SparseRead> found;
  if (std::none_of(tape.entries.begin(), tape.entries.end(), [](const TapeEntry& e) { return e.op == gather; }))
    return found;
  for (size_t i = 0; i < sources.size(); ++i) {
    const Tensor& v = sources[i];
    if (!v || !v->is_variable) continue;
    SparseRead r{i, {}};
    bool dense_use = false;
    for (size_t k = 0; k < tape.entries.size() && !dense_use; ++k) {
      const TapeEntry& e = tape.entries[k];
      bool reads = false;
      for (auto& x : e.inputs) reads = reads || (x && x->id == v->id);
      if (!reads) continue;
      if (gathers_rows_of(e, v->id) && !(e.inputs[1] && e.inputs[1]->id == v->id)) r.gathers.push_back(k);
      else dense_use = true;
    }
    if (!dense_use && !r.gathers.empty()) found.push_back(std::move(r));
  }
  return found;
}

template <class... Args>
auto run_gradient(TapeObject& t, const Args&... args) {
  if (!t.tape.persistent && t.active && t.tape.used)
    throw TapeMisuse("A non-persistent GradientTape can only be used to compute one set of gradients");
  if (sweep_is_small(t.tape)) return tg::gradient(t.tape, args...);
  // Held, not borrowed, without the GIL: another thread may re-initialise a Variable argument.
  std::tuple<Args...> held(args...);
  py::gil_scoped_release nogil;
  return std::apply([&](const auto&... a) { return tg::gradient(t.tape, a...); }, held);
}

py::object gradient(TapeObject& t, py::handle target, py::handle sources, py::handle output_gradients,
                    py::handle unconnected) {
  if (target.is_none()) throw InvalidArgument("GradientTape.gradient: target is None");
  GradientRequest req;
  req.targets = flat_tensors(target, "target");
  req.sources = flat_tensors(sources, "source");
  if (!output_gradients.is_none()) {
    req.output_gradients = flat_tensors(output_gradients, "output gradient", true);
    if (req.output_gradients.size() != req.targets.size())
      throw InvalidArgument(cat("GradientTape.gradient: ", req.output_gradients.size(), " output_gradients for ",
                                req.targets.size(), " targets"));
  }
  req.unconnected_zero = wants_zeros(unconnected);
  std::vector<SparseRead> sparse = sparse_reads(t.tape, req.sources);
  if (sparse.empty()) return packed_like(sources, run_gradient(t, req));
  // Each variable's slot takes its first gather's result, the others join the sources at the end.
  const size_t n = req.sources.size();
  std::vector<std::vector<size_t>> slots(sparse.size());  // per sparse variable: the sources of its gathers
  std::vector<Tensor> variables;
  for (size_t j = 0; j < sparse.size(); ++j) {
    variables.push_back(req.sources[sparse[j].source]);
    for (size_t k : sparse[j].gathers) {
      size_t at = slots[j].empty() ? sparse[j].source : req.sources.size();
      if (at == sparse[j].source) req.sources[at] = t.tape.entries[k].outputs[0];
      else req.sources.push_back(t.tape.entries[k].outputs[0]);
      slots[j].push_back(at);
    }
  }
  std::vector<Tensors> indices(sparse.size());
  for (size_t j = 0; j < sparse.size(); ++j)
    for (size_t k : sparse[j].gathers) indices[j].push_back(t.tape.entries[k].inputs[1]);
  Tensors grads = run_gradient(t, req);
  std::vector<py::object> flat;
  for (size_t i = 0; i < n; ++i) flat.push_back(wrap_tensor(grads[i]));
  py::object make = py::module_::import("tapegrad._ops.composite.indexed_slices").attr("_from_gathers");
  for (size_t j = 0; j < sparse.size(); ++j) {
    py::list values, idx;
    for (size_t k = 0; k < slots[j].size(); ++k) {
      values.append(wrap_tensor(grads[slots[j][k]]));
      idx.append(wrap_tensor(indices[j][k]));
    }
    flat[sparse[j].source] = make(values, idx, wrap_tensor(variables[j]), req.unconnected_zero);
  }
  size_t i = 0;
  return nest_pack(sources, flat, i);
}

JacobianRequest jacobian_request(py::handle target, py::handle parallel_iterations, bool use_pfor,
                                 py::handle unconnected, const char* fn) {
  if (!is_tensor(target)) throw InvalidArgument(cat("GradientTape.", fn, ": target must be a Tensor"));
  JacobianRequest req;
  req.target = tensor_of(target);
  req.parallel_iterations = parallel_iterations.is_none() ? 0 : parallel_iterations.cast<int64_t>();
  req.use_pfor = use_pfor;
  req.unconnected_zero = wants_zeros(unconnected);
  return req;
}

// gradient() that reports each source's gradient as soon as it is final (Note [Final gradients]
// in engine/tape.h): on_order(list of source indices), then on_final(index, gradient or None).
py::list gradient_streamed(TapeObject& t, py::handle target, py::sequence sources, py::function on_order,
                           py::function on_final) {
  GradientRequest req;
  req.targets = flat_tensors(target, "target");
  req.sources = as_tensors(std::vector<py::object>(sources.begin(), sources.end()), "source", false);
  auto order_fn = std::make_shared<GilObject>(), final_fn = std::make_shared<GilObject>();
  order_fn->obj = std::move(on_order);
  final_fn->obj = std::move(on_final);
  req.on_order = [order_fn](const std::vector<size_t>& order) {
    py::gil_scoped_acquire gil;
    order_fn->obj(py::cast(order));
  };
  req.on_final = [final_fn](size_t i, const Tensor& g) {
    py::gil_scoped_acquire gil;
    final_fn->obj(i, wrap_tensor(g));
  };
  Tensors grads;
  {
    py::gil_scoped_release nogil;
    grads = tg::gradient(t.tape, req);
  }
  py::list r;
  for (auto& g : grads) r.append(wrap_tensor(g));
  return r;
}

// The C methods and slots (Note [Tape objects]).
PyObject* tape_new(PyTypeObject* type, PyObject*, PyObject*) {
  auto* self = reinterpret_cast<TapeObject*>(type->tp_alloc(type, 0));
  if (!self) return nullptr;
  new (&self->tape) Tape();
  self->tape.entries.reserve(4);
  return reinterpret_cast<PyObject*>(self);
}

int tape_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"persistent", "watch_accessed_variables", nullptr};
  int persistent = 0, watch = 1;
  if ((PyTuple_GET_SIZE(args) || kwargs) &&
      !PyArg_ParseTupleAndKeywords(args, kwargs, "|pp:GradientTape", const_cast<char**>(names), &persistent, &watch))
    return -1;
  auto* t = reinterpret_cast<TapeObject*>(self);
  if (t->initialised) return 0;
  t->initialised = true;
  Tape& tape = t->tape;
  tape.persistent = persistent;
  tape.watch_accessed_variables = watch;
  return 0;
}

void tape_dealloc(PyObject* self) {
  auto* t = reinterpret_cast<TapeObject*>(self);
  PyTypeObject* type = Py_TYPE(self);
  if (t->weakrefs) PyObject_ClearWeakRefs(self);
  // A tape dropped inside its `with` leaves its thread's stack; dropped on another thread, it cannot
  // (that stack is the other thread's, in use without the GIL), so it is left allocated, not freed
  // under the other thread's feet, and paused, so that it records nothing more.
  if (t->active && t->thread != PyThread_get_thread_ident()) {
    t->tape.paused++;
    return;
  }
  if (t->active) pop_tape(&t->tape);
  {
    py::error_scope keep_error;  // a custom entry's function is a Python object
    t->tape.~Tape();
  }
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* tape_enter(PyObject* self, PyObject*) {
  return guarded([&] {
    TapeObject& t = tape_of(self);
    if (t.active) throw TapeMisuse("This GradientTape is already recording");
    push_tape(&t.tape);
    t.active = true;
    t.thread = PyThread_get_thread_ident();
    Py_INCREF(self);
    return self;
  });
}

PyObject* tape_exit(PyObject* self, PyObject* const*, Py_ssize_t) {
  return guarded([&] {
    TapeObject& t = *reinterpret_cast<TapeObject*>(self);
    if (t.active && t.thread != PyThread_get_thread_ident())
      throw TapeMisuse("GradientTape.__exit__ on a thread other than the one that entered it (a tape records the "
                       "ops of that thread)");
    pop_tape(&t.tape);
    t.active = false;
    Py_RETURN_NONE;
  });
}

PyObject* tape_watch(PyObject* self, PyObject* arg) {
  return guarded([&] {
    Tape& tape = tape_of(self).tape;
    if (is_tensor(arg)) {
      tape.watch(tensor_ref(arg));
      Py_RETURN_NONE;
    }
    std::vector<py::object> items;
    nest_flatten(arg, items);
    for (auto h : items) {
      if (!is_tensor(h))
        throw InvalidArgument(cat("GradientTape.watch: expected Tensors or Variables, got ", Py_TYPE(h.ptr())->tp_name));
      tape.watch(tensor_of(h));
    }
    Py_RETURN_NONE;
  });
}

// gradient(target, sources, output_gradients=None, unconnected_gradients=NONE). The common call, one
// target and one source given positionally, needs no nested structures nor a request; any other
// goes to _gradient.
PyObject* tape_gradient(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (nargs != 2 || kwnames || !is_tensor(args[0]) || !is_tensor(args[1]) ||
      (tensor_ref(args[1])->is_variable && !sparse_reads(tape_of(self).tape, {tensor_ref(args[1])}).empty())) {
    static PyObject* const general = PyUnicode_InternFromString("_gradient");
    std::vector<PyObject*> all{self};
    all.insert(all.end(), args, args + nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0));
    return PyObject_VectorcallMethod(general, all.data(), 1 + (size_t)nargs, kwnames);
  }
  return guarded([&] { return run_gradient(tape_of(self), tensor_ref(args[0]), tensor_ref(args[1])); });
}

PyMethodDef g_tape_methods[] = {
    {"__enter__", (PyCFunction)tape_enter, METH_NOARGS, nullptr},
    {"__exit__", (PyCFunction)(void (*)())tape_exit, METH_FASTCALL, nullptr},
    {"watch", (PyCFunction)tape_watch, METH_O, "Watches a tensor (or nested structure of tensors)."},
    {"gradient", (PyCFunction)(void (*)())tape_gradient, METH_FASTCALL | METH_KEYWORDS,
     "gradient(target, sources, output_gradients=None, unconnected_gradients=NONE)"},
    {nullptr},
};
PyMemberDef g_tape_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TapeObject, weakrefs), READONLY, nullptr},
    {nullptr},
};
PyType_Slot g_tape_slots[] = {
    {Py_tp_new, (void*)tape_new},        {Py_tp_init, (void*)tape_init},        {Py_tp_dealloc, (void*)tape_dealloc},
    {Py_tp_methods, g_tape_methods},     {Py_tp_members, g_tape_members},
    {Py_tp_doc, (void*)"GradientTape(persistent=False, watch_accessed_variables=True)\n--\n\n"}, {0, nullptr},
};

struct StopRecording {
  py::object owner;  // the GradientTape
  Tape* tape;
};

template <class F>
void def_property(py::handle type, const char* name, F&& f) {
  type.attr(name) = py::module_::import("builtins").attr("property")(py::cpp_function(std::forward<F>(f)));
}

void bind_gradient_tape(py::module_& m) {
  PyType_Spec spec = {"tapegrad._core.GradientTape", sizeof(TapeObject), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                      g_tape_slots};
  py::handle t = PyType_FromSpec(&spec);
  if (!t) throw py::error_already_set();
  g_tape_type = reinterpret_cast<PyTypeObject*>(t.ptr());
  m.attr("GradientTape") = t;
  using h = py::handle;
  def_method(t, "_gradient", [](h self, h target, h sources, h output_gradients, h unconnected) {
        return gradient(tape_of(self), target, sources, output_gradients, unconnected);
      }, py::arg("target"), py::arg("sources"), py::arg("output_gradients") = py::none(),
      py::arg("unconnected_gradients") = py::none());
  def_method(t, "_gradient_streamed", [](h self, h target, py::sequence sources, py::function on_order, py::function on_final) {
        return gradient_streamed(tape_of(self), target, sources, std::move(on_order), std::move(on_final));
      });
  def_method(t, "jacobian", [](h self, h target, h sources, h unconnected, h parallel_iterations, bool use_pfor) {
        JacobianRequest req = jacobian_request(target, parallel_iterations, use_pfor, unconnected, "jacobian");
        req.sources = flat_tensors(sources, "source");
        Tape& tape = tape_of(self).tape;
        Tensors jac;
        {
          py::gil_scoped_release nogil;
          jac = tg::jacobian(tape, req);
        }
        return packed_like(sources, jac);
      }, py::arg("target"), py::arg("sources"), py::arg("unconnected_gradients") = py::none(),
      py::arg("parallel_iterations") = py::none(), py::arg("experimental_use_pfor") = true,
      "Jacobian of target w.r.t. each source: shape target.shape + source.shape, by one batched sweep.");
  def_method(t, "batch_jacobian", [](h self, h target, h source, h unconnected, h parallel_iterations, bool use_pfor) {
        JacobianRequest req = jacobian_request(target, parallel_iterations, use_pfor, unconnected, "batch_jacobian");
        if (!is_tensor(source)) throw InvalidArgument("GradientTape.batch_jacobian: source must be a Tensor");
        req.sources = {tensor_of(source)};
        Tape& tape = tape_of(self).tape;
        py::gil_scoped_release nogil;
        return tg::batch_jacobian(tape, req);
      }, py::arg("target"), py::arg("source"), py::arg("unconnected_gradients") = py::none(),
      py::arg("parallel_iterations") = py::none(), py::arg("experimental_use_pfor") = true);
  def_method(t, "watched_variables", [](h self) { return py::tuple(py::cast(tape_of(self).tape.watched_variables)); });
  def_method(t, "reset", [](h self) { tape_of(self).tape.reset(); });
  def_method(t, "stop_recording", [](h self) {
        TapeObject& t = tape_of(self);
        if (!t.active) throw TapeMisuse("Tape.stop_recording() can only be used while the tape is recording");
        return StopRecording{py::reinterpret_borrow<py::object>(self), &t.tape};
      });
  def_method(t, "release", [](h self) {
        auto& entries = tape_of(self).tape.entries;
        entries.clear();
        entries.shrink_to_fit();
      }, "Frees everything a (persistent) tape holds.");
  def_property(t, "nbytes", [](h self) { return tape_of(self).tape.nbytes(); });
  def_property(t, "persistent", [](h self) { return tape_of(self).tape.persistent; });
  def_property(t, "_num_entries", [](h self) { return tape_of(self).tape.entries.size(); });
  py::class_<StopRecording>(m, "_StopRecording")
      .def("__enter__", [](StopRecording& s) { s.tape->paused++; })
      .def("__exit__", [](StopRecording& s, py::args) { s.tape->paused--; });
}

py::dict attrs_dict(const Attrs& a) {
  py::dict d;
  for (auto& kv : a.items) std::visit([&](auto& v) { d[py::str(kv.first)] = py::cast(v); }, kv.second);
  return d;
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
