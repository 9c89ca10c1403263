// ops.cpp -- the generic op entry points: apply(name, inputs, attrs), op handles, the registry list.
#include <pybind11/stl.h>
#include "bindings/convert.h"
#include "bindings/nest.h"
#include "core/error.h"
#include "engine/eager.h"
#include "bindings/bind.h"
#include "graph/fusion.h"
#include "graph/trace.h"
#include "kernels/elementwise.h"
#include "kernels/half.h"
#include "ops/random.h"

namespace tg {

namespace {

// A callable bound to one OpDef. With a signature (Note [Op signatures]) it is a public op taking
// TF's arguments; without, an internal handle: inputs positional, attributes by keyword.
struct OpHandle {
  const OpDef* op;
  std::shared_ptr<const Signature> sig;
  std::vector<PyObject*> names;  // the arguments' names as interned strings (never released): keywords match by pointer
};

// The binder of TF argument lists (arg_error, convert_arg, bind_signature) is in bind.cpp.


// An internal handle: inputs positional (non-tensors take the first tensor's dtype, TF's dtype_hint),
// attributes by keyword.
void bind_raw(PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames, Tensors& x, Attrs& attrs) {
  int hint = -1;
  for (Py_ssize_t i = 0; i < nargs && hint < 0; ++i)
    if (is_tensor(args[i])) hint = (int)tensor_ref(args[i])->dtype;
  x.reserve((size_t)nargs);
  for (Py_ssize_t i = 0; i < nargs; ++i) x.push_back(to_tensor(args[i], hint));
  if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
    py::dict kw;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
      if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "name") != 0)
        kw[py::handle(PyTuple_GET_ITEM(kwnames, k))] = py::handle(args[nargs + k]);
    attrs = to_attrs(kw);
  }
}

// Note [When an op call fails]: only then (the success path pays nothing) the error, the handle and
// the arguments go to the Python hook set with _set_failure_hook (tapegrad/_ops/_dispatch.py), which
// may build the result another way (keras's symbolic tensors, attributes computed in a trace) or
// return NotImplemented, and the error stands.
PyObject* g_failure_hook = nullptr;

PyObject* on_failure(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (!g_failure_hook) return nullptr;
  PyObject *type, *value, *trace;
  PyErr_Fetch(&type, &value, &trace);
  PyErr_NormalizeException(&type, &value, &trace);
  if (trace) PyException_SetTraceback(value, trace);
  PyObject* r = nullptr;
  try {
    py::tuple pos(nargs);
    for (Py_ssize_t i = 0; i < nargs; ++i) pos[i] = py::handle(args[i]);
    py::dict kw;
    for (Py_ssize_t k = 0; kwnames && k < PyTuple_GET_SIZE(kwnames); ++k) kw[PyTuple_GET_ITEM(kwnames, k)] = args[nargs + k];
    r = PyObject_CallFunctionObjArgs(g_failure_hook, value, self, pos.ptr(), kw.ptr(), nullptr);
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {  // (no C++ exception may leave a C function)
    py::detail::try_translate_exceptions();
  }
  if (!r) {  // the hook's own error: the op's error is its context, as an `except` block would make it
    PyObject *type2, *value2, *trace2;
    PyErr_Fetch(&type2, &value2, &trace2);
    PyErr_NormalizeException(&type2, &value2, &trace2);
    if (trace2) PyException_SetTraceback(value2, trace2);
    PyObject* context = value2 ? PyException_GetContext(value2) : nullptr;  // (a new reference)
    if (value2 && value2 != value && !context) {
      Py_INCREF(value);
      PyException_SetContext(value2, value);  // (steals it)
    }
    Py_XDECREF(context);
    PyErr_Restore(type2, value2, trace2);
  }
  if (r != Py_NotImplemented) {  // a result, or the hook's own error
    Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(trace);
    return r;
  }
  Py_DECREF(r);
  PyErr_Restore(type, value, trace);
  return nullptr;
}

// OpHandle.__call__ without pybind11's dispatcher (as the Tensor type's number slots, Note [Tensor objects]): ops are
// called per element of a user's loop, and the dispatcher plus *args/**kwargs packing cost more
// than a small op itself.
PyObject* fast_op_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    auto vh = reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder();
    if (!vh.holder_constructed()) throw py::type_error("OpHandle: not initialised (made by __new__ alone)");
    const OpHandle& h = *vh.value_ptr<OpHandle>();
    Tensors x;
    Attrs attrs;
    // All inputs given positionally to an op of tensors only (tf.add(x, y)): nothing to bind.
    const bool positional = !kwnames || PyTuple_GET_SIZE(kwnames) == 0;
    if (!h.sig) {
      try {
        bind_raw(args, nargs, kwnames, x, attrs);
      } catch (OpFailure& e) {  // an internal handle of an op written in Python: name at least the op
        e.name_op(h.op->name);
        throw;
      } catch (const py::type_error& e) {
        throw py::type_error(cat(h.op->name, ": ", e.what()));
      }
    } else if (positional && h.sig->only_tensors && (size_t)nargs == h.sig->args.size()) {
      try {
        bind_raw(args, nargs, kwnames, x, attrs);
      } catch (const InvalidArgument&) {  // bind again for the error that names the op and the argument
        x.clear();
        bind_signature(*h.sig, h.names.data(), args, nargs, kwnames, x, attrs);
      } catch (const py::type_error&) {
        x.clear();
        bind_signature(*h.sig, h.names.data(), args, nargs, kwnames, x, attrs);
      }
    } else {
      bind_signature(*h.sig, h.names.data(), args, nargs, kwnames, x, attrs);
    }
    return wrap_tensor(run_op(*h.op, x, attrs)).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return on_failure(self, args, nargs, kwnames);
  }
}

