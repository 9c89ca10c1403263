// half_bits.h -- the 16-bit floats held as their bits, converted one value at a time: IEEE binary16
// (float16) and bfloat16 (float32's top half). Round to nearest even, subnormals kept, overflow to
// infinity, NaN stays NaN (a quiet NaN of the same sign).
#pragma once
#include <cstdint>

namespace tg {

uint16_t half_bits_of(double d);       // a float widens to a double exactly: one rounding
float float_of_half_bits(uint16_t h);  // exact: every float16 is a float

uint16_t bf16_bits_of(float f);        // one rounding from a float
uint16_t bf16_bits_of(double d);       // through float: two roundings, as TF
inline float float_of_bf16_bits(uint16_t b) {  // exact: the bits are a float's top half
  const uint32_t bits = (uint32_t)b << 16;
  float f;
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace tg
