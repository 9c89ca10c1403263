// tensor.cpp -- the Tensor and Variable classes: storage access, NumPy interop and operators.
#include <pybind11/stl.h>
#include "bindings/convert.h"
#include "core/error.h"
#include "engine/math.h"
#include "engine/tape.h"

namespace tg {

namespace {

Tensor binary(const OpDef& op, py::handle self, py::handle other, bool reflected) {
  Tensor a = tensor_of(self);
  Tensor b = to_tensor(other, (int)a->dtype);
  return reflected ? run_op(op, {b, a}) : run_op(op, {a, b});
}

// Python's / on integer tensors gives float64, as in TF.
Tensor true_divide(py::handle self, py::handle other, bool reflected) {
  Tensor a = self.cast<Tensor>();
  Tensor b = to_tensor(other, (int)a->dtype);
  if (reflected) std::swap(a, b);
  if (is_integer(a->dtype) && a->dtype == b->dtype) {
    a = cast(a, DType::Float64);
    b = cast(b, DType::Float64);
  }
  return run_op(op_def("RealDiv"), {a, b});
}

void assign_value(const Tensor& var, py::handle value, int mode) {  // mode: 0 set, 1 add, 2 sub
  Tensor v = to_tensor(value, (int)var->dtype);
  if (v->dtype != var->dtype)
    throw InvalidArgument(cat("assign: value of ", meta_str(v), " does not match variable of ", meta_str(var)));
  if (v->shape != var->shape)
    throw InvalidArgument(cat("assign: value of shape ", shape_str(v->shape), " does not match variable of shape ",
                              shape_str(var->shape)));
  if (mode == 1) v = apply("Add", {view(var, var->shape), v});
  if (mode == 2) v = apply("Sub", {view(var, var->shape), v});
  // Tapes and NumPy views may hold the old storage: write in place only when nobody else does.
  if (var->storage.use_count() == 1) std::memcpy(var->data(), v->data(), var->nbytes());
  else {
    var->storage = std::make_shared<Storage>(var->nbytes());
    var->offset = 0;
    std::memcpy(var->data(), v->data(), var->nbytes());
  }
}

// Note [Number slots]: the hot arithmetic operators are installed straight into the type's
// number protocol (nb_add, ...), so `x * y` calls into the engine without a method lookup or
// pybind11's dispatcher (about half of a small op's cost). The pybind11-defined __add__ etc.
// stay for explicit calls (`x.__add__(y)`); slots are inherited by Variable and its Python
// subclass, which are created after install_number_slots runs.
const char* const kAddName = "Add";
const char* const kSubName = "Sub";
const char* const kMulName = "Mul";
const char* const kMatMulName = "MatMul";
const char* const kPowName = "Pow";

template <const char* const* OpName>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  static const OpDef* op = &op_def(*OpName);
  try {
    Tensor x, y;
    if (is_tensor(a)) {
      x = tensor_of(a);
      y = to_tensor(b, (int)x->dtype);
    } else {
      y = tensor_of(b);
      x = to_tensor(a, (int)y->dtype);
    }
    return py::cast(run_op(*op, {x, y})).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* nb_true_divide(PyObject* a, PyObject* b) {
  try {
    bool self_first = is_tensor(a);
    return py::cast(true_divide(self_first ? a : b, self_first ? b : a, !self_first)).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) {
    PyErr_SetString(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
    return nullptr;
  }
  return nb_binary<&kPowName>(a, b);
}

PyObject* nb_negative(PyObject* a) {
  static const OpDef* op = &op_def("Neg");
  try {
    return py::cast(run_op(*op, {tensor_of(a)})).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

}  // namespace

static void install_number_slots(PyTypeObject* type) {
  PyNumberMethods* nb = type->tp_as_number;
  nb->nb_add = nb_binary<&kAddName>;
  nb->nb_subtract = nb_binary<&kSubName>;
  nb->nb_multiply = nb_binary<&kMulName>;
  nb->nb_matrix_multiply = nb_binary<&kMatMulName>;
  nb->nb_true_divide = nb_true_divide;
  nb->nb_power = nb_power;
  nb->nb_negative = nb_negative;
}

void bind_tensor(py::module_& m) {
  py::class_<TensorImpl, std::shared_ptr<TensorImpl>> t(m, "Tensor");
  g_tensor_type = reinterpret_cast<PyTypeObject*>(t.ptr());
  t.def_property_readonly("_shape", [](const TensorImpl& s) { return py::tuple(py::cast(s.shape)); })
      .def_property_readonly("_dtype", [](const TensorImpl& s) { return (int)s.dtype; })
      .def_property_readonly("ndim", &TensorImpl::ndim)
      .def_property_readonly("_id", [](const TensorImpl& s) { return s.id; })
      .def_property_readonly("_size", [](const TensorImpl& s) { return s.size; })
      .def_property_readonly("_is_variable", [](const TensorImpl& s) { return s.is_variable; })
      .def("numpy", [](const Tensor& s) { return to_numpy(s, s->is_variable); },
           "The value as a NumPy array (a read-only view of a Tensor; a copy for a Variable).")
      .def("__array__", [](const Tensor& s, py::object dtype, py::object copy) {
             py::array a = to_numpy(s, s->is_variable || (!copy.is_none() && copy.cast<bool>()));
             return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
           }, py::arg("dtype") = py::none(), py::arg("copy") = py::none())
      .def("_item", [](const Tensor& s) -> py::object {
             if (s->size != 1) throw InvalidArgument(cat("only a tensor with one element can be converted to a Python scalar, got ", meta_str(s)));
             double v = scalar_value(s);
             if (s->dtype == DType::Bool) return py::bool_(v != 0);
             if (is_integer(s->dtype)) return py::int_(s->dtype == DType::Int64 ? *s->data_as<int64_t>() : (int64_t)v);
             return py::float_(v);
           })
      .def("__len__", [](const TensorImpl& s) {
             if (s.shape.empty()) throw py::type_error("len() of a 0-d tensor");
             return s.shape[0];
           })
      .def("__hash__", [](py::handle s) { return (py::ssize_t)(uintptr_t)s.ptr(); })
      .def("__neg__", [](const Tensor& s) { return run_op(op_def("Neg"), {s}); })
      .def("__abs__", [](const Tensor& s) { return run_op(op_def("Abs"), {s}); })
      .def("__invert__", [](const Tensor& s) { return run_op(op_def("LogicalNot"), {s}); })
      .def("__truediv__", [](py::handle s, py::handle o) { return true_divide(s, o, false); })
      .def("__rtruediv__", [](py::handle s, py::handle o) { return true_divide(s, o, true); })
      .def("__eq__", [](py::handle s, py::handle o) -> py::object {
             if (o.is_none()) return py::bool_(false);
             return py::cast(binary(op_def("Equal"), s, o, false));
           })
      .def("__ne__", [](py::handle s, py::handle o) -> py::object {
             if (o.is_none()) return py::bool_(true);
             return py::cast(binary(op_def("NotEqual"), s, o, false));
           });
  // Operators with a reflected form, one row each: Python name, op, reflected Python name.
  struct Row { const char* py; const char* op; const char* rpy; };
  static const Row rows[] = {
      {"__add__", "Add", "__radd__"},       {"__sub__", "Sub", "__rsub__"},
      {"__mul__", "Mul", "__rmul__"},       {"__floordiv__", "FloorDiv", "__rfloordiv__"},
      {"__mod__", "FloorMod", "__rmod__"},  {"__pow__", "Pow", "__rpow__"},
      {"__matmul__", "MatMul", "__rmatmul__"}, {"__and__", "LogicalAnd", "__rand__"},
      {"__or__", "LogicalOr", "__ror__"},   {"__lt__", "Less", nullptr},
      {"__le__", "LessEqual", nullptr},     {"__gt__", "Greater", nullptr},
      {"__ge__", "GreaterEqual", nullptr},
  };
  for (const Row& r : rows) {
    const OpDef* op = &op_def(r.op);
    t.def(r.py, [op](py::handle s, py::handle o) { return binary(*op, s, o, false); }, py::is_operator());
    if (r.rpy) t.def(r.rpy, [op](py::handle s, py::handle o) { return binary(*op, s, o, true); }, py::is_operator());
  }

  py::class_<VariableImpl, TensorImpl, std::shared_ptr<VariableImpl>>(m, "Variable", py::dynamic_attr())
      .def(py::init([](py::object value, int dtype, bool trainable) {
             Tensor v = to_tensor_dtype(value, dtype);
             if (dtype >= 0 && (int)v->dtype != dtype) v = cast(v, (DType)dtype);
             auto var = std::make_shared<VariableImpl>();
             var->shape = v->shape;
             var->size = v->size;
             var->dtype = v->dtype;
             var->storage = std::make_shared<Storage>(v->nbytes());
             std::memcpy(var->data(), v->data(), v->nbytes());
             var->is_variable = true;
             var->trainable = trainable;
             return var;
           }), py::arg("value"), py::arg("dtype") = -1, py::arg("trainable") = true)
      .def_property("trainable", [](const VariableImpl& v) { return v.trainable; },
                    [](VariableImpl& v, bool b) { v.trainable = b; })
      .def("_assign", [](const Tensor& v, py::handle value) { assign_value(v, value, 0); })
      .def("_assign_add", [](const Tensor& v, py::handle value) { assign_value(v, value, 1); })
      .def("_assign_sub", [](const Tensor& v, py::handle value) { assign_value(v, value, 2); })
      .def("read_value", [](const Tensor& v) { return copy(v); });
  install_number_slots(g_tensor_type);
  install_number_slots(reinterpret_cast<PyTypeObject*>(m.attr("Variable").ptr()));
}

}  // namespace tg
