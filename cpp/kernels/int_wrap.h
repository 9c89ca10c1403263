// int_wrap.h -- integer arithmetic that wraps (two's complement, modulo 2^bits, as TF) instead of
// overflowing into undefined behaviour; floats are untouched. Done in an unsigned type at least as
// wide as unsigned int, since narrower operands promote to (signed) int, where uint16 * uint16 can
// overflow.
#pragma once
#include <type_traits>

namespace tg {

template <class T> using WrapType =
    std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, std::make_unsigned_t<T>>;
template <class T> constexpr bool kWraps = std::is_integral_v<T> && !std::is_same_v<T, bool>;

template <class T> inline T wrap_add(T x, T y) {
  if constexpr (kWraps<T>) return (T)((WrapType<T>)(std::make_unsigned_t<T>)x + (WrapType<T>)(std::make_unsigned_t<T>)y);
  else return x + y;
}
template <class T> inline T wrap_sub(T x, T y) {
  if constexpr (kWraps<T>) return (T)((WrapType<T>)(std::make_unsigned_t<T>)x - (WrapType<T>)(std::make_unsigned_t<T>)y);
  else return x - y;
}
template <class T> inline T wrap_mul(T x, T y) {
  if constexpr (kWraps<T>) return (T)((WrapType<T>)(std::make_unsigned_t<T>)x * (WrapType<T>)(std::make_unsigned_t<T>)y);
  else return x * y;
}
template <class T> inline T wrap_neg(T x) {
  if constexpr (kWraps<T>) return (T)(0u - (WrapType<T>)(std::make_unsigned_t<T>)x);
  else return -x;
}

}  // namespace tg
