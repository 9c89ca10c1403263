// dtype.h -- the five element types and their sizes and names.
#pragma once
#include <cstdint>
#include <cstddef>

namespace tg {

enum class DType : uint8_t { Float32 = 0, Float64 = 1, Int32 = 2, Int64 = 3, Bool = 4 };

inline size_t dtype_size(DType d) {
  switch (d) {
    case DType::Float32: case DType::Int32: return 4;
    case DType::Float64: case DType::Int64: return 8;
    case DType::Bool: return 1;
  }
  return 0;
}
inline bool is_floating(DType d) { return d == DType::Float32 || d == DType::Float64; }
inline bool is_integer(DType d) { return d == DType::Int32 || d == DType::Int64; }
const char* dtype_name(DType d);  // "float32", ...

// Calls f with a value of the C++ type of d (used as decltype(v)).
template <class F> auto dispatch_dtype(DType d, F&& f) {
  switch (d) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    default: return f(bool{});
  }
}

}  // namespace tg
