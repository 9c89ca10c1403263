// tensor.cpp -- the Tensor and Variable types (Note [Tensor objects] in convert.h): operators in
// their number and comparison slots, hot attributes as C getters, the rest bound with pybind11.
#include <pybind11/stl.h>
#include "bindings/convert.h"
#include <structmember.h>  // (after Python.h)
#include "core/error.h"
#include "engine/math.h"
#include "graph/trace.h"

namespace tg {

PyTypeObject* g_tensor_type = nullptr;

namespace {

PyTypeObject* g_variable_type = nullptr;

struct VariableObject {
  TensorObject base;
  PyObject* dict;
};

// The tensor of a tensor object; TypeError for a Variable whose __init__ has not run (or a non-tensor).
const Tensor& live(py::handle h) {
  if (!is_tensor(h)) throw py::type_error(cat("expected an initialised Tensor or Variable, got ", Py_TYPE(h.ptr())->tp_name));
  return tensor_ref(h);
}

// As TF's operators: when `tensor OP value` cannot convert value and value's type has the reflected
// method, the result is value.__rOP__(tensor), unless that returns NotImplemented or raises TypeError
// or ValueError, and then the conversion's error stands (x + obj calls obj.__radd__(x)).
void try_reflected(py::handle v, py::handle self, const char* name) {
  // (looked up through the value, not its type: `type` itself has __ror__, for int | None, and TF's
  // lookup on the type trips over it with an AttributeError where the contract is a TypeError)
  // Not for a tensor (one that did not convert is a Variable whose __init__ has not run: its reflected
  // method is this one), nor for numbers and NumPy arrays, which TF converts (truncating floats for an
  // integer tensor, where tapegrad raises: README, Differences from TensorFlow).
  if (PyObject_TypeCheck(v.ptr(), g_tensor_type) || PyNumber_Check(v.ptr()) || py::isinstance<py::array>(v) ||
      !PyObject_HasAttrString(v.ptr(), name))
    return;
  PyObject* r = PyObject_CallMethod(v.ptr(), name, "O", self.ptr());
  if (r && r != Py_NotImplemented) throw Deferred{py::reinterpret_steal<py::object>(r)};
  Py_XDECREF(r);
  if (!r && !PyErr_ExceptionMatches(PyExc_TypeError) && !PyErr_ExceptionMatches(PyExc_ValueError))
    throw py::error_already_set();
  PyErr_Clear();
}

// The other operand of a binary operator converted to the tensor's dtype (TF's dtype_hint). A value
// that does not convert (a Python float for an integer tensor) is TF's TypeError, but
// `tensor + value` passes it on to the kernel, which refuses the mixed dtypes with InvalidArgumentError.
Tensor operand(const OpDef& op, py::handle v, const Tensor& other, bool tensor_first, py::handle self = {},
               const char* reflected = nullptr) {
  try {
    return to_tensor(v, (int)other->dtype);
  } catch (...) {
    if (tensor_first && reflected) try_reflected(v, self, reflected);
    try {
      throw;
    } catch (const py::type_error& e) {
      if (tensor_first && op.name == "Add") throw InvalidArgument(cat(op.name, ": ", e.what()));
      throw py::type_error(cat(op.name, ": ", e.what()));
    }
  }
}

// One operand is a tensor (read in place: the caller's objects outlive the call), the other is
// converted; the pair goes to apply2 (Note [Spare input list]).
Tensor binary(const OpDef& op, py::handle a, py::handle b, const char* reflected = nullptr) {
  const bool first = is_tensor(a);
  const Tensor& t = live(first ? a : b);
  Tensor other = operand(op, first ? b : a, t, first, a, reflected);
  if (graph::g_leaks_alive) check_not_leaked({t, other});
  auto run = [&](const Tensor& x) { return first ? apply2(op, x, std::move(other)) : apply2(op, std::move(other), x); };
  if (t->size + other->size >= kReleaseGilMin) {
    Tensor held = t;  // without the GIL another thread may re-initialise the Variable that holds t
    py::gil_scoped_release nogil;
    return run(held);
  }
  return run(t);
}

// The operators' ops; a number slot is nb_binary<k...> or nb_unary<k...>.
constexpr const char* kOps[] = {"Add", "Sub", "Mul", "FloorDiv", "FloorMod", "Pow", "MatMul",
                                "LogicalAnd", "LogicalOr", "Neg", "Abs", "LogicalNot"};
enum { kAdd, kSub, kMul, kFloorDiv, kMod, kPow, kMatMul, kAnd, kOr, kNeg, kAbs, kInvert };
constexpr const char* kReflected[] = {"__radd__", "__rsub__", "__rmul__", "__rfloordiv__", "__rmod__", "__rpow__",
                                      "__rmatmul__", "__rand__", "__ror__"};

template <int I>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  static const OpDef* op = &op_def(kOps[I]);
  return guarded([&] { return binary(*op, a, b, kReflected[I]); });
}
template <int I>
PyObject* nb_unary(PyObject* a) {
  static const OpDef* op = &op_def(kOps[I]);
  return guarded([&] { return run_op(*op, {live(a)}); });
}
PyObject* nb_true_divide(PyObject* a, PyObject* b) {  // Python's /: integers divide as float64, as in TF
  static const OpDef* op = &op_def("RealDiv");
  return guarded([&] {
    Tensor x = is_tensor(a) ? tensor_of(a) : operand(*op, a, live(b), false);
    Tensor y = is_tensor(b) ? tensor_of(b) : operand(*op, b, x, true, a, "__rtruediv__");
    return run_released({x, y}, [&] { return true_divide(x, y); });
  });
}
PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod == Py_None) return nb_binary<kPow>(a, b);
  PyErr_SetString(PyExc_TypeError, "pow() with a modulus is not supported for tensors");
  return nullptr;
}

