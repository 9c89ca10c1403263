// half.cpp -- float16 conversions. float32 goes through the F16C instructions at the x86-64-v3 kernel
// level and above (Note [ISA dispatch]: TAPEGRAD_ISA=baseline tests the other path; IEEE rounding, subnormals included: the rounding mode is given, and a float32 subnormal input,
// which DAZ would read as 0, rounds to a float16 zero either way); otherwise, and for float64 (one
// rounding, not two), on the bits with integer arithmetic. NumPy's own float32 -> float16
// conversion takes a slow path for results that are float16 subnormals (25x slower here on
// gradient-sized values), which is why these exist.
#include "kernels/half.h"
#include <immintrin.h>
#include <cstring>
#include "kernels/elementwise.h"

namespace tg {

namespace {

// A double (a float widens to it exactly) rounded once to the nearest float16, ties to even.
uint16_t half_of(double d) {
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

float float_of(uint16_t h) {
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

bool use_f16c() { return active_isa() >= 1; }  // x86-64-v3 has F16C

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

}  // namespace

void halves_from_floats(const float* x, uint16_t* out, int64_t n) {
  for (int64_t i = use_f16c() ? halves_f16c(x, out, n) : 0; i < n; ++i) out[i] = half_of(x[i]);
}
void halves_from_doubles(const double* x, uint16_t* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = half_of(x[i]);
}
void floats_from_halves(const uint16_t* h, float* out, int64_t n) {
  for (int64_t i = use_f16c() ? floats_f16c(h, out, n) : 0; i < n; ++i) out[i] = float_of(h[i]);
}
void doubles_from_halves(const uint16_t* h, double* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_of(h[i]);
}

}  // namespace tg
