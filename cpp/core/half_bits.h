// half_bits.h -- IEEE binary16 (float16) values held as their 16 bits, converted one at a time: round to
// nearest even, subnormals kept, overflow to infinity, NaN stays NaN.
#pragma once
#include <cstdint>

namespace tg {

uint16_t half_bits_of(double d);       // a float widens to a double exactly: one rounding
float float_of_half_bits(uint16_t h);  // exact: every float16 is a float

}  // namespace tg