std::string g_package_dir = "\x01";  // set by tapegrad/__init__.py

// The innermost Python frame outside the tapegrad package: the user's line that ran the op.
std::string python_call_site() {
  py::gil_scoped_acquire gil;
  PyFrameObject* f = PyEval_GetFrame();
  Py_XINCREF(f);
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    std::string file = py::str(code->co_filename);
    int line = PyFrame_GetLineNumber(f);
    Py_DECREF(code);
    bool internal = file.rfind(g_package_dir, 0) == 0;
    if (!internal) {
      Py_DECREF(f);
      return file + ":" + std::to_string(line);
    }
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  return "?";
}

}  // namespace

void bind_ops(py::module_& m) {
  py::class_<OpHandle>(m, "OpHandle", py::dynamic_attr())
      .def_property_readonly("name", [](const OpHandle& h) { return h.op->name; })
      .def_property_readonly("_signature_args", [](const OpHandle& h) -> py::object {
             // for __signature__ (tapegrad/_ops/_wrap.py)
             return h.sig ? signature_args(*h.sig) : py::none();
           })
      .def_property_readonly("differentiable", [](const OpHandle& h) { return h.op->differentiable; })
      .def_property_readonly("num_inputs", [](const OpHandle& h) { return h.op->num_inputs; })  // -1: variadic
      .def_property_readonly("stateful", [](const OpHandle& h) { return h.op->stateful; })
      .def("__repr__", [](const OpHandle& h) { return "<op " + h.op->name + ">"; });
  {
    static PyMethodDef call_def = {"__call__", (PyCFunction)(void (*)())fast_op_call, METH_FASTCALL | METH_KEYWORDS,
                                   "handle(*inputs, **attrs): runs the op."};
    py::handle cls = m.attr("OpHandle");
    py::object descr = py::reinterpret_steal<py::object>(
        PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &call_def));
    if (!descr || PyObject_SetAttrString(cls.ptr(), "__call__", descr.ptr()) != 0) throw py::error_already_set();
  }
  m.def("op", [](const std::string& name, py::object fn, py::object signature) {
          OpHandle h{&op_def(name.c_str()), nullptr};
          if (!signature.is_none()) {
            h.sig = std::make_shared<Signature>(parse_signature(fn.cast<std::string>(), signature.cast<std::string>()));
            if (h.sig->args.size() > kMaxArgs) throw InvalidArgument(cat("signature of ", h.sig->fn, ": too many arguments"));
            for (const ArgSpec& a : h.sig->args) h.names.push_back(PyUnicode_InternFromString(a.name.c_str()));
          }
          return h;
        }, py::arg("name"), py::arg("fn") = py::none(), py::arg("signature") = py::none(),
        "op(name): an internal handle (inputs positional, attributes by keyword); op(name, fn, signature): the "
        "public op fn with TF's arguments (Note [Op signatures] in cpp/bindings/signature.h).");
  m.def("apply", [](const std::string& name, py::sequence inputs, py::object attrs) {
          Tensors x;
          for (auto a : inputs) x.push_back(to_tensor(a));
          return apply(op_def(name.c_str()), x, to_attrs(attrs));
        }, py::arg("name"), py::arg("inputs"), py::arg("attrs") = py::none());
  m.def("_nest_flatten", [](py::handle s) {
          std::vector<py::object> out;
          nest_flatten(s, out);
          return out;
        }, "The C++ walker of nested structures (tests compare it with tapegrad._nest).");
  m.def("_nest_pack", [](py::handle like, const std::vector<py::object>& flat, py::handle slot) {
          size_t i = 0;
          py::object r = nest_pack(like, flat, i, slot.is_none() ? py::handle() : slot);
          if (i != flat.size()) throw py::value_error("nest: more values given than the structure has leaves");
          return r;
        }, py::arg("like"), py::arg("flat"), py::arg("slot") = py::none(),
        "like with its leaves (with a slot: only the leaves that are it) replaced by flat's values in order.");
  m.def("_convert_arg", [](py::handle v, const std::string& kind, const std::string& fn, const std::string& arg,
                           int dtype_hint) {
          // The doorway's conversion of one argument, for ops composed in Python.
          Signature s;
          s.fn = fn;
          s.args.push_back(ArgSpec{arg, arg, arg_kind_of(kind, fn)});
          const ArgSpec& a = s.args[0];
          if (v.is_none() && !is_input_kind(a.kind) && a.kind != ArgKind::DType) arg_error(false, s, a, "must not be None");
          Tensors x;
          Attrs attrs;
          convert_arg(s, a, v, dtype_hint, x, attrs);
          if (a.kind == ArgKind::Tensor) return py::cast(x.at(0));
          if (a.kind == ArgKind::Tensors) return py::cast(x);
          return std::visit([](auto& val) { return py::cast(val); }, attrs.items.at(0).second);
        }, py::arg("value"), py::arg("kind"), py::arg("fn"), py::arg("arg"), py::arg("dtype_hint") = -1,
        "_convert_arg(value, kind, fn, arg, dtype_hint=-1): converts one argument as a public op's signature "
        "would (Note [Op signatures]), raising errors that name fn and arg.");
  m.def("fusable_ops", &graph::fusable_ops, "Registry ops that tf.function's fusion pass can fuse.");
  m.def("registered_ops", &registered_ops, "Names of every op in the C++ registry.");
  m.def("is_differentiable", [](const std::string& n) { return op_def(n.c_str()).differentiable; });
  m.def("op_dtypes", [](const std::string& n) { return (uint32_t)op_def(n.c_str()).dtypes; },
        "The element types an op's inputs may have, a bit (1 << code) per dtype (Note [Element types]).");
  m.def("convert", [](py::handle v, int dtype) { return to_tensor_dtype(v, dtype); },
        py::arg("value"), py::arg("dtype") = -1);
  m.def("convert_hint", [](py::handle v, int hint) { return to_tensor(v, hint); });
  m.def("from_numpy", [](py::handle v, int dtype) { return from_array(v, dtype); }, py::arg("value"), py::arg("dtype") = -1);
  // For filling a new tensor in place (a receive buffer of tapegrad.distribute): the view must
  // be dropped before the tensor is handed to anyone, since tensors are otherwise immutable.
  m.def("_empty_with_view", [](std::vector<int64_t> shape, int dtype) {
    if (!is_valid_dtype(dtype)) throw InvalidArgument(cat("_empty_with_view: invalid dtype code ", dtype));
    for (int64_t d : shape)
      if (d < 0) throw InvalidArgument(cat("_empty_with_view: negative dimension ", d));
    Tensor t = empty(Shape(shape.begin(), shape.end()), (DType)dtype);
    py::array view = to_numpy(t, false);
    py::detail::array_proxy(view.ptr())->flags |= py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return py::make_tuple(t, view);
  });
  m.def("_float16", [](py::array src, py::array dst) {
    // Converts float32/float64 src into float16 bits (a uint16 dst) or back, by which side is uint16.
    const bool encode = dst.dtype().is(py::dtype::of<uint16_t>());
    py::array real = encode ? src : dst, bits = encode ? dst : src;
    const bool f32 = real.dtype().is(py::dtype::of<float>()), f64 = real.dtype().is(py::dtype::of<double>());
    if (!(f32 || f64) || !bits.dtype().is(py::dtype::of<uint16_t>()) || src.size() != dst.size() ||
        !(src.flags() & py::array::c_style) || !(dst.flags() & py::array::c_style) || !dst.writeable())
      throw py::type_error("_float16(src, dst): C-contiguous arrays of one size, float32/float64 and uint16, dst writable");
    void* out = dst.mutable_data();
    const void* in = src.data();
    const int64_t n = src.size();
    py::gil_scoped_release nogil;
    if (encode) f32 ? halves_from_floats((const float*)in, (uint16_t*)out, n) : halves_from_doubles((const double*)in, (uint16_t*)out, n);
    else f32 ? floats_from_halves((const uint16_t*)in, (float*)out, n) : doubles_from_halves((const uint16_t*)in, (double*)out, n);
  }, "float16 conversions for Compression.fp16 (cpp/kernels/half.h).");
  m.def("fill", [](std::vector<int64_t> shape, double v, int dtype) {
    if (!is_valid_dtype(dtype)) throw InvalidArgument(cat("Fill: invalid dtype code ", dtype));
    return full(shape, (DType)dtype, v);
  });
  m.def("active_isa", [] { return std::string(isa_name(active_isa())); });
  m.def("best_isa", [] { return std::string(isa_name(best_supported_isa())); });
  m.def("set_isa", [](const std::string& n) {
          set_active_isa(n == "baseline" ? 0 : n == "avx2" ? 1 : n == "avx512" ? 2 : throw InvalidArgument("unknown ISA level " + n));
        });
  m.def("_set_random_seed", &set_random_seed, py::arg("seed"),
        "Sets the random ops' global seed and restarts their streams (tf.random.set_seed).");
  m.def("_set_check_numerics", [](bool on) { g_check_numerics = on; });
  m.def("_check_numerics_enabled", [] { return g_check_numerics; });
  m.def("_set_failure_hook", [](py::object hook) {
          Py_XDECREF(g_failure_hook);
          g_failure_hook = hook.is_none() ? nullptr : hook.inc_ref().ptr();
        }, "hook(error, op, args, kwargs), called when a public op fails (Note [When an op call fails]).");
  m.def("_set_package_dir", [](const std::string& d) { g_package_dir = d; });
  g_call_site = [] { return python_call_site(); };
}

}  // namespace tg
