// tensor.cpp -- the Tensor and Variable classes: storage access, NumPy interop and operators.
#include <pybind11/stl.h>
#include "bindings/convert.h"
#include "core/error.h"
#include "engine/math.h"
#include "graph/trace.h"

namespace tg {

namespace {

// Whether == and != of two tensors compare elementwise: tensors whose shapes do not broadcast are
// simply unequal in TF (a bool scalar, no error).
bool broadcastable(py::handle s, py::handle o) {
  if (!is_tensor(s) || !is_tensor(o)) return true;
  Shape out;
  return broadcast_shapes(tensor_of(s)->shape, tensor_of(o)->shape, out);
}


// One row per binary operator: Python name, reflected name (none for comparisons), op.
struct Operator {
  const char* py;
  const char* rpy;
  const char* op;
};
constexpr Operator kBinary[] = {
    {"__add__", "__radd__", "Add"},   {"__sub__", "__rsub__", "Sub"},   {"__mul__", "__rmul__", "Mul"},
    {"__floordiv__", "__rfloordiv__", "FloorDiv"}, {"__mod__", "__rmod__", "FloorMod"},
    {"__pow__", "__rpow__", "Pow"},   {"__matmul__", "__rmatmul__", "MatMul"},
    {"__and__", "__rand__", "LogicalAnd"}, {"__or__", "__ror__", "LogicalOr"},
    {"__lt__", nullptr, "Less"},      {"__le__", nullptr, "LessEqual"}, {"__gt__", nullptr, "Greater"},
    {"__ge__", nullptr, "GreaterEqual"},
};
enum { kAdd, kSub, kMul, kFloorDiv, kMod, kPow, kMatMul, kAnd, kOr };
constexpr Operator kUnary[] = {{"__neg__", nullptr, "Neg"}, {"__abs__", nullptr, "Abs"}, {"__invert__", nullptr, "LogicalNot"}};
enum { kNeg, kAbs, kInvert };

// The other operand of a binary operator converted to the tensor's dtype (TF's dtype_hint). A value
// that does not convert (a Python float for an integer tensor) is TF's TypeError, but
// `tensor + value` passes it on to the kernel, which refuses the mixed dtypes with InvalidArgumentError.
Tensor operand(const OpDef& op, py::handle v, const Tensor& other, bool tensor_first) {
  try {
    return to_tensor(v, (int)other->dtype);
  } catch (const py::type_error& e) {
    if (tensor_first && op.name == "Add") throw InvalidArgument(cat(op.name, ": ", e.what()));
    throw py::type_error(cat(op.name, ": ", e.what()));
  }
}

// One operand is a tensor (read in place: the caller's objects outlive the call), the other is
// converted; the pair goes to apply2 (Note [Spare input list]).
Tensor binary(const OpDef& op, py::handle a, py::handle b) {
  const bool first = is_tensor(a);
  const Tensor& t = tensor_ref(first ? a : b);
  Tensor other = operand(op, first ? b : a, t, first);
  if (graph::g_leaks_alive) check_not_leaked({t, other});
  auto run = [&] { return first ? apply2(op, t, std::move(other)) : apply2(op, std::move(other), t); };
  if (t->size + other->size >= kReleaseGilMin) {
    py::gil_scoped_release nogil;
    return run();
  }
  return run();
}

Tensor divide(py::handle a, py::handle b) {  // Python's /: integers divide as float64, as in TF
  static const OpDef* op = &op_def("RealDiv");
  Tensor x = is_tensor(a) ? tensor_of(a) : operand(*op, a, tensor_of(b), false);
  Tensor y = is_tensor(b) ? tensor_of(b) : operand(*op, b, x, true);
  return run_released({x, y}, [&] { return true_divide(x, y); });
}

// Note [Number slots]: the operators are installed straight into the type's number protocol
// (nb_add, ...), so `x * y` calls into the engine without a method lookup or pybind11's
// dispatcher (about half of a small op's cost). The pybind11-defined __add__ etc. stay for
// explicit calls (`x.__add__(y)`); slots are inherited by Variable and its Python subclass,
// which are created after install_number_slots runs.
template <class F>
PyObject* guarded(F f) {
  try {
    return wrap_tensor(f()).release().ptr();
  } catch (...) {
    py::detail::try_translate_exceptions();
    return nullptr;
  }
}

template <int I>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  static const OpDef* op = &op_def(kBinary[I].op);
  return guarded([&] { return binary(*op, a, b); });
}

template <int I>
PyObject* nb_unary(PyObject* a) {
  static const OpDef* op = &op_def(kUnary[I].op);
  return guarded([&] { return run_op(*op, {tensor_of(a)}); });
}

PyObject* nb_true_divide(PyObject* a, PyObject* b) { return guarded([&] { return divide(a, b); }); }

PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) {
    PyErr_SetString(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
    return nullptr;
  }
  return nb_binary<kPow>(a, b);
}

