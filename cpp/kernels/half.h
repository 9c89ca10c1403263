// half.h -- IEEE binary16 (float16) conversions: float16 tensors computed through float32 (Note
// [float16 in float32] in elementwise.cpp) and values sent as float16 (tapegrad.distribute's
// Compression.fp16). Round to nearest even, subnormals kept, overflow to infinity, NaN stays NaN.
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tg {

void halves_from_floats(const float* x, uint16_t* out, int64_t n);
void halves_from_doubles(const double* x, uint16_t* out, int64_t n);
void floats_from_halves(const uint16_t* h, float* out, int64_t n);
void doubles_from_halves(const uint16_t* h, double* out, int64_t n);

Tensor widened_half(const Tensor& h);  // a float16 tensor as float32 (exact)
Tensor rounded_half(const Tensor& f);  // a float32 tensor rounded to float16

}  // namespace tg
