// dispatch.cpp -- PythonOp, what @dispatch makes of a public op written in Python (Note [Op dispatch] in
// python/tapegrad/_ops/_dispatch.py): a callable that forwards its arguments to the function as they came
// (vectorcall, no tuple or dict built), unless a symbolic type is registered and an argument, or an
// item of a list or tuple argument, is an instance of exactly that type: then the registered hook
// runs as hook(op, args, kwargs). A Python wrapper would add a frame and repack the arguments at every
// call (about 0.3 us, 10-20% of a small composed op, more where composed ops call each other).
// Declared with TF's argument list (@dispatch("x, axis:int=-1")), it binds and converts the arguments
// in C++ as a registry op's handle does (bind.cpp) and calls the function with the converted values.
#include <pybind11/pybind11.h>
#include <structmember.h>
#include <memory>
#include "bindings/bind.h"
#include "core/error.h"

namespace py = pybind11;

namespace tg {
namespace {

struct BoundSignature {
  Signature sig;
  std::vector<PyObject*> names;  // interned, never released (as OpHandle's)
};

struct PythonOp {
  PyObject_HEAD
  PyObject* fn;
  BoundSignature* bound;  // null: the arguments go to fn as they came
  PyObject* dict;      // __wrapped__, __name__, __qualname__, __doc__, __module__ (functools.update_wrapper)
  PyObject* weakrefs;
  vectorcallfunc vectorcall;
};

PyTypeObject* g_symbolic_type = nullptr;  // set by _set_symbolic_type; both strong references
PyObject* g_symbolic_hook = nullptr;

bool is_symbolic(PyObject* v) { return Py_TYPE(v) == g_symbolic_type; }

bool holds_symbolic(PyObject* const* args, Py_ssize_t n) {
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = args[i];
    if (is_symbolic(v)) return true;
    if (PyList_CheckExact(v) || PyTuple_CheckExact(v)) {
      PyObject** items = PySequence_Fast_ITEMS(v);
      for (Py_ssize_t j = 0, m = PySequence_Fast_GET_SIZE(v); j < m; ++j)
        if (is_symbolic(items[j])) return true;
    }
  }
  return false;
}

PyObject* call_hook(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  PyObject* pos = PyTuple_New(nargs);
  if (!pos) return nullptr;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(pos, i, args[i]);
  }
  PyObject* kw = PyDict_New();
  for (Py_ssize_t k = 0; kw && kwnames && k < PyTuple_GET_SIZE(kwnames); ++k)
    if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) < 0) Py_CLEAR(kw);
  PyObject* hook = g_symbolic_hook;
  Py_INCREF(hook);  // (the hook may register another while it runs)
  PyObject* r = kw ? PyObject_CallFunctionObjArgs(hook, self, pos, kw, nullptr) : nullptr;
  Py_DECREF(hook);
  Py_DECREF(pos);
  Py_XDECREF(kw);
  return r;
}

// fn called with the converted arguments in the signature's order: positionally, those after `*`
// by keyword.
PyObject* call_bound(const PythonOp* op, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  const Signature& s = op->bound->sig;
  const size_t n = s.args.size(), npos = std::min(n, s.positional);
  py::object values[kMaxArgs];
  py::object keywords;
  try {
    PyObject* slot[kMaxArgs] = {};
    match_slots(s, op->bound->names.data(), args, nargs, kwnames, slot);
    // Python values take the dtype of the first tensor given, else of the first converted (TF's T).
    int hint = input_dtype_hint(s, slot);
    for (size_t j = 0; j < n; ++j) {
      values[j] = python_arg(s, s.args[j], slot[j], hint);
      if (hint < 0 && s.args[j].kind == ArgKind::Tensor && is_tensor(values[j])) hint = (int)tensor_ref(values[j])->dtype;
    }
    if (n > npos) {
      py::tuple names(n - npos);
      for (size_t j = npos; j < n; ++j) names[j - npos] = py::reinterpret_borrow<py::object>(op->bound->names[j]);
      keywords = std::move(names);
    }
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
  PyObject* call_args[kMaxArgs + 1];
  for (size_t j = 0; j < n; ++j) call_args[j + 1] = values[j].ptr();
  return PyObject_Vectorcall(op->fn, call_args + 1, npos | PY_VECTORCALL_ARGUMENTS_OFFSET, keywords.ptr());
}

PyObject* python_op_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* op = reinterpret_cast<PythonOp*>(self);
  if (g_symbolic_type) {
    const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (holds_symbolic(args, nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0)))
      return call_hook(self, args, nargs, kwnames);
  }
  if (op->bound) return call_bound(op, args, PyVectorcall_NARGS(nargsf), kwnames);
  return PyObject_Vectorcall(op->fn, args, nargsf, kwnames);
}

