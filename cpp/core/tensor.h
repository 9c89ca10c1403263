// tensor.h -- TensorImpl: shared 64-byte-aligned storage, shape, dtype and a stable id.
#pragma once
#include <atomic>
#include <cstring>
#include <memory>
#include "core/dtype.h"
#include "core/shape.h"

namespace tg {

struct Storage {
  void* data = nullptr;
  size_t nbytes = 0;
  int size_class = -1;  // block cache class (see allocator.cpp), -1 for the inline buffer
  alignas(16) unsigned char small[64];  // tensors of up to 64 bytes live here: one allocation less
  explicit Storage(size_t nbytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
};

// Terminology: a Tensor is a shared handle to a TensorImpl. Storage is always contiguous
// row-major from `offset`; reshape-like ops return views sharing the storage.
// A symbolic tensor (graph tracing) has no storage.
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  size_t offset = 0;  // bytes
  Shape shape;
  int64_t size = 0;
  DType dtype = DType::Float32;
  int64_t id;
  bool is_variable = false;
  bool trainable = false;
  // The bindings' live object for this tensor, opaque here (Note [Tensor objects] in
  // bindings/convert.h); not copied with the tensor.
  struct Wrapper {
    void* obj = nullptr;
    Wrapper() = default;
    Wrapper(const Wrapper&) {}
    Wrapper& operator=(const Wrapper&) { return *this; }
  } wrapper;

  TensorImpl();
  virtual ~TensorImpl() = default;
  int ndim() const { return (int)shape.size(); }
  size_t nbytes() const { return (size_t)size * dtype_size(dtype); }
  void* data() const { return static_cast<char*>(storage->data) + offset; }
  template <class T> T* data_as() const { return static_cast<T*>(data()); }
};
using Tensor = std::shared_ptr<TensorImpl>;

int64_t next_tensor_id();
Tensor empty(const Shape& shape, DType dtype);                 // uninitialised
Tensor zeros(const Shape& shape, DType dtype);
Tensor full(const Shape& shape, DType dtype, double value);
Tensor scalar(double value, DType dtype);
Tensor view(const Tensor& t, const Shape& shape);             // same storage, new id
Tensor copy(const Tensor& t);
double scalar_value(const Tensor& t, int64_t index = 0);       // element as double
std::string meta_str(const Tensor& t);                          // "float32(2, 3)"

}  // namespace tg
