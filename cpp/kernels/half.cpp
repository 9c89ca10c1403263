// half.cpp -- float16 and bfloat16 conversions. bfloat16 is integer arithmetic on a float's bits (the
// loops vectorize as they are). For float16, float32 goes through the F16C instructions at the x86-64-v3 kernel
// level and above (Note [ISA dispatch]: TAPEGRAD_ISA=baseline tests the other path; IEEE rounding, subnormals included: the rounding mode is given, and a float32 subnormal input,
// which DAZ would read as 0, rounds to a float16 zero either way); otherwise, and for float64 (one
// rounding, not two), on the bits with integer arithmetic. NumPy's own float32 -> float16
// conversion takes a slow path for results that are float16 subnormals (25x slower here on
// gradient-sized values), which is why these exist.
#include "kernels/half.h"
#include "core/half_bits.h"
#include <immintrin.h>
#include <cstring>
#include "kernels/elementwise.h"

namespace tg {

namespace {

bool use_f16c() { return active_isa() >= 1; }  // x86-64-v3 has F16C and AVX2

__attribute__((target("avx,f16c"))) int64_t halves_f16c(const float* x, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128((__m128i*)(out + i), _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}

__attribute__((target("avx,f16c"))) int64_t floats_f16c(const uint16_t* h, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i*)(h + i))));
  return i;
}

// bfloat16 from float with AVX2's integer lanes: the same rounding as bf16_bits_of (nearest even on the low
// 16 bits, a NaN made quiet), 16 values a round. (AVX-512 BF16's conversion flushes subnormals, which
// ml_dtypes and TF keep, so it is not used.)
__attribute__((target("avx2"))) inline __m256i bf16_lanes(__m256i v) {  // 8 floats' bits -> 8 bfloat16 (low halves)
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i up = _mm256_add_epi32(v, _mm256_add_epi32(_mm256_set1_epi32(0x7fff),
                                                           _mm256_and_si256(_mm256_srli_epi32(v, 16), one)));
  const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(v, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
  return _mm256_srli_epi32(_mm256_blendv_epi8(up, _mm256_or_si256(v, _mm256_set1_epi32(0x400000)), nan), 16);
}

__attribute__((target("avx2"))) int64_t bf16s_avx2(const float* x, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a = bf16_lanes(_mm256_loadu_si256((const __m256i*)(x + i)));
    const __m256i b = bf16_lanes(_mm256_loadu_si256((const __m256i*)(x + i + 8)));
    // packus works within 128-bit lanes: [a0..3 b0..3 | a4..7 b4..7] -> reorder the 64-bit quarters
    _mm256_storeu_si256((__m256i*)(out + i), _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8));
  }
  return i;
}

__attribute__((target("avx2"))) int64_t floats_bf16_avx2(const uint16_t* h, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_si256((__m256i*)(out + i),
                        _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)(h + i))), 16));
  return i;
}

}  // namespace

void halves_from_floats(const float* x, uint16_t* out, int64_t n) {
  for (int64_t i = use_f16c() ? halves_f16c(x, out, n) : 0; i < n; ++i) out[i] = half_bits_of(x[i]);
}
void halves_from_doubles(const double* x, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = half_bits_of(x[i]);
}
void floats_from_halves(const uint16_t* h, float* out, int64_t n) {
  for (int64_t i = use_f16c() ? floats_f16c(h, out, n) : 0; i < n; ++i) out[i] = float_of_half_bits(h[i]);
}
void doubles_from_halves(const uint16_t* h, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_of_half_bits(h[i]);
}

void bf16s_from_floats(const float* x, uint16_t* out, int64_t n) {
  for (int64_t i = use_f16c() ? bf16s_avx2(x, out, n) : 0; i < n; ++i) out[i] = bf16_bits_of(x[i]);
}
void bf16s_from_doubles(const double* x, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = bf16_bits_of(x[i]);
}
void floats_from_bf16s(const uint16_t* h, float* out, int64_t n) {
  for (int64_t i = use_f16c() ? floats_bf16_avx2(h, out, n) : 0; i < n; ++i) out[i] = float_of_bf16_bits(h[i]);
}

void half_bits_from_floats(DType half, const float* x, uint16_t* out, int64_t n) {
  half == DType::BFloat16 ? bf16s_from_floats(x, out, n) : halves_from_floats(x, out, n);
}
void half_bits_from_doubles(DType half, const double* x, uint16_t* out, int64_t n) {
  half == DType::BFloat16 ? bf16s_from_doubles(x, out, n) : halves_from_doubles(x, out, n);
}
void floats_from_half_bits(DType half, const uint16_t* h, float* out, int64_t n) {
  half == DType::BFloat16 ? floats_from_bf16s(h, out, n) : floats_from_halves(h, out, n);
}
void doubles_from_half_bits(DType half, const uint16_t* h, double* out, int64_t n) {
  if (half != DType::BFloat16) return doubles_from_halves(h, out, n);
  for (int64_t i = 0; i < n; ++i) out[i] = float_of_bf16_bits(h[i]);
}

Tensor widened_half(const Tensor& h) {
  Tensor f = empty(h->shape, DType::Float32);
  floats_from_half_bits(h->dtype, h->data_as<uint16_t>(), f->data_as<float>(), h->size);
  return f;
}

Tensor rounded_half(const Tensor& f, DType half) {
  Tensor h = empty(f->shape, half);
  half_bits_from_floats(half, f->data_as<float>(), h->data_as<uint16_t>(), f->size);
  return h;
}

}  // namespace tg
