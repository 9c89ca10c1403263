// half_bits.cpp -- one value at a time between the 16-bit floats' bits and float/double (kernels/half.cpp
// converts arrays, with F16C where the CPU has it).
#include "core/half_bits.h"
#include <cstring>

namespace tg {

// A double (a float widens to it exactly) rounded once to the nearest float16, ties to even.
uint16_t half_bits_of(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  const uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
  const uint64_t mag = bits & 0x7fffffffffffffffULL;
  if (mag >= 0x7ff0000000000000ULL) return sign | (mag == 0x7ff0000000000000ULL ? 0x7c00 : 0x7e00);
  const int e = (int)(mag >> 52) - 1023;
  if (e >= 16) return sign | 0x7c00;  // beyond float16's range even before rounding
  const uint64_t mant = mag & ((1ULL << 52) - 1);
  uint64_t kept, rest;
  int shift;
  uint16_t h;
  if (e >= -14) {  // a normal float16: keep the top 10 bits of the mantissa
    shift = 42;
    kept = mant >> shift;
    rest = mant & ((1ULL << shift) - 1);
    h = (uint16_t)(((uint64_t)(e + 15) << 10) | kept);
  } else {  // a subnormal float16 (or zero): the value in units of 2^-24
    shift = 28 - e;
    if (shift >= 64) return sign;
    const uint64_t m = mant | (1ULL << 52);
    kept = m >> shift;
    rest = m & ((1ULL << shift) - 1);
    h = (uint16_t)kept;
  }
  const uint64_t halfway = 1ULL << (shift - 1);
  if (rest > halfway || (rest == halfway && (h & 1))) ++h;  // a carry moves into the exponent, up to inf
  return sign | h;
}

float float_of_half_bits(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  const uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
  uint32_t bits;
  if (e == 31) {
    bits = sign | 0x7f800000u | (m << 13);
  } else if (e != 0) {
    bits = sign | ((e + 112) << 23) | (m << 13);
  } else if (m == 0) {
    bits = sign;
  } else {  // subnormal float16: normalise (every float16 is a normal float)
    int shift = 0;
    uint32_t mm = m;
    while (!(mm & 0x400)) mm <<= 1, ++shift;
    bits = sign | ((uint32_t)(113 - shift) << 23) | ((mm & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// bfloat16 keeps a float's sign, exponent and top 7 mantissa bits: the low 16 bits are rounded away,
// ties to even; a carry moves into the exponent (up to infinity), which is the right rounding there too.
uint16_t bf16_bits_of(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40);  // NaN: quiet, same sign
  return (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
}

// From a double through float, two roundings, as TF's casts and constants convert (1 + 2^-8 + 2^-30 is
// 1.0, where one rounding would give 1 + 2^-7).
uint16_t bf16_bits_of(double d) { return bf16_bits_of((float)d); }

}  // namespace tg