BoundSignature* bind_text(PyObject* fn, PyObject* text) {
  if (!PyUnicode_Check(text)) {
    PyErr_Format(PyExc_TypeError, "PythonOp: the signature must be a str, got %s", Py_TYPE(text)->tp_name);
    return nullptr;
  }
  try {
    py::object name = py::getattr(fn, "__name__", py::str("op"));
    auto bound = std::make_unique<BoundSignature>();
    bound->sig = parse_signature(py::str(name), py::str(text));
    if (bound->sig.args.size() > kMaxArgs) throw InvalidArgument(cat("signature of ", bound->sig.fn, ": too many arguments"));
    for (const ArgSpec& a : bound->sig.args) bound->names.push_back(PyUnicode_InternFromString(a.name.c_str()));
    return bound.release();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* python_op_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  PyObject *fn = nullptr, *text = Py_None;
  if ((kwargs && PyDict_GET_SIZE(kwargs)) || !PyArg_UnpackTuple(args, "PythonOp", 1, 2, &fn, &text)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "PythonOp(fn, signature=None) takes positional arguments");
    return nullptr;
  }
  if (!PyCallable_Check(fn)) {
    PyErr_Format(PyExc_TypeError, "PythonOp: expected a callable, got %s", Py_TYPE(fn)->tp_name);
    return nullptr;
  }
  BoundSignature* bound = nullptr;
  if (text != Py_None && !(bound = bind_text(fn, text))) return nullptr;
  auto* op = reinterpret_cast<PythonOp*>(type->tp_alloc(type, 0));
  if (!op) {
    delete bound;
    return nullptr;
  }
  Py_INCREF(fn);
  op->fn = fn;
  op->bound = bound;
  op->vectorcall = python_op_call;
  return reinterpret_cast<PyObject*>(op);
}

int python_op_traverse(PyObject* self, visitproc visit, void* arg) {
  auto* op = reinterpret_cast<PythonOp*>(self);
  Py_VISIT(op->fn);
  Py_VISIT(op->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int python_op_clear(PyObject* self) {
  auto* op = reinterpret_cast<PythonOp*>(self);
  Py_CLEAR(op->fn);
  Py_CLEAR(op->dict);
  return 0;
}

void python_op_dealloc(PyObject* self) {
  PyObject_GC_UnTrack(self);
  if (reinterpret_cast<PythonOp*>(self)->weakrefs) PyObject_ClearWeakRefs(self);
  python_op_clear(self);
  delete reinterpret_cast<PythonOp*>(self)->bound;
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);
}

// As a function, an op stored on a class becomes a method of its instances.
PyObject* python_op_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* python_op_repr(PyObject* self) {
  PyObject* fn = reinterpret_cast<PythonOp*>(self)->fn;
  return fn ? PyObject_Repr(fn) : PyUnicode_FromString("<PythonOp>");
}

// Pickled and deep-copied as a function is: by reference, the name it has in its module.
PyObject* python_op_reduce(PyObject* self, PyObject*) { return PyObject_GetAttrString(self, "__qualname__"); }

// The declared argument list as OpHandle._signature_args gives it, or None.
PyObject* python_op_signature_args(PyObject* self, void*) {
  const BoundSignature* b = reinterpret_cast<PythonOp*>(self)->bound;
  if (!b) Py_RETURN_NONE;
  try {
    return signature_args(b->sig).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

}  // namespace

void bind_dispatch(py::module_& m) {
  static PyMemberDef members[] = {
      {"__dictoffset__", T_PYSSIZET, offsetof(PythonOp, dict), READONLY, nullptr},
      {"__weaklistoffset__", T_PYSSIZET, offsetof(PythonOp, weakrefs), READONLY, nullptr},
      {"__vectorcalloffset__", T_PYSSIZET, offsetof(PythonOp, vectorcall), READONLY, nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyGetSetDef getset[] = {
      {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
      {"_signature_args", python_op_signature_args, nullptr, nullptr, nullptr},
      {nullptr, nullptr, nullptr, nullptr, nullptr}};
  static PyMethodDef methods[] = {{"__reduce__", python_op_reduce, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(python_op_new)},
      {Py_tp_dealloc, reinterpret_cast<void*>(python_op_dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(python_op_traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(python_op_clear)},
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_descr_get, reinterpret_cast<void*>(python_op_get)},
      {Py_tp_repr, reinterpret_cast<void*>(python_op_repr)},
      {Py_tp_members, members},
      {Py_tp_getset, getset},
      {Py_tp_methods, methods},
      {Py_tp_doc, const_cast<char*>("PythonOp(fn, signature=None): a public op written in Python, as @dispatch declares it "
                                    "(Note [Op dispatch] in tapegrad/_ops/_dispatch.py).")},
      {0, nullptr}};
  static PyType_Spec spec = {"tapegrad._core.PythonOp", sizeof(PythonOp), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  m.attr("PythonOp") = py::reinterpret_steal<py::object>(type);
  m.def("_set_symbolic_type", [](py::object cls, py::object hook) {
          if (!PyType_Check(cls.ptr()) || !PyCallable_Check(hook.ptr()))
            throw py::type_error("_set_symbolic_type(cls, hook): a class and a callable");
          Py_XDECREF(g_symbolic_type);
          Py_XDECREF(g_symbolic_hook);
          g_symbolic_type = reinterpret_cast<PyTypeObject*>(cls.inc_ref().ptr());
          g_symbolic_hook = hook.inc_ref().ptr();
        }, "Registers the type whose instances send a PythonOp's call to hook(op, args, kwargs).");
  m.def("_set_list_packer", [](py::object fn) {
          if (!PyCallable_Check(fn.ptr())) throw py::type_error("_set_list_packer(fn): a callable");
          Py_XDECREF(g_list_packer);
          g_list_packer = fn.inc_ref().ptr();
        }, "Registers fn(list) -> Tensor or None, which packs a list holding tensors computed in a trace.");
}

}  // namespace tg