// ==, !=, <, <=, >, >= (self is always the tensor: CPython swaps the operands for reflected ones).
// == and != with None are False and True; of tensors whose shapes do not broadcast, a bool scalar
// (TF: no error).
PyObject* richcompare(PyObject* self, PyObject* other, int cmp) {
  static const OpDef* ops[] = {&op_def("Less"),    &op_def("LessEqual"), &op_def("Equal"),
                               &op_def("NotEqual"), &op_def("Greater"),   &op_def("GreaterEqual")};
  if ((cmp == Py_EQ || cmp == Py_NE) && other == Py_None) return PyBool_FromLong(cmp == Py_NE);
  return guarded([&] {
    if ((cmp == Py_EQ || cmp == Py_NE) && is_tensor(self)) {
      Shape out;
      if (is_tensor(other) && tensor_ref(self)->shape != tensor_ref(other)->shape &&
          !broadcast_shapes(tensor_ref(self)->shape, tensor_ref(other)->shape, out))
        return scalar(cmp == Py_NE, DType::Bool);
    }
    return binary(*ops[cmp], self, other);
  });
}

Py_hash_t tensor_hash(PyObject* self) { return (Py_hash_t)(uintptr_t)self; }  // identity, as TF's

// Hot attributes as C getters (dtype, shape, ... read them at every access).
template <PyObject* (*F)(const TensorImpl&)>
PyObject* getter(PyObject* self, void*) {
  return guarded([&] { return F(*live(self)); });
}
PyObject* shape_of(const TensorImpl& t) {
  PyObject* r = PyTuple_New(t.ndim());
  for (int i = 0; r && i < t.ndim(); ++i) PyTuple_SET_ITEM(r, i, PyLong_FromLongLong(t.shape[i]));
  return r;
}
PyObject* dtype_of(const TensorImpl& t) { return PyLong_FromLong((long)t.dtype); }
PyObject* ndim_of(const TensorImpl& t) { return PyLong_FromLong(t.ndim()); }
PyObject* id_of(const TensorImpl& t) { return PyLong_FromLongLong((long long)t.id); }
PyObject* size_of(const TensorImpl& t) { return PyLong_FromLongLong(t.size); }
PyObject* is_variable_of(const TensorImpl& t) { return PyBool_FromLong(t.is_variable); }
PyObject* trainable_of(const TensorImpl& t) { return PyBool_FromLong(t.trainable); }
int set_trainable(PyObject* self, PyObject* v, void*) {
  const int b = v ? PyObject_IsTrue(v) : -1;
  if (b < 0 || !is_tensor(self)) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Variable.trainable: cannot delete it, or __init__ has not run");
    return -1;
  }
  tensor_ref(self)->trainable = b;
  return 0;
}