void install_number_slots(PyTypeObject* type) {
  PyNumberMethods* nb = type->tp_as_number;
  nb->nb_add = nb_binary<kAdd>;
  nb->nb_subtract = nb_binary<kSub>;
  nb->nb_multiply = nb_binary<kMul>;
  nb->nb_floor_divide = nb_binary<kFloorDiv>;
  nb->nb_remainder = nb_binary<kMod>;
  nb->nb_matrix_multiply = nb_binary<kMatMul>;
  nb->nb_and = nb_binary<kAnd>;
  nb->nb_or = nb_binary<kOr>;
  nb->nb_true_divide = nb_true_divide;
  nb->nb_power = nb_power;
  nb->nb_negative = nb_unary<kNeg>;
  nb->nb_absolute = nb_unary<kAbs>;
  nb->nb_invert = nb_unary<kInvert>;
}

py::object item(const Tensor& s) {
  if (s->size != 1)
    throw InvalidArgument(cat("only a tensor with one element can be converted to a Python scalar, got ", meta_str(s)));
  double v = scalar_value(s);
  if (s->dtype == DType::Bool) return py::bool_(v != 0);
  if (is_integer(s->dtype)) return py::int_(s->dtype == DType::Int64 ? *s->data_as<int64_t>() : (int64_t)v);
  return py::float_(v);
}

}  // namespace

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
      .def("_item", &item)
      .def("__len__", [](const Tensor& s) {
             if (s->shape.empty()) throw py::type_error("len() of a 0-d tensor");
             if (graph::tracing() && (graph::varying_dims(s) & 1))  // (its traced length would be kept)
               throw py::type_error("len is not well defined for a tensor whose length changes from call to call");
             return s->shape[0];
           })
      .def("__hash__", [](py::handle s) { return (py::ssize_t)(uintptr_t)s.ptr(); })
      .def("__truediv__", [](py::handle s, py::handle o) { return divide(s, o); })
      .def("__rtruediv__", [](py::handle s, py::handle o) { return divide(o, s); })
      .def("__eq__", [](py::handle s, py::handle o) -> py::object {
             if (o.is_none()) return py::bool_(false);
             if (!broadcastable(s, o)) return py::cast(scalar(0.0, DType::Bool));  // as TF: no error, False
             return py::cast(binary(op_def("Equal"), s, o));
           })
      .def("__ne__", [](py::handle s, py::handle o) -> py::object {
             if (o.is_none()) return py::bool_(true);
             if (!broadcastable(s, o)) return py::cast(scalar(1.0, DType::Bool));
             return py::cast(binary(op_def("NotEqual"), s, o));
           });
  for (const Operator& r : kBinary) {
    const OpDef* op = &op_def(r.op);
    t.def(r.py, [op](py::handle s, py::handle o) { return binary(*op, s, o); }, py::is_operator());
    if (r.rpy) t.def(r.rpy, [op](py::handle s, py::handle o) { return binary(*op, o, s); }, py::is_operator());
  }
  for (const Operator& r : kUnary) {
    const OpDef* op = &op_def(r.op);
    t.def(r.py, [op](const Tensor& s) { return run_op(*op, {s}); });
  }

  py::class_<VariableImpl, TensorImpl, std::shared_ptr<VariableImpl>>(m, "Variable", py::dynamic_attr())
      .def(py::init([](py::object value, int dtype, bool trainable) {
             Tensor v = to_tensor_dtype(value, dtype);
             return make_variable(dtype >= 0 && (int)v->dtype != dtype ? cast(v, (DType)dtype) : v, trainable);
           }), py::arg("value"), py::arg("dtype") = -1, py::arg("trainable") = true)
      .def_property("trainable", [](const VariableImpl& v) { return v.trainable; },
                    [](VariableImpl& v, bool b) { v.trainable = b; })
      .def("_assign", [](const Tensor& v, py::handle x) { assign(v, to_tensor(x, (int)v->dtype), AssignMode::kSet); })
      .def("_assign_add", [](const Tensor& v, py::handle x) { assign(v, to_tensor(x, (int)v->dtype), AssignMode::kAdd); })
      .def("_assign_sub", [](const Tensor& v, py::handle x) { assign(v, to_tensor(x, (int)v->dtype), AssignMode::kSub); })
      .def("read_value", [](const Tensor& v) { return copy(v); });
  install_number_slots(g_tensor_type);
  install_tensor_dealloc(g_tensor_type);
  install_number_slots(reinterpret_cast<PyTypeObject*>(m.attr("Variable").ptr()));
}

}  // namespace tg
