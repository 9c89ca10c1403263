// ops.cpp -- the generic op entry points: apply(name, inputs, attrs), op handles, the registry list.
#include <pybind11/stl.h>
#include "bindings/convert.h"
#include "core/error.h"
#include "engine/eager.h"
#include "kernels/elementwise.h"

namespace tg {

namespace {

constexpr int64_t kReleaseGilMin = 1 << 15;

// A callable bound to one OpDef: handle(*inputs, **attrs). Non-tensor inputs take the dtype of
// the first tensor input (TF's dtype_hint), or their Python default.
struct OpHandle {
  const OpDef* op;
  Tensor call(py::args args, py::kwargs kwargs) const {
    int hint = -1;
    for (auto a : args)
      if (is_tensor(a)) { hint = (int)tensor_of(a)->dtype; break; }
    Tensors x;
    x.reserve(args.size());
    int64_t n = 0;
    for (auto a : args) {
      x.push_back(to_tensor(a, hint));
      n += x.back()->size;
    }
    Attrs attrs = to_attrs(kwargs);
    if (n >= kReleaseGilMin) {
      py::gil_scoped_release nogil;
      return apply(*op, x, attrs);
    }
    return apply(*op, x, attrs);
  }
};

// OpHandle.__call__ without pybind11's dispatcher (see Note [Number slots] in tensor.cpp): ops are
// called per element of a user's loop, and the dispatcher plus *args/**kwargs packing cost more
// than a small op itself.
PyObject* fast_op_call(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    const OpHandle& h = *reinterpret_cast<py::detail::instance*>(self)->get_value_and_holder().value_ptr<OpHandle>();
    int hint = -1;
    for (Py_ssize_t i = 0; i < nargs && hint < 0; ++i)
      if (is_tensor(args[i])) hint = (int)tensor_of(args[i])->dtype;
    Tensors x;
    x.reserve((size_t)nargs);
    int64_t n = 0;
    for (Py_ssize_t i = 0; i < nargs; ++i) {
      x.push_back(to_tensor(args[i], hint));
      n += x.back()->size;
    }
    Attrs attrs;
    if (kwnames && PyTuple_GET_SIZE(kwnames) > 0) {
      py::dict kw;
      for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); ++k)
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "name") != 0)  // TF's op name: unused
          kw[py::handle(PyTuple_GET_ITEM(kwnames, k))] = py::handle(args[nargs + k]);
      attrs = to_attrs(kw);
    }
    Tensor out;
    if (n >= kReleaseGilMin) {
      py::gil_scoped_release nogil;
      out = apply(*h.op, x, attrs);
    } else {
      out = apply(*h.op, x, attrs);
    }
    return py::cast(out).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
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
      .def("__call__", &OpHandle::call)
      .def_property_readonly("name", [](const OpHandle& h) { return h.op->name; })
      .def_property_readonly("differentiable", [](const OpHandle& h) { return h.op->differentiable; })
      .def("__repr__", [](const OpHandle& h) { return "<op " + h.op->name + ">"; });
  {
    static PyMethodDef call_def = {"__call__", (PyCFunction)(void (*)())fast_op_call, METH_FASTCALL | METH_KEYWORDS,
                                   "handle(*inputs, **attrs): runs the op."};
    py::handle cls = m.attr("OpHandle");
    py::object descr = py::reinterpret_steal<py::object>(
        PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &call_def));
    if (!descr || PyObject_SetAttrString(cls.ptr(), "__call__", descr.ptr()) != 0) throw py::error_already_set();
  }
  m.def("op", [](const std::string& name) { return OpHandle{&op_def(name.c_str())}; }, py::arg("name"));
  m.def("apply", [](const std::string& name, py::sequence inputs, py::object attrs) {
          Tensors x;
          for (auto a : inputs) x.push_back(to_tensor(a));
          return apply(op_def(name.c_str()), x, to_attrs(attrs));
        }, py::arg("name"), py::arg("inputs"), py::arg("attrs") = py::none());
  m.def("registered_ops", &registered_ops, "Names of every op in the C++ registry.");
  m.def("is_differentiable", [](const std::string& n) { return op_def(n.c_str()).differentiable; });
  m.def("convert", [](py::handle v, int dtype) { return to_tensor_dtype(v, dtype); },
        py::arg("value"), py::arg("dtype") = -1);
  m.def("convert_hint", [](py::handle v, int hint) { return to_tensor(v, hint); });
  m.def("from_numpy", [](py::handle v, int dtype) { return from_array(v, dtype); }, py::arg("value"), py::arg("dtype") = -1);
  m.def("fill", [](std::vector<int64_t> shape, double v, int dtype) { return full(shape, (DType)dtype, v); });
  m.def("active_isa", [] { return std::string(isa_name(active_isa())); });
  m.def("best_isa", [] { return std::string(isa_name(best_supported_isa())); });
  m.def("set_isa", [](const std::string& n) {
          set_active_isa(n == "baseline" ? 0 : n == "avx2" ? 1 : n == "avx512" ? 2 : throw InvalidArgument("unknown ISA level " + n));
        });
  m.def("_set_check_numerics", [](bool on) { g_check_numerics = on; });
  m.def("_check_numerics_enabled", [] { return g_check_numerics; });
  m.def("_set_package_dir", [](const std::string& d) { g_package_dir = d; });
  g_call_site = [] { return python_call_site(); };
}

}  // namespace tg