PyGetSetDef g_tensor_getset[] = {
    {"_shape", getter<shape_of>, nullptr, "The dimensions, a tuple of ints.", nullptr},
    {"_dtype", getter<dtype_of>, nullptr, "The dtype code.", nullptr},
    {"ndim", getter<ndim_of>, nullptr, "The rank.", nullptr},
    {"_id", getter<id_of>, nullptr, "The tensor's id, unique in the process.", nullptr},
    {"_size", getter<size_of>, nullptr, "The number of elements.", nullptr},
    {"_is_variable", getter<is_variable_of>, nullptr, nullptr, nullptr},
    {nullptr},
};
PyGetSetDef g_variable_getset[] = {
    {"trainable", getter<trainable_of>, set_trainable, "Whether tapes watch it automatically.", nullptr},
    {nullptr},
};
PyMemberDef g_tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weakrefs), READONLY, nullptr},
    {nullptr},
};
PyMemberDef g_variable_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(VariableObject, dict), READONLY, nullptr},
    {nullptr},
};

void tensor_dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  auto* o = reinterpret_cast<TensorObject*>(self);
  if (PyType_IS_GC(type)) PyObject_GC_UnTrack(self);
  // Before any Python code runs (weakref callbacks, the destructors of what __dict__ holds), so that
  // wrap_tensor cannot hand out this dying object again (Note [Tensor objects]).
  if (o->t && o->t->wrapper.obj == self) o->t->wrapper.obj = nullptr;
  if (o->weakrefs) PyObject_ClearWeakRefs(self);
  if (type != g_tensor_type && PyObject_TypeCheck(self, g_variable_type)) Py_CLEAR(reinterpret_cast<VariableObject*>(self)->dict);
  o->t.~Tensor();  // (a TensorImpl's destructor runs no Python code)
  type->tp_free(self);
  Py_DECREF(type);
}

// A Variable object is made empty, then __init__(value, dtype=-1, trainable=True) gives it its tensor.
PyObject* variable_new(PyTypeObject* type, PyObject*, PyObject*) {
  PyObject* self = type->tp_alloc(type, 0);
  if (self) new (&reinterpret_cast<TensorObject*>(self)->t) Tensor();
  return self;
}
int variable_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static const char* names[] = {"value", "dtype", "trainable", nullptr};
  PyObject* value;
  int dtype = -1, trainable = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|ip:Variable", const_cast<char**>(names), &value, &dtype, &trainable))
    return -1;
  try {
    Tensor v = to_tensor_dtype(value, dtype);
    Tensor var = make_variable(dtype >= 0 && (int)v->dtype != dtype ? cast(v, (DType)dtype) : v, trainable);
    Tensor& held = reinterpret_cast<TensorObject*>(self)->t;
    if (held && held->wrapper.obj == self) held->wrapper.obj = nullptr;
    held = std::move(var);
    held->wrapper.obj = self;
    return 0;
  } catch (...) {
    py::detail::try_translate_exceptions();
    return -1;
  }
}
int variable_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(reinterpret_cast<VariableObject*>(self)->dict);
  return 0;
}
int variable_clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<VariableObject*>(self)->dict);
  return 0;
}

PyType_Slot g_tensor_slots[] = {
    {Py_tp_dealloc, (void*)tensor_dealloc}, {Py_tp_hash, (void*)tensor_hash},
    {Py_tp_richcompare, (void*)richcompare}, {Py_tp_getset, g_tensor_getset}, {Py_tp_members, g_tensor_members},
    {Py_nb_add, (void*)nb_binary<kAdd>}, {Py_nb_subtract, (void*)nb_binary<kSub>},
    {Py_nb_multiply, (void*)nb_binary<kMul>}, {Py_nb_floor_divide, (void*)nb_binary<kFloorDiv>},
    {Py_nb_remainder, (void*)nb_binary<kMod>}, {Py_nb_matrix_multiply, (void*)nb_binary<kMatMul>},
    {Py_nb_and, (void*)nb_binary<kAnd>}, {Py_nb_or, (void*)nb_binary<kOr>},
    {Py_nb_true_divide, (void*)nb_true_divide}, {Py_nb_power, (void*)nb_power},
    {Py_nb_negative, (void*)nb_unary<kNeg>}, {Py_nb_absolute, (void*)nb_unary<kAbs>},
    {Py_nb_invert, (void*)nb_unary<kInvert>}, {Py_tp_doc, (void*)"An immutable n-dimensional array."},
    {0, nullptr},
};
PyType_Slot g_variable_slots[] = {
    {Py_tp_new, (void*)variable_new}, {Py_tp_init, (void*)variable_init},
    {Py_tp_traverse, (void*)variable_traverse}, {Py_tp_clear, (void*)variable_clear},
    {Py_tp_getset, g_variable_getset}, {Py_tp_members, g_variable_members},
    {Py_tp_doc, (void*)"Variable(value, dtype=-1, trainable=True)\n--\n\n"}, {0, nullptr},
};

