// bind.cpp -- binds Python arguments to a TF argument list and converts them (Note [Op signatures]).
#include "bindings/bind.h"
#include <cstring>
#include "core/error.h"
#include "graph/trace.h"

namespace tg {

PyObject* g_list_packer = nullptr;  // a strong reference (bind.h)

[[noreturn]] void arg_error(bool type_error, const Signature& s, const ArgSpec& a, const std::string& what) {
  std::string msg = cat(s.fn, "(): argument '", a.name, "' ", what);
  if (type_error) throw py::type_error(msg);
  throw InvalidArgument(msg);
}

namespace {

std::string describe(py::handle v) {
  std::string r = py::repr(v);
  if (r.size() > 60) r = r.substr(0, 57) + "...";
  return cat(r, " (", Py_TYPE(v.ptr())->tp_name, ")");
}

// A tensor a trace computed from the function's inputs has no value to read while tracing: an
// attribute read from it would keep the first call's value for every later call.
const Tensor& readable(const Signature& s, const ArgSpec& a, const Tensor& t) {
  if (graph::tracing() && graph::is_traced_value(t))
    throw py::type_error(cat(s.fn, "(): argument '", a.name, "' is a tensor computed inside the tf.function (",
                             meta_str(t), "); its value fixes the result's structure while tracing, so it must be a "
                             "Python value or a constant there"));
  return t;
}

// One int from a Python int, a NumPy integer or an integer tensor of one element.
int64_t int_of(const Signature& s, const ArgSpec& a, py::handle v) {
  if (is_tensor(v)) {
    const Tensor& t = readable(s, a, tensor_ref(v));
    if (!is_integer(t->dtype) || t->size != 1)
      arg_error(false, s, a, cat("must be an integer, got a tensor of ", meta_str(t)));
    return t->dtype == DType::Int64 ? *t->data_as<int64_t>() : (int64_t)*t->data_as<int32_t>();
  }
  if (PyFloat_Check(v.ptr()) || !PyIndex_Check(v.ptr()))
    arg_error(!PyFloat_Check(v.ptr()), s, a, cat("must be an integer, got ", describe(v)));
  int overflow = 0;
  py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(v.ptr()));
  if (!i) throw py::error_already_set();
  long long r = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
  if (overflow) arg_error(false, s, a, cat("is out of range for int64: ", describe(v)));
  return r;
}

// Ints from an int, a list/tuple/array of ints or an integer tensor (TF passes axes and shapes as tensors).
std::vector<int64_t> ints_of(const Signature& s, const ArgSpec& a, py::handle v) {
  if (is_tensor(v)) {
    const Tensor& t = readable(s, a, tensor_ref(v));
    if (!is_integer(t->dtype) || t->ndim() > 1)
      arg_error(false, s, a, cat("must be an int or a list of ints, got a tensor of ", meta_str(t)));
    std::vector<int64_t> r(t->size);
    for (int64_t i = 0; i < t->size; ++i)
      r[i] = t->dtype == DType::Int64 ? t->data_as<int64_t>()[i] : t->data_as<int32_t>()[i];
    return r;
  }
  const bool array = py::isinstance<py::array>(v);
  if (array && py::reinterpret_borrow<py::array>(v).ndim() > 1)
    arg_error(false, s, a, cat("must be an int or a list of ints, got an array of rank ",
                               py::reinterpret_borrow<py::array>(v).ndim()));
  if (PyIndex_Check(v.ptr()) && (!array || py::reinterpret_borrow<py::array>(v).ndim() == 0)) return {int_of(s, a, v)};
  if (!PyList_Check(v.ptr()) && !PyTuple_Check(v.ptr()) && !array)
    arg_error(false, s, a, cat("must be an int or a list of ints, got ", describe(v)));
  std::vector<int64_t> r;
  for (py::handle item : py::reinterpret_borrow<py::iterable>(v)) {
    if (item.is_none() || PyFloat_Check(item.ptr()) || py::isinstance<py::array>(item) ||
        !(PyIndex_Check(item.ptr()) || is_tensor(item)))
      arg_error(false, s, a, cat("must be an int or a list of ints, got ", describe(v)));
    r.push_back(int_of(s, a, item));
  }
  return r;
}

double float_of(const Signature& s, const ArgSpec& a, py::handle v) {
  if (is_tensor(v) || !(PyFloat_Check(v.ptr()) || PyIndex_Check(v.ptr()) || PyNumber_Check(v.ptr())) ||
      PyUnicode_Check(v.ptr()))
    arg_error(true, s, a, cat("must be a float, got ", describe(v)));
  double d = PyFloat_AsDouble(v.ptr());
  if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return d;
}

// A list holding tensors computed in the trace, packed into one tensor; null when v is none.
Tensor packed_list(py::handle v) {
  if (!g_list_packer || !graph::tracing() || !(PyList_Check(v.ptr()) || PyTuple_Check(v.ptr()))) return nullptr;
  py::object t = py::reinterpret_borrow<py::object>(g_list_packer)(v);
  return is_tensor(t) ? tensor_of(t) : nullptr;
}

Tensor input_of(const Signature& s, const ArgSpec& a, py::handle v, int hint) {
  try {
    return to_tensor(v, hint);
  } catch (const InvalidArgument& e) {
    if (Tensor t = packed_list(v)) return t;
    arg_error(false, s, a, e.what());
  } catch (const py::type_error& e) {
    if (Tensor t = packed_list(v)) return t;
    // A Python float for an integer input is TF's TypeError, but add and add_n pass it on to the
    // kernel, which refuses the mixed dtypes with InvalidArgumentError.
    arg_error(s.fn != "add" && s.fn != "add_n", s, a, e.what());
  }
}

py::object dtype_of(const Signature& s, const ArgSpec& a, py::handle v) {
  static PyObject* const as_dtype = py::object(py::module_::import("tapegrad.dtypes").attr("as_dtype")).release().ptr();
  static PyObject* const dtype_type = py::object(py::module_::import("tapegrad.dtypes").attr("DType")).release().ptr();
  if ((PyObject*)Py_TYPE(v.ptr()) == dtype_type) return py::reinterpret_borrow<py::object>(v);  // the common case
  try {
    return py::reinterpret_borrow<py::object>(as_dtype)(v);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError) && !e.matches(PyExc_ValueError)) throw;
    arg_error(true, s, a, cat("must be a dtype (float32, float64, int32, int64, bool, ...), got ", describe(v)));
  }
}

}  // namespace

