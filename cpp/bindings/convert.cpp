// convert.cpp -- Python values to tensors (TF dtype rules) and tensors to NumPy arrays.
#include "bindings/convert.h"
#include <cmath>
#include <pybind11/stl.h>
#include "core/error.h"
#include "core/half_bits.h"

namespace tg {

// bfloat16 is ml_dtypes' NumPy dtype (kind 'V', 2 bytes), as TF's is: imported at its first use.
static const py::dtype& bf16_dtype() {
  static const py::dtype* dt = new py::dtype(py::dtype::from_args(py::module_::import("ml_dtypes").attr("bfloat16")));
  return *dt;
}
static bool is_bf16(const py::dtype& dt) {
  return dt.kind() == 'V' && dt.itemsize() == 2 && py::str(dt).cast<std::string>() == "bfloat16" &&
         py::detail::npy_api::get().PyArray_EquivTypes_(dt.ptr(), bf16_dtype().ptr());
}
// The kinds a tensor is made of: floats (bfloat16 included), integers, bools.
static char value_kind(const py::dtype& dt) {
  const char k = dt.kind();
  return k == 'V' && is_bf16(dt) ? 'f' : k;
}

static py::dtype np_dtype(DType d) {
  switch (d) {
    case DType::Float32: return py::dtype::of<float>();
    case DType::Float64: return py::dtype::of<double>();
    case DType::Int32: return py::dtype::of<int32_t>();
    case DType::Int64: return py::dtype::of<int64_t>();
    case DType::Bool: return py::dtype::of<bool>();
    case DType::UInt8: return py::dtype::of<uint8_t>();
    case DType::Int8: return py::dtype::of<int8_t>();
    case DType::Int16: return py::dtype::of<int16_t>();
    case DType::UInt16: return py::dtype::of<uint16_t>();
    case DType::UInt32: return py::dtype::of<uint32_t>();
    case DType::UInt64: return py::dtype::of<uint64_t>();
    case DType::Float16: return py::dtype("float16");
    case DType::BFloat16: return bf16_dtype();
  }
  throw InvalidArgument(cat("no NumPy dtype for dtype code ", (int)d));
}

// A NumPy array keeps its dtype, as TF's conversion does (uint8 images stay uint8).
static int dtype_from_numpy(const py::dtype& dt) {
  const char k = dt.kind();
  const size_t sz = dt.itemsize();
  if (k == 'V' && is_bf16(dt)) return (int)DType::BFloat16;
  if (k == 'f' && (sz == 2 || sz == 4 || sz == 8))
    return sz == 8 ? (int)DType::Float64 : sz == 4 ? (int)DType::Float32 : (int)DType::Float16;
  static const DType ints[2][4] = {{DType::Int8, DType::Int16, DType::Int32, DType::Int64},
                                   {DType::UInt8, DType::UInt16, DType::UInt32, DType::UInt64}};
  if ((k == 'i' || k == 'u') && (sz == 1 || sz == 2 || sz == 4 || sz == 8))
    return (int)ints[k == 'u'][sz == 1 ? 0 : sz == 2 ? 1 : sz == 4 ? 2 : 3];
  if (k == 'b') return (int)DType::Bool;
  throw InvalidArgument(cat("cannot convert a NumPy array of dtype ", std::string(py::str(dt)), " to a tensor"));
}

// Python floats become bfloat16 as TF converts them: through float32 (two roundings), a float32 subnormal
// flushed to a zero of its sign first (1e-40 is 0; a NumPy array is cast by NumPy instead: one rounding,
// subnormals kept, as in TF).
static uint16_t bf16_of_python_float(float f) {
  if (std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
  return bf16_bits_of(f);
}

// A Python int given for an integer dtype other than int32/int64 wraps to the type's width, as
// TF's conversion does (-1 as uint8 is 255).
static Tensor wrapped_int_scalar(unsigned long long bits, DType d) {
  Tensor t = empty({}, d);
  dispatch_real(d, [&](auto v) { *t->data_as<decltype(v)>() = (decltype(v))bits; return 0; });
  return t;
}

Tensor from_array(py::handle obj, int dtype) {
  py::array arr = py::array::ensure(obj);
  if (!arr) throw InvalidArgument("cannot convert value to a tensor");
  char kind = value_kind(arr.dtype());
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw InvalidArgument(cat("cannot convert ", std::string(py::repr(obj)), " (NumPy dtype ",
                              std::string(py::str(arr.dtype())), ") to a tensor"));
  if (dtype < 0) dtype = dtype_from_numpy(arr.dtype());
  else if (!is_valid_dtype(dtype)) throw InvalidArgument(cat("invalid dtype code ", dtype));
  if (!any_floating((DType)dtype) && kind == 'f' && arr.size() > 0) {  // [] is float64 in NumPy
    // TF refuses to silently truncate floats into integer tensors.
    throw InvalidArgument(cat("cannot convert float values to a tensor of dtype ", dtype_name((DType)dtype)));
  }
  // An array already of the tensor's dtype and C-contiguous (a training batch, say) is copied once,
  // without NumPy's astype making a second copy first.
  py::dtype want = np_dtype((DType)dtype);
  const bool as_is = (arr.flags() & py::array::c_style) &&
                     py::detail::npy_api::get().PyArray_EquivTypes_(arr.dtype().ptr(), want.ptr());
  py::array c = as_is ? arr : py::array::ensure(arr.attr("astype")(want), py::array::c_style);
  Shape shape(c.shape(), c.shape() + c.ndim());
  Tensor t = empty(shape, (DType)dtype);
  std::memcpy(t->data(), c.data(), t->nbytes());
  return t;
}

int default_dtype_of(py::handle obj) {
  if (py::isinstance<py::bool_>(obj)) return (int)DType::Bool;
  if (py::isinstance<py::int_>(obj)) return (int)DType::Int32;
  if (py::isinstance<py::float_>(obj)) return (int)DType::Float32;
  return -1;
}

Tensor to_tensor(py::handle obj, int hint) {
  if (is_tensor(obj)) return tensor_of(obj);
  if (hint >= 0 && !is_valid_dtype(hint)) throw InvalidArgument(cat("invalid dtype code ", hint));
  // Fast path for Python scalars.
  if (PyFloat_CheckExact(obj.ptr()) || PyLong_CheckExact(obj.ptr()) || PyBool_Check(obj.ptr())) {
    int d = hint >= 0 ? hint : default_dtype_of(obj);
    if (PyFloat_CheckExact(obj.ptr()) && !any_floating((DType)d))  // TF: a TypeError, 2.0 included
      throw py::type_error(cat("Cannot convert ", std::string(py::repr(obj)), " to EagerTensor of dtype ", dtype_name((DType)d)));
    if (PyLong_CheckExact(obj.ptr())) {
      if (d == (int)DType::Bool)  // TF converts no int to bool, 0 and 1 included
        throw py::type_error(cat("Cannot convert ", std::string(py::repr(obj)), " to EagerTensor of dtype bool"));
      if (dtype_bit((DType)d) & kNarrowInts) {
        unsigned long long bits = PyLong_AsUnsignedLongLongMask(obj.ptr());
        if (bits == (unsigned long long)-1 && PyErr_Occurred()) throw py::error_already_set();
        return wrapped_int_scalar(bits, (DType)d);
      }
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
      if (overflow || (d == (int)DType::Int32 && (v > INT32_MAX || v < INT32_MIN))) {
        if (hint < 0 && !overflow) return scalar((double)v, DType::Int64);
        throw InvalidArgument(cat("integer ", std::string(py::repr(obj)), " is out of range for dtype ", dtype_name((DType)d)));
      }
      if (d == (int)DType::Int64) { Tensor t = empty({}, DType::Int64); *t->data_as<int64_t>() = v; return t; }
      return scalar((double)v, (DType)d);
    }
    const double v = PyFloat_Check(obj.ptr()) ? PyFloat_AsDouble(obj.ptr()) : (double)(obj.ptr() == Py_True);
    if (d == (int)DType::BFloat16) {
      Tensor t = empty({}, DType::BFloat16);
      *t->data_as<uint16_t>() = bf16_of_python_float((float)v);
      return t;
    }
    return scalar(v, (DType)d);
  }
  if (py::isinstance<py::array>(obj)) return from_array(obj, hint);
  // A NumPy scalar (np.float64(1.0), np.int64(3)) keeps its dtype, as an array does (TF's rule).
  static PyObject* const numpy_scalar = py::object(py::module_::import("numpy").attr("generic")).release().ptr();
  if (hint < 0 && PyObject_IsInstance(obj.ptr(), numpy_scalar) == 1) return from_array(py::array::ensure(obj), -1);
  // A composite that stands for a dense tensor (tf.IndexedSlices) gives it through TF's protocol.
  static PyObject* const tf_tensor = PyUnicode_InternFromString("__tf_tensor__");
  if (PyObject_HasAttr(obj.ptr(), tf_tensor)) {
    py::object dense = obj.attr(tf_tensor)();
    if (!is_tensor(dense)) throw py::type_error(cat(Py_TYPE(obj.ptr())->tp_name, ".__tf_tensor__ returned no tensor"));
    return tensor_of(dense);
  }
  // Nested lists: NumPy infers the structure; Python floats mean float32, ints int32.
  py::array arr = py::array::ensure(obj);
  const char kind = arr ? value_kind(arr.dtype()) : 'O';
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {  // None, a string, a dict, ragged lists
    std::string r = py::repr(obj);
    throw InvalidArgument(cat("cannot convert ", r.size() > 60 ? r.substr(0, 57) + "..." : r, " (",
                              Py_TYPE(obj.ptr())->tp_name, ") to a tensor"));
  }
  int d = hint;
  if (d >= 0 && kind == 'f' && !any_floating((DType)d) && arr.size() > 0) {  // Python floats, as above
    std::string r = py::repr(obj);
    throw py::type_error(cat("Cannot convert ", r.size() > 60 ? r.substr(0, 57) + "..." : r, " to EagerTensor of dtype ",
                             dtype_name((DType)d)));
  }
  if (d < 0) {
    const char k = kind;
    d = k == 'f' && is_bf16(arr.dtype()) ? (int)DType::BFloat16 : k == 'f' ? (int)DType::Float32 : k == 'b' ? (int)DType::Bool : (k == 'i' || k == 'u') ? (int)DType::Int32 : -1;
    if (d == (int)DType::Int32) {
      // Promote to int64 only when values do not fit, as TF does.
      py::object mx = arr.attr("max")(), mn = arr.attr("min")();
      if (arr.size() && (mx.cast<long long>() > INT32_MAX || mn.cast<long long>() < INT32_MIN)) d = (int)DType::Int64;
    }
  }
  if (d == (int)DType::BFloat16 && kind == 'f' && !is_bf16(arr.dtype())) {
    py::array_t<float, py::array::c_style | py::array::forcecast> f(arr);
    Tensor t = empty(Shape(f.shape(), f.shape() + f.ndim()), DType::BFloat16);
    for (int64_t i = 0; i < t->size; ++i) t->data_as<uint16_t>()[i] = bf16_of_python_float(f.data()[i]);
    return t;
  }
  return from_array(arr, d);
}

Tensor to_tensor_dtype(py::handle obj, int dtype) {
  if (is_tensor(obj)) {
    Tensor t = tensor_of(obj);
    if (dtype >= 0 && (int)t->dtype != dtype)
      throw InvalidArgument(cat("expected a tensor of dtype ", dtype_name((DType)dtype), ", got ", meta_str(t)));
    return t;
  }
  return to_tensor(obj, dtype);
}

py::array to_numpy(const Tensor& t, bool writable_copy) {
  std::vector<py::ssize_t> shape(t->shape.begin(), t->shape.end());
  if (writable_copy) {
    py::array a(np_dtype(t->dtype), shape);
    std::memcpy(a.mutable_data(), t->data(), t->nbytes());
    return a;
  }
  // Zero-copy, read-only; the capsule keeps the storage alive.
  auto* keep = new std::shared_ptr<Storage>(t->storage);
  py::capsule base(keep, [](void* p) { delete static_cast<std::shared_ptr<Storage>*>(p); });
  py::array a(np_dtype(t->dtype), shape, {}, t->data(), base);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

Attrs to_attrs(py::handle kwargs) {
  Attrs a;
  if (!kwargs || kwargs.is_none()) return a;
  for (auto kv : py::reinterpret_borrow<py::dict>(kwargs)) {
    std::string key = py::str(kv.first);
    py::handle v = kv.second;
    if (v.is_none()) continue;
    if (PyBool_Check(v.ptr())) a.set(key.c_str(), v.cast<bool>());
    else if (PyLong_Check(v.ptr())) a.set(key.c_str(), v.cast<int64_t>());
    else if (PyFloat_Check(v.ptr())) a.set(key.c_str(), v.cast<double>());
    else if (py::isinstance<py::str>(v)) a.set(key.c_str(), v.cast<std::string>());
    else a.set(key.c_str(), v.cast<std::vector<int64_t>>());
  }
  return a;
}

}  // namespace tg
