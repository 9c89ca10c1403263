// tensor.cpp -- storage allocation and basic tensor constructors.
#include "core/tensor.h"
#include "core/half_bits.h"
#include <algorithm>
#include <cstdlib>
#include <new>
#include "core/allocator.h"
#include "core/error.h"

namespace tg {

Storage::Storage(size_t n) : nbytes(n) {
  if (n <= sizeof(small) && !kExactBlocks) {  // see Note [Sanitizer build] in allocator.h
    data = small;
    return;
  }
  data = allocate_block(n, size_class);
}

Storage::~Storage() {
  if (data != small) release_block(data, size_class);
}

// The message of a failed allocation, as TF's: "OOM when allocating tensor with shape[2,3] and type float".
static std::string oom_message(const Shape& shape, DType dtype, const std::string& bytes) {
  std::string dims;
  for (size_t i = 0; i < shape.size(); ++i) dims += (i ? "," : "") + std::to_string(shape[i]);
  const char* type = dtype == DType::Float32 ? "float" : dtype == DType::Float64 ? "double" : dtype_name(dtype);
  return cat("OOM when allocating tensor with shape[", dims, "] and type ", type, " (", bytes, " bytes)");
}

static std::shared_ptr<Storage> allocate_storage(const Shape& shape, DType dtype) {
  const int64_t n = num_elements(shape), item = dtype_size(dtype);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, item, &bytes))
    throw ResourceExhausted(oom_message(shape, dtype, cat(std::to_string(n), " * ", item)));
  try {
    return std::allocate_shared<Storage>(ObjectAllocator<Storage>(), (size_t)bytes);
  } catch (const std::bad_alloc&) {
    throw ResourceExhausted(oom_message(shape, dtype, std::to_string(bytes)));
  }
}

static std::atomic<int64_t> g_next_id{1};
int64_t next_tensor_id() { return g_next_id.fetch_add(1, std::memory_order_relaxed); }
TensorImpl::TensorImpl() : id(next_tensor_id()) {}

const char* dtype_name(DType d) {
  switch (d) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Bool: return "bool";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::UInt16: return "uint16";
    case DType::UInt32: return "uint32";
    case DType::UInt64: return "uint64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
  }
  return "?";
}

void refuse_dtype(DType d) { throw InvalidArgument(cat("no kernel for dtype ", dtype_name(d))); }

int64_t num_elements(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) {
    if (d < 0) throw InvalidArgument(cat("negative dimension in shape ", shape_str(s)));
    // Refuse shapes whose element count overflows int64 (as TF); empty() refuses byte counts.
    if (__builtin_mul_overflow(n, d, &n))
      throw InvalidArgument(cat("shape ", shape_str(s), " has too many elements (more than 2**63 - 1)"));
  }
  return n;
}

std::string shape_str(const Shape& s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

bool broadcast_shapes(const Shape& a, const Shape& b, Shape& out) {
  size_t n = std::max(a.size(), b.size());
  out.assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

int normalize_axis(int64_t axis, int ndim, const char* op) {
  if (axis < -ndim || axis >= std::max(ndim, 1))
    throw InvalidArgument(cat(op, ": axis ", axis, " is out of range for a tensor of rank ", ndim));
  return (int)(axis < 0 ? axis + ndim : axis);
}

Tensor empty(const Shape& shape, DType dtype) {
  for (int64_t d : shape)
    if (d < 0) throw InvalidArgument(cat("negative dimension in shape ", shape_str(shape)));
  auto t = std::allocate_shared<TensorImpl>(ObjectAllocator<TensorImpl>());
  t->shape = shape;
  t->size = num_elements(shape);
  t->dtype = dtype;
  t->storage = allocate_storage(shape, dtype);
  return t;
}

Tensor zeros(const Shape& shape, DType dtype) {
  Tensor t = empty(shape, dtype);
  std::memset(t->data(), 0, t->nbytes());
  return t;
}

Tensor full(const Shape& shape, DType dtype, double value) {
  Tensor t = empty(shape, dtype);
  if (is_half(dtype)) {
    uint16_t* p = t->data_as<uint16_t>();
    const uint16_t x = dtype == DType::Float16 ? half_bits_of(value) : bf16_bits_of(value);
    for (int64_t i = 0; i < t->size; ++i) p[i] = x;
    return t;
  }
  dispatch_real(dtype, [&](auto v) {
    using T = decltype(v);
    T* p = t->data_as<T>();
    const T x = value_in<T>(value);
    for (int64_t i = 0; i < t->size; ++i) p[i] = x;
    return 0;
  });
  return t;
}

Tensor scalar(double value, DType dtype) { return full({}, dtype, value); }

Tensor view(const Tensor& t, const Shape& shape) {
  auto v = std::allocate_shared<TensorImpl>(ObjectAllocator<TensorImpl>());
  v->storage = t->storage;
  v->offset = t->offset;
  v->shape = shape;
  v->size = num_elements(shape);
  v->dtype = t->dtype;
  return v;
}

Tensor copy(const Tensor& t) {
  Tensor c = empty(t->shape, t->dtype);
  std::memcpy(c->data(), t->data(), t->nbytes());
  return c;
}

double scalar_value(const Tensor& t, int64_t i) {
  if (t->dtype == DType::Float16) return float_of_half_bits(t->data_as<uint16_t>()[i]);
  if (t->dtype == DType::BFloat16) return float_of_bf16_bits(t->data_as<uint16_t>()[i]);
  return dispatch_real(t->dtype, [&](auto v) { return (double)t->data_as<decltype(v)>()[i]; });
}

std::string meta_str(const Tensor& t) { return std::string(dtype_name(t->dtype)) + shape_str(t->shape); }

}  // namespace tg