int input_dtype_hint(const Signature& s, PyObject* const* slot) {
  for (size_t j = 0; j < s.args.size(); ++j) {
    const ArgKind k = s.args[j].kind;
    if (!slot[j] || (k != ArgKind::Tensor && k != ArgKind::Tensors)) continue;
    if (is_tensor(slot[j])) return (int)tensor_of(slot[j])->dtype;
    if (s.args[j].kind == ArgKind::Tensors && (PyList_Check(slot[j]) || PyTuple_Check(slot[j])))
      for (py::handle item : py::reinterpret_borrow<py::iterable>(slot[j]))
        if (is_tensor(item)) return (int)tensor_of(item)->dtype;
  }
  return -1;
}

void convert_arg(const Signature& s, const ArgSpec& a, py::handle v, int hint, Tensors& x, Attrs& attrs) {
  const char* key = a.attr.c_str();
  switch (a.kind) {
    case ArgKind::Tensor: x.push_back(input_of(s, a, v, hint)); break;
    case ArgKind::OwnTensor: x.push_back(input_of(s, a, v, -1)); break;
    case ArgKind::Any: throw InvalidArgument(cat(s.fn, "(): kind 'any' (argument '", a.name, "') is for ops written in Python"));
    case ArgKind::Tensors:
      if (!PyList_Check(v.ptr()) && !PyTuple_Check(v.ptr()))
        arg_error(true, s, a, cat("must be a list of tensors, got ", describe(v)));
      for (py::handle item : py::reinterpret_borrow<py::iterable>(v)) x.push_back(input_of(s, a, item, hint));
      break;
    case ArgKind::Int: attrs.set(key, int_of(s, a, v)); break;
    case ArgKind::Ints:
    case ArgKind::Axes: attrs.set(key, ints_of(s, a, v)); break;
    case ArgKind::Float: attrs.set(key, float_of(s, a, v)); break;
    case ArgKind::Bool: {
      int b = PyObject_IsTrue(v.ptr());
      if (b < 0) throw py::error_already_set();
      attrs.set(key, b != 0);
      break;
    }
    case ArgKind::Str:
      if (!PyUnicode_Check(v.ptr())) arg_error(true, s, a, cat("must be a string, got ", describe(v)));
      attrs.set(key, v.cast<std::string>());
      break;
    case ArgKind::DType: attrs.set(key, dtype_of(s, a, v).attr("code").cast<int64_t>()); break;
  }
}


void match_slots(const Signature& s, PyObject* const* names, PyObject* const* args, Py_ssize_t nargs,
                 PyObject* kwnames, PyObject** slot) {
  const size_t n = s.args.size();
  const size_t max_positional = std::min(n, s.positional);
  // TF's `name` follows the positional arguments (tf.expand_dims(x, 0, "e")): one more positional
  // string (or None) is it, and is ignored as a `name=` keyword is. Keyword-only lists (raw ops) take none.
  Py_ssize_t npos = nargs;  // (keyword values follow all nargs positional ones in args)
  if ((size_t)npos == max_positional + 1 && max_positional > 0 &&
      (PyUnicode_Check(args[npos - 1]) || args[npos - 1] == Py_None))
    --npos;
  if ((size_t)npos > max_positional)
    throw py::type_error(cat(s.fn, "() takes ", max_positional, " positional argument", max_positional == 1 ? "" : "s",
                             " but ", nargs, " were given"));
  for (Py_ssize_t i = 0; i < npos; ++i) slot[i] = args[i];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* kw = PyTuple_GET_ITEM(kwnames, k);
    size_t j = 0;
    while (j < n && names[j] != kw) ++j;  // keywords in the caller's code are interned
    if (j < n && !slot[j]) {
      slot[j] = args[nargs + k];
      continue;
    }
    const char* key = PyUnicode_AsUTF8(kw);
    if (!key) throw py::error_already_set();
    if (std::strcmp(key, "name") == 0) continue;  // TF's op name: nothing to name in eager mode
    j = 0;
    while (j < n && s.args[j].name != key) ++j;
    if (j == n) throw py::type_error(cat(s.fn, "() got an unexpected keyword argument '", key, "'"));
    if (slot[j]) throw py::type_error(cat(s.fn, "() got multiple values for argument '", key, "'"));
    slot[j] = args[nargs + k];
  }
}