py::object item(const Tensor& s) {
  if (s->size != 1)
    throw InvalidArgument(cat("only a tensor with one element can be converted to a Python scalar, got ", meta_str(s)));
  double v = scalar_value(s);
  if (s->dtype == DType::Bool) return py::bool_(v != 0);
  if (s->dtype == DType::UInt64) return py::int_(*s->data_as<uint64_t>());
  if (any_integer(s->dtype)) return py::int_(s->dtype == DType::Int64 ? *s->data_as<int64_t>() : (int64_t)v);
  return py::float_(v);
}


py::handle make_type(const char* name, size_t size, unsigned flags, PyType_Slot* slots, PyTypeObject* base) {
  PyType_Spec spec = {name, (int)size, 0, flags, slots};
  PyObject* t = PyType_FromSpecWithBases(&spec, base ? py::make_tuple(py::handle((PyObject*)base)).ptr() : nullptr);
  if (!t) throw py::error_already_set();
  return t;  // (owned by the module, which is never unloaded)
}

}  // namespace

py::object wrap_tensor(Tensor t) {
  if (!t) return py::none();
  // (an object whose count is 0 is being freed: a Python subclass's dealloc runs __del__ of its
  // __slots__ before tensor_dealloc clears wrapper.obj; the tensor gets a new object)
  if (t->wrapper.obj && Py_REFCNT(static_cast<PyObject*>(t->wrapper.obj)) > 0)
    return py::reinterpret_borrow<py::object>(static_cast<PyObject*>(t->wrapper.obj));
  PyTypeObject* type = t->is_variable ? g_variable_type : g_tensor_type;
  auto* o = reinterpret_cast<TensorObject*>(type->tp_alloc(type, 0));
  if (!o) throw py::error_already_set();
  new (&o->t) Tensor(std::move(t));
  o->t->wrapper.obj = o;
  return py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(o));
}

void bind_tensor(py::module_& m) {
  py::handle t = make_type("tapegrad._core.Tensor", sizeof(TensorObject), Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                           g_tensor_slots, nullptr);
  g_tensor_type = reinterpret_cast<PyTypeObject*>(t.ptr());
  g_tensor_type->tp_new = nullptr;  // tensors come from ops: Tensor() raises TypeError
  m.attr("Tensor") = t;
  def_method(t, "numpy", [](const Tensor& s) { return to_numpy(s, s->is_variable); },
      "The value as a NumPy array (a read-only view of a Tensor; a copy for a Variable).");
  def_method(t, "__array__", [](const Tensor& s, py::object dtype, py::object copy) {
        py::array a = to_numpy(s, s->is_variable || (!copy.is_none() && copy.cast<bool>()));
        return dtype.is_none() ? a : py::array(a.attr("astype")(dtype));
      }, py::arg("dtype") = py::none(), py::arg("copy") = py::none());
  def_method(t, "_item", &item);
  def_method(t, "__len__", [](const Tensor& s) {
        if (s->shape.empty()) throw py::type_error("len() of a 0-d tensor");
        if (graph::tracing() && (graph::varying_dims(s) & 1))  // (its traced length would be kept)
          throw py::type_error("len is not well defined for a tensor whose length changes from call to call");
        return s->shape[0];
      });

  py::handle v = make_type("tapegrad._core.Variable", sizeof(VariableObject),
                           Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, g_variable_slots, g_tensor_type);
  g_variable_type = reinterpret_cast<PyTypeObject*>(v.ptr());
  m.attr("Variable") = v;
  auto assign_by = [&](const char* name, AssignMode mode) {
    def_method(v, name, [mode](const Tensor& var, py::handle x) { assign(var, to_tensor(x, (int)var->dtype), mode); });
  };
  assign_by("_assign", AssignMode::kSet);
  assign_by("_assign_add", AssignMode::kAdd);
  assign_by("_assign_sub", AssignMode::kSub);
  def_method(v, "read_value", [](const Tensor& var) { return copy(var); });
}

}  // namespace tg
