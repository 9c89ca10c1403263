// dtype.h -- the element types, their sizes and names (Note [Element types]).
#pragma once
#include <cstdint>
#include <cstddef>
#include <type_traits>

namespace tg {

// Note [Element types]: codes 0-4 are the five types every op has kernels for; 5 is Python's string
// dtype (tapegrad/_tensor/string_tensor.py, never a C++ tensor); 6-12 are TF's narrow and unsigned
// integers and float16 (held as its IEEE binary16 bits); An op takes the types its row lists
// (OpDef::dtypes, checked by apply() before the shape rule runs); a row lists none of 6-13 unless its
// kernels were written for them, so a new type reaches no kernel that would read it as another. 13 is
// bfloat16 (float32's top 16 bits); the two 16-bit floats are the half types, computed through float32.
enum class DType : uint8_t {
  Float32 = 0, Float64 = 1, Int32 = 2, Int64 = 3, Bool = 4,
  UInt8 = 6, Int8 = 7, Int16 = 8, UInt16 = 9, UInt32 = 10, UInt64 = 11, Float16 = 12, BFloat16 = 13,
};
constexpr int kNumDTypes = 14;  // codes 0..13 (5 unused)

using DTypeMask = uint32_t;  // bit (1 << code) per element type
constexpr DTypeMask dtype_bit(DType d) { return DTypeMask{1} << (int)d; }
constexpr DTypeMask kFloatTypes = dtype_bit(DType::Float32) | dtype_bit(DType::Float64);
constexpr DTypeMask kClassicTypes = kFloatTypes | dtype_bit(DType::Int32) | dtype_bit(DType::Int64) |
                                    dtype_bit(DType::Bool);
constexpr DTypeMask kNarrowInts = dtype_bit(DType::UInt8) | dtype_bit(DType::Int8) | dtype_bit(DType::Int16) |
                                  dtype_bit(DType::UInt16) | dtype_bit(DType::UInt32) | dtype_bit(DType::UInt64);
constexpr DTypeMask kIntTypes = kNarrowInts | dtype_bit(DType::Int32) | dtype_bit(DType::Int64);
constexpr DTypeMask kHalfTypes = dtype_bit(DType::Float16) | dtype_bit(DType::BFloat16);
constexpr DTypeMask kAllTypes = kClassicTypes | kNarrowInts | kHalfTypes;

inline size_t dtype_size(DType d) {
  switch (d) {
    case DType::Bool: case DType::UInt8: case DType::Int8: return 1;
    case DType::Int16: case DType::UInt16: case DType::Float16: case DType::BFloat16: return 2;
    case DType::Float32: case DType::Int32: case DType::UInt32: return 4;
    case DType::Float64: case DType::Int64: case DType::UInt64: return 8;
  }
  return 0;
}
inline bool is_valid_dtype(int code) { return code >= 0 && code < kNumDTypes && code != 5; }
// is_floating / is_integer: the classic float32/float64 and int32/int64, which the code written for
// them reads as float/double and int32_t/int64_t; any_floating / any_integer include the others.
inline bool is_floating(DType d) { return d == DType::Float32 || d == DType::Float64; }
inline bool is_integer(DType d) { return d == DType::Int32 || d == DType::Int64; }
inline bool is_half(DType d) { return d == DType::Float16 || d == DType::BFloat16; }
inline bool any_floating(DType d) { return is_floating(d) || is_half(d); }
inline bool any_integer(DType d) { return is_integer(d) || (dtype_bit(d) & kNarrowInts) != 0; }
const char* dtype_name(DType d);  // "float32", ...

// A double as element type T: an integer type takes the value's integer part wrapped to its width
// (300.0 as uint8 is 44; NaN and values beyond 64 bits are 0) instead of C++'s undefined behaviour.
template <class T> T value_in(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (v > -9.2e18 && v < 9.2e18) return (T)(int64_t)v;
    return v >= 0 && v < 1.8e19 ? (T)(uint64_t)v : T(0);
  } else {
    return static_cast<T>(v);
  }
}

// Calls f with a value of the C++ type of d (used as decltype(v)), for the five classic types; any
// other type is refused (InvalidArgument), never read as one of them.
[[noreturn]] void refuse_dtype(DType d);
template <class F> auto dispatch_dtype(DType d, F&& f) {
  switch (d) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Int32: return f(int32_t{});
    case DType::Int64: return f(int64_t{});
    case DType::Bool: return f(bool{});
    default: refuse_dtype(d);
  }
}
// As dispatch_dtype, also for the narrow and unsigned integers (the half types are refused: they have no
// C++ arithmetic type; code reading them converts through kernels/half.h).
template <class F> auto dispatch_real(DType d, F&& f) {
  switch (d) {
    case DType::UInt8: return f(uint8_t{});
    case DType::Int8: return f(int8_t{});
    case DType::Int16: return f(int16_t{});
    case DType::UInt16: return f(uint16_t{});
    case DType::UInt32: return f(uint32_t{});
    case DType::UInt64: return f(uint64_t{});
    default: return dispatch_dtype(d, static_cast<F&&>(f));
  }
}

}  // namespace tg