// Binds positional and keyword arguments to the signature, then converts each (Note [Op signatures]).
void bind_signature(const Signature& s, PyObject* const* names, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames, Tensors& x, Attrs& attrs) {
  const size_t n = s.args.size();
  PyObject* slot[kMaxArgs] = {};
  match_slots(s, names, args, nargs, kwnames, slot);
  const int hint = input_dtype_hint(s, slot);
  x.reserve(n);
  for (size_t j = 0; j < n; ++j) {
    const ArgSpec& a = s.args[j];
    PyObject* v = slot[j];
    if (!v && a.required) throw py::type_error(cat(s.fn, "() missing required argument '", a.name, "'"));
    if (!v || (v == Py_None && !is_input_kind(a.kind) && !a.required)) {
      if (a.has_default) attrs.set(a.attr.c_str(), a.fallback);
      continue;
    }
    if (v == Py_None && !is_input_kind(a.kind)) arg_error(false, s, a, "must not be None");
    convert_arg(s, a, v, hint, x, attrs);
  }
}
namespace {

// A tensor object as the function receives it: the argument itself when it is a Tensor (not a
// Variable, which is read, as convert_to_tensor reads it).
py::object tensor_arg(const Signature& s, const ArgSpec& a, py::handle v, int hint) {
  if (Py_TYPE(v.ptr()) == g_tensor_type && is_tensor(v)) return py::reinterpret_borrow<py::object>(v);
  return wrap_tensor(input_of(s, a, v, hint));
}

py::object given_arg(const Signature& s, const ArgSpec& a, py::handle v, int hint) {
  switch (a.kind) {
    case ArgKind::Any: return py::reinterpret_borrow<py::object>(v);
    case ArgKind::Tensor: return tensor_arg(s, a, v, hint);
    case ArgKind::OwnTensor: return tensor_arg(s, a, v, -1);
    case ArgKind::Tensors: {
      if (!PyList_Check(v.ptr()) && !PyTuple_Check(v.ptr()))
        arg_error(true, s, a, cat("must be a list of tensors, got ", describe(v)));
      py::list r;
      for (py::handle item : py::reinterpret_borrow<py::iterable>(v)) r.append(tensor_arg(s, a, item, hint));
      return std::move(r);
    }
    case ArgKind::Int: return py::int_(int_of(s, a, v));
    case ArgKind::Ints:
    case ArgKind::Axes: {
      py::list r;
      for (int64_t i : ints_of(s, a, v)) r.append(py::int_(i));
      return std::move(r);
    }
    case ArgKind::Float: return py::float_(float_of(s, a, v));
    case ArgKind::Bool: {
      int b = PyObject_IsTrue(v.ptr());
      if (b < 0) throw py::error_already_set();
      return py::bool_(b != 0);
    }
    case ArgKind::Str:
      if (!PyUnicode_Check(v.ptr())) arg_error(true, s, a, cat("must be a string, got ", describe(v)));
      return py::reinterpret_borrow<py::object>(v);
    case ArgKind::DType: return dtype_of(s, a, v);
  }
  return py::none();
}

}  // namespace

// Not given: the default converted as a given value would be (`alpha:float=1` gives 1.0), or None.
// None for an optional argument stays None; for a required one, an input refuses it as a value and
// an attribute as "must not be None".
py::object python_arg(const Signature& s, const ArgSpec& a, PyObject* v, int hint) {
  if (!v) {
    if (a.required) throw py::type_error(cat(s.fn, "() missing required argument '", a.name, "'"));
    if (!a.has_default) return py::none();
    py::object d = std::visit([](auto& x) { return py::cast(x); }, a.fallback);
    return given_arg(s, a, d, hint);
  }
  if (v == Py_None && (!a.required || a.kind == ArgKind::Any)) return py::none();
  if (v == Py_None && !is_input_kind(a.kind)) arg_error(false, s, a, "must not be None");
  return given_arg(s, a, v, hint);
}

py::object signature_args(const Signature& s) {
  py::list r;
  for (size_t j = 0; j < s.args.size(); ++j) {
    const ArgSpec& a = s.args[j];
    py::object dflt = a.has_default ? std::visit([](auto& x) { return py::cast(x); }, a.fallback) : py::none();
    r.append(py::make_tuple(a.name, j < s.positional, a.required, dflt));
  }
  return std::move(r);
}

}  // namespace tg
