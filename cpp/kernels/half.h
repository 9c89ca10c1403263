// half.h -- IEEE binary16 (float16) conversions, for sending values as float16 (tapegrad.distribute's
// Compression.fp16). Round to nearest even, subnormals kept, overflow to infinity, NaN stays NaN.
#pragma once
#include <cstdint>

namespace tg {

void halves_from_floats(const float* x, uint16_t* out, int64_t n);
void halves_from_doubles(const double* x, uint16_t* out, int64_t n);
void floats_from_halves(const uint16_t* h, float* out, int64_t n);
void doubles_from_halves(const uint16_t* h, double* out, int64_t n);

}  // namespace tg
