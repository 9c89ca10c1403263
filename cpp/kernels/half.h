// half.h -- conversions of the half types (float16, bfloat16): their tensors computed through float32
// (Note [float16 in float32] in elementwise.cpp) and values sent as float16 (tapegrad.distribute's
// Compression.fp16). Round to nearest even, subnormals kept, overflow to infinity, NaN stays NaN.
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tg {

void halves_from_floats(const float* x, uint16_t* out, int64_t n);
void halves_from_doubles(const double* x, uint16_t* out, int64_t n);
void floats_from_halves(const uint16_t* h, float* out, int64_t n);
void doubles_from_halves(const uint16_t* h, double* out, int64_t n);

void bf16s_from_floats(const float* x, uint16_t* out, int64_t n);
void bf16s_from_doubles(const double* x, uint16_t* out, int64_t n);
void floats_from_bf16s(const uint16_t* h, float* out, int64_t n);

// The same for either half type `half` (DType::Float16 or DType::BFloat16).
void half_bits_from_floats(DType half, const float* x, uint16_t* out, int64_t n);
void half_bits_from_doubles(DType half, const double* x, uint16_t* out, int64_t n);
void floats_from_half_bits(DType half, const uint16_t* h, float* out, int64_t n);
void doubles_from_half_bits(DType half, const uint16_t* h, double* out, int64_t n);

Tensor widened_half(const Tensor& h);  // a float16 or bfloat16 tensor as float32 (exact)
Tensor rounded_half(const Tensor& f, DType half = DType::Float16);  // a float32 tensor rounded to `half`
inline Tensor widened_if_half(const Tensor& t) { return is_half(t->dtype) ? widened_half(t) : t; }

}  // namespace tg
