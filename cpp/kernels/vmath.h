// vmath.h: branch-free, auto-vectorizable elementwise math (float and double) for tapegrad's kernels.
//
// Use inside plain loops `for (i...) out[i] = tg::vmath::f(in[i]);` compiled with
// `-O3 -fno-math-errno -fno-trapping-math` (NOT -ffast-math: it would break the rounding
// tricks and the NaN/Inf selects below). No libm call anywhere: every function is
// range reduction + polynomial (coefficients fitted here with a Remez exchange), selects
// written as ternaries on values, and exponent manipulation via bit casts + integer ops,
// so GCC if-converts and vectorizes the loop at every ISA level (SSE2, AVX2, AVX-512).
//
// Linkage: everything lives in an anonymous namespace, so each translation unit (one
// per -march level) gets its own private copy; no inline/template symbol is shared
// between the baseline and AVX-512 objects.
//
// Accuracy (max relative error vs long double, dense sweeps; see benchmarks/vmath_check.cpp):
// float about 1-2 ulp (<= 2.5e-7), double about 1-2 ulp (<= 5e-16) on the ranges below.
// Relative error of a subnormal result is measured against the smallest normal number
// (results below it keep the absolute accuracy but lose relative digits, as in libm).
//
// Domains / notes:
//   exp, expm1, sigmoid, softplus, log_sigmoid, tanh, erf: whole real line incl. +-inf/NaN.
//   exp produces subnormal results correctly (no flush), overflows to +inf.
//   log: every positive finite input incl. subnormals; log1p: every input >= -1.
//   sin, cos: accurate for |x| <= 1e6 (double) and |x| <= 6000 (float) (Cody-Waite reduction
//   by pi/2; no Payne-Hanek); +-inf/NaN give NaN. sin_run / cos_run cover every input: they
//   hand larger arguments to libm (Note [Trig range]); kernels call those.
//   Signed zeros are preserved by the odd functions (f(-0) = -0).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#define TG_VMATH_INLINE inline __attribute__((always_inline))

namespace tg {
namespace vmath {
namespace {

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

TG_VMATH_INLINE std::uint64_t to_bits(double x) { return __builtin_bit_cast(std::uint64_t, x); }
TG_VMATH_INLINE std::uint32_t to_bits(float x) { return __builtin_bit_cast(std::uint32_t, x); }
TG_VMATH_INLINE double as_f64(std::uint64_t u) { return __builtin_bit_cast(double, u); }
TG_VMATH_INLINE float as_f32(std::uint32_t u) { return __builtin_bit_cast(float, u); }

TG_VMATH_INLINE double abs_(double x) { return as_f64(to_bits(x) & 0x7fffffffffffffffull); }
TG_VMATH_INLINE float abs_(float x) { return as_f32(to_bits(x) & 0x7fffffffu); }
// |mag| with the sign of sgn
TG_VMATH_INLINE double with_sign(double mag, double sgn) {
    return as_f64(to_bits(mag) | (to_bits(sgn) & 0x8000000000000000ull));
}
TG_VMATH_INLINE float with_sign(float mag, float sgn) {
    return as_f32(to_bits(mag) | (to_bits(sgn) & 0x80000000u));
}

// Horner evaluation c[0] + x*(c[1] + x*(...)); the constant-trip loop is fully unrolled.
template <class T, int N>
TG_VMATH_INLINE T horner(T x, const T (&c)[N]) {
    T r = c[N - 1];
#pragma GCC unroll 32
    for (int i = N - 2; i >= 0; --i) r = r * x + c[i];
    return r;
}

template <class T> struct K;  // per-type constants

template <> struct K<double> {
    static constexpr double inf = std::numeric_limits<double>::infinity();
    static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    // 1.5 * 2^52: adding it rounds to an integer held in the low mantissa bits.
    static constexpr double magic = 0x1.8p52;
    static constexpr double log2e = 0x1.71547652b82fep+0;
    // ln 2 = ln2_hi + ln2_lo, ln2_hi has 32 significant bits (k * ln2_hi exact for |k| < 2^21)
    static constexpr double ln2_hi = 0x1.62e42feep-1;
    static constexpr double ln2_lo = 0x1.a39ef35793c76p-33;
};
template <> struct K<float> {
    static constexpr float inf = std::numeric_limits<float>::infinity();
    static constexpr float nan = std::numeric_limits<float>::quiet_NaN();
    static constexpr float magic = 0x1.8p23f;
    static constexpr float log2e = 0x1.715476p+0f;
    // ln2_hi has 16 significant bits (k * ln2_hi exact for |k| < 2^8)
    static constexpr float ln2_hi = 0x1.62e4p-1f;
    static constexpr float ln2_lo = 0x1.7f7d1cp-20f;
};

// ---------------------------------------------------------------------------------------
// Polynomial coefficients (Remez minimax; error figure = minimax error of the fit)
// ---------------------------------------------------------------------------------------

// (expm1(r) - r) / r^2 on |r| <= ln2/2; weight = relative error of expm1. 1.8e-17 / 1.3e-8
constexpr double kExpm1D[] = {0x1.0000000000005p-1, 0x1.5555555555539p-3, 0x1.55555555522bap-5,
                              0x1.1111111118fa3p-7, 0x1.6c16c17edaf74p-10, 0x1.a01a017516f62p-13,
                              0x1.a019a77181f69p-16, 0x1.71de8803a2c95p-19, 0x1.28a1dda54060ep-22,
                              0x1.ae6ba9d18e745p-26};
constexpr float kExpm1F[] = {0x1.fffffep-2f, 0x1.5554b0p-3f, 0x1.555674p-5f, 0x1.122772p-7f,
                             0x1.6bec08p-10f};

// Q(z), z = s^2, s = f/(2+f): log1p(f) = 2s + s^3 Q(z), |s| <= 0.1716. 1.2e-18 / 8.0e-10
constexpr double kLogD[] = {0x1.5555555555592p-1, 0x1.999999997fea9p-2, 0x1.24924941e497ap-2,
                            0x1.c71c5212f80b7p-3, 0x1.74663d0d2a51ep-3, 0x1.39a1e7dbe47fcp-3,
                            0x1.2f03b6c786f2ep-3};
constexpr float kLogF[] = {0x1.55557ap-1f, 0x1.995eccp-2f, 0x1.31e138p-2f};

// Q(z), z = s^2: log1p(t) = s + s^3 Q(z), s = 2t/(2+t), 0 <= t <= 1 (relative). 4.5e-9
constexpr float kLog1pAtanhF[] = {0x1.555502p-4f, 0x1.99d208p-7f, 0x1.1ebd1ap-9f, 0x1.1ed77ep-11f};

// (tanh(a) - a) / a^3 as a polynomial in z = a^2 on 0 <= a <= 3/4 (relative). 1.6e-9
constexpr float kTanhSmallF[] = {-0x1.55554ap-2f, 0x1.110db8p-3f, -0x1.b97d3cp-5f,
                                 0x1.5f7856p-6f,  -0x1.f5d352p-8f, 0x1.c75382p-10f};

// erf(x)/x as a polynomial in z = x^2 on |x| <= 1 (relative). 7.3e-18 / 4.0e-8
constexpr double kErfSmallD[] = {0x1.20dd750429b6dp+0,  -0x1.812746b0379bdp-2, 0x1.ce2f21a040d16p-4,
                                 -0x1.b82ce311fa93fp-6, 0x1.565bccf92b327p-8,  -0x1.c02db03dd7818p-11,
                                 0x1.f9a2baa9078adp-14, -0x1.f4ca4d6fbb9acp-17, 0x1.b97fd3de2bee1p-20,
                                 -0x1.5c07270b54a16p-23, 0x1.d71b0fcf996a6p-27, -0x1.abae4b2713034p-31};
constexpr float kErfSmallF[] = {0x1.20dd74p+0f,  -0x1.812674p-2f, 0x1.ce0942p-4f,
                                -0x1.b5a35cp-6f, 0x1.4246d2p-8f,  -0x1.273facp-11f};

// erfcx(x) = erfc(x) e^{x^2} as a polynomial in u = 1/(1+x) - c on 1 <= x <= 6 (double,
// c = 9/28) or 1 <= x <= 4 (float, c = 0.35); weight e^{-x^2} = absolute error of erfc.
// 1.5e-17 / 8.5e-10
constexpr double kErfBigD[] = {0x1.f3c36b781d652p-3,  0x1.e5e83c581b178p-1,  0x1.0862f99dd5513p-1,
                               -0x1.864d01a8b4f51p-2, -0x1.37e582d847afdp-2, 0x1.2fdf74400de01p-1,
                               -0x1.4b72d43d29a8cp-4, -0x1.af6903a64313cp-1, 0x1.2b5d0f657fe87p+0,
                               -0x1.9a1595c3af0c1p-19, -0x1.31ffacb1ca69bp+1, 0x1.fc66b0863053dp+1,
                               -0x1.4cd82fdefec79p+1};
constexpr double kErfBigCenterD = 9.0 / 28.0;
constexpr float kErfBigF[] = {0x1.1611f4p-2f,  0x1.f48644p-1f,  0x1.ede784p-2f,
                              -0x1.a5be86p-2f, -0x1.a1102cp-3f, 0x1.c280f0p-2f};
constexpr float kErfBigCenterF = 0.35f;

// sin(r) = r + r^3 S(r^2), cos(r) = 1 - r^2/2 + r^4 C(r^2) on |r| <= pi/4.
// S: 3.6e-18 / 3.8e-9 (relative), C: 5.6e-20 / 1.2e-10
constexpr double kSinD[] = {-0x1.5555555555548p-3, 0x1.111111110f7cap-7, -0x1.a01a019bfd17fp-13,
                            0x1.71de356712408p-19, -0x1.ae5e59f57f776p-26, 0x1.5d8fa318d6236p-33};
constexpr float kSinF[] = {-0x1.555546p-3f, 0x1.11073ap-7f, -0x1.994388p-13f};
constexpr double kCosD[] = {0x1.555555555554bp-5, -0x1.6c16c16c14f8ap-10, 0x1.a01a019c83911p-16,
                            -0x1.27e4f7ea37a46p-22, 0x1.1ee9d7529a397p-29, -0x1.8fa465f292ad2p-37};
constexpr float kCosF[] = {0x1.55554ap-5f, -0x1.6c0c32p-10f, 0x1.99eb4ap-16f};

// ---------------------------------------------------------------------------------------
// Internal cores
// ---------------------------------------------------------------------------------------

// Cody-Waite reduction x = k ln2 + r, |r| <= ln2/2 (+ rounding). Returns r; kd = k as a
// floating value, ki = k as an integer (taken from the mantissa of x*log2e + magic).
// Requires |x*log2e| < 2^21 (double) / 2^22 (float); callers clamp.
TG_VMATH_INLINE double reduce_ln2(double x, double &kd, std::int64_t &ki) {
    using C = K<double>;
    const double t = x * C::log2e + C::magic;
    kd = t - C::magic;
    ki = static_cast<std::int64_t>(to_bits(t) - to_bits(C::magic));
    double r = x - kd * C::ln2_hi;
    return r - kd * C::ln2_lo;
}
TG_VMATH_INLINE float reduce_ln2(float x, float &kd, std::int32_t &ki) {
    using C = K<float>;
    const float t = x * C::log2e + C::magic;
    kd = t - C::magic;
    ki = static_cast<std::int32_t>(to_bits(t) - to_bits(C::magic));
    float r = x - kd * C::ln2_hi;
    return r - kd * C::ln2_lo;
}

// expm1 on the reduced argument: r + r^2 P(r), relative accuracy near 0.
TG_VMATH_INLINE double expm1_poly(double r) { return r + (r * r) * horner(r, kExpm1D); }
TG_VMATH_INLINE float expm1_poly(float r) { return r + (r * r) * horner(r, kExpm1F); }

// 2^k for an integer k in the normal exponent range.
TG_VMATH_INLINE double pow2i(std::int64_t k) {
    return as_f64(static_cast<std::uint64_t>(k + 1023) << 52);
}
TG_VMATH_INLINE float pow2i(std::int32_t k) {
    return as_f32(static_cast<std::uint32_t>(k + 127) << 23);
}

// exp for arguments whose result is a normal number (|x| < 700 double, |x| < 85 float);
// no special-value handling (used by erf).
template <class T>
TG_VMATH_INLINE T exp_normal_range(T x) {
    T kd;
    if constexpr (sizeof(T) == 8) {
        std::int64_t ki;
        const T r = reduce_ln2(x, kd, ki);
        return (T(1) + expm1_poly(r)) * pow2i(ki);
    } else {
        std::int32_t ki;
        const T r = reduce_ln2(x, kd, ki);
        return (T(1) + expm1_poly(r)) * pow2i(ki);
    }
}

// expm1 for x already clamped to [-40, 710] (double) / [-18, 89] (float); overflows to inf.
// expm1(x) = 2^k (expm1(r) + 1) - 1, evaluated as 2 * (s*em + (s - 1/2)), s = 2^(k-1):
// s - 1/2 is exact, one rounding in the sum, the final *2 is exact (or overflows).
TG_VMATH_INLINE double expm1_clamped(double x) {
    double kd;
    std::int64_t ki;
    const double r = reduce_ln2(x, kd, ki);
    const double em = expm1_poly(r);
    const double s = pow2i(ki - 1);
    const double y = 2.0 * (s * em + (s - 0.5));
    return kd == 0.0 ? em : y;
}
TG_VMATH_INLINE float expm1_clamped(float x) {
    float kd;
    std::int32_t ki;
    const float r = reduce_ln2(x, kd, ki);
    const float em = expm1_poly(r);
    const float s = pow2i(ki - 1);
    const float y = 2.0f * (s * em + (s - 0.5f));
    return kd == 0.0f ? em : y;
}

// log1p(f) for f in [sqrt(1/2)-1, sqrt(2)-1] (plus a tiny rounding correction):
// s = f/(2+f), log1p(f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + s^2 Q(s^2)).
// The leading term f is exact, so the result is relatively accurate near 0.
TG_VMATH_INLINE double log1p_core(double f) {
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double hfsq = 0.5 * f * f;
    return f - (hfsq - s * (hfsq + z * horner(z, kLogD)));
}
TG_VMATH_INLINE float log1p_core(float f) {
    const float s = f / (2.0f + f);
    const float z = s * s;
    const float hfsq = 0.5f * f * f;
    return f - (hfsq - s * (hfsq + z * horner(z, kLogF)));
}

// Split a positive normal x into 2^k * m with m in [sqrt(1/2), sqrt(2)): adding
// (1.0 - sqrt(1/2)) in the bit domain carries into the exponent exactly when m >= sqrt(1/2)
// (fdlibm-style). Returns m; kbiased = k + 1023 (double) / k + 127 (float) as an integer.
TG_VMATH_INLINE double split_mant(double x, std::uint64_t &kbiased) {
    const std::uint64_t u = to_bits(x) + (0x3ff0000000000000ull - 0x3fe6a09e667f3bcdull);
    kbiased = u >> 52;
    return as_f64((u & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
}
TG_VMATH_INLINE float split_mant(float x, std::uint32_t &kbiased) {
    const std::uint32_t u = to_bits(x) + (0x3f800000u - 0x3f3504f3u);
    kbiased = u >> 23;
    return as_f32((u & 0x007fffffu) + 0x3f3504f3u);
}
// Small non-negative integer -> floating value without int->fp conversion instructions
// (int64 -> double has no SSE2/AVX2 instruction): OR it into the mantissa of 2^52 / 2^23.
TG_VMATH_INLINE double small_uint_to_fp(std::uint64_t k) {
    return as_f64(0x4330000000000000ull | k) - 0x1p52;
}
TG_VMATH_INLINE float small_uint_to_fp(std::uint32_t k) {
    return as_f32(0x4b000000u | k) - 0x1p23f;
}

// ---------------------------------------------------------------------------------------
// Public functions
// ---------------------------------------------------------------------------------------

// exp: Cody-Waite reduction by ln2 (k = round(x/ln2) via the 1.5*2^52 rounding constant),
// degree-11 (double) / degree-6 (float) minimax for e^r, scaling by 2^k split into two
// normal powers of two so subnormal results round once and overflow gives +inf.
// exp_nonpos: the same for x <= 0 or NaN only (one clamp less; used by sigmoid/softplus).
TG_VMATH_INLINE double exp_nonpos(double x) {
    x = x < -746.0 ? -746.0 : x;  // NaN passes the clamp
    double kd;
    std::int64_t ki;
    const double r = reduce_ln2(x, kd, ki);
    const double p = 1.0 + expm1_poly(r);
    const std::int64_t k1 = static_cast<std::int64_t>(static_cast<std::uint64_t>(ki + 2048) >> 1) - 1024;
    return (p * pow2i(k1)) * pow2i(ki - k1);
}
TG_VMATH_INLINE float exp_nonpos(float x) {
    x = x < -104.0f ? -104.0f : x;
    float kd;
    std::int32_t ki;
    const float r = reduce_ln2(x, kd, ki);
    const float p = 1.0f + expm1_poly(r);
    const std::int32_t k1 = (ki >> 1);
    return (p * pow2i(k1)) * pow2i(ki - k1);
}

TG_VMATH_INLINE double exp(double x) {
    x = x < -746.0 ? -746.0 : x;  // NaN passes both clamps
    x = x > 710.0 ? 710.0 : x;
    double kd;
    std::int64_t ki;
    const double r = reduce_ln2(x, kd, ki);  // k in [-1077, 1025]
    const double p = 1.0 + expm1_poly(r);
    const std::int64_t k1 = static_cast<std::int64_t>(static_cast<std::uint64_t>(ki + 2048) >> 1) - 1024;
    return (p * pow2i(k1)) * pow2i(ki - k1);
}
TG_VMATH_INLINE float exp(float x) {
    x = x < -104.0f ? -104.0f : x;
    x = x > 89.0f ? 89.0f : x;
    float kd;
    std::int32_t ki;
    const float r = reduce_ln2(x, kd, ki);  // k in [-151, 129]
    const float p = 1.0f + expm1_poly(r);
    const std::int32_t k1 = (ki >> 1);
    return (p * pow2i(k1)) * pow2i(ki - k1);
}

// expm1: same reduction; expm1(r) = r + r^2 P(r) (degree-9 / degree-4 minimax P) keeps
// relative accuracy near 0; recombined as 2^k expm1(r) + (2^k - 1) without cancellation.
TG_VMATH_INLINE double expm1(double x) {
    double xc = x < -40.0 ? -40.0 : x;  // expm1(-40) rounds to -1
    xc = xc > 710.0 ? 710.0 : xc;
    const double y = expm1_clamped(xc);
    return x == 0.0 ? x : y;  // keep -0
}
TG_VMATH_INLINE float expm1(float x) {
    float xc = x < -18.0f ? -18.0f : x;  // expm1f(-18) rounds to -1
    xc = xc > 89.0f ? 89.0f : xc;
    const float y = expm1_clamped(xc);
    return x == 0.0f ? x : y;
}

// log: x = 2^k m, m in [sqrt(1/2), sqrt(2)) by integer ops on the bits (subnormals are
// pre-scaled by 2^54 / 2^23); log(m) = log1p(f) via s = f/(2+f) and a degree-6 / degree-2
// minimax in s^2; result k*ln2_hi + (log1p(f) + k*ln2_lo).
TG_VMATH_INLINE double log(double x) {
    using C = K<double>;
    const bool sub = x < 0x1p-1022;
    const double xs = sub ? x * 0x1p54 : x;
    std::uint64_t kb;
    const double m = split_mant(xs, kb);
    const double kd = small_uint_to_fp(kb) - (sub ? 1023.0 + 54.0 : 1023.0);
    const double y = kd * C::ln2_hi + (log1p_core(m - 1.0) + kd * C::ln2_lo);
    double res = x > 0.0 ? y : (x == 0.0 ? -C::inf : C::nan);  // NaN input -> NaN
    return x == C::inf ? x : res;
}
TG_VMATH_INLINE float log(float x) {
    using C = K<float>;
    const bool sub = x < 0x1p-126f;
    const float xs = sub ? x * 0x1p23f : x;
    std::uint32_t kb;
    const float m = split_mant(xs, kb);
    const float kd = small_uint_to_fp(kb) - (sub ? 127.0f + 23.0f : 127.0f);
    const float y = kd * C::ln2_hi + (log1p_core(m - 1.0f) + kd * C::ln2_lo);
    float res = x > 0.0f ? y : (x == 0.0f ? -C::inf : C::nan);
    return x == C::inf ? x : res;
}

// log1p: u = 1 + x with its exact rounding error d (Fast2Sum); u = 2^k m as in log and
// log1p(x) = k ln2 + log1p(f + d/2^k), f = m - 1 (exact), so no information is lost in 1+x.
TG_VMATH_INLINE double log1p(double x) {
    using C = K<double>;
    const double u = 1.0 + x;
    const double d = abs_(x) <= 1.0 ? x - (u - 1.0) : 1.0 - (u - x);
    std::uint64_t kb;
    const double m = split_mant(u, kb);  // u >= 2^-53 here, never subnormal
    const double kd = small_uint_to_fp(kb) - 1023.0;
    double sc = as_f64(((2046ull - kb) & 0x7ffull) << 52);  // 2^-k
    sc = kd > 1000.0 ? 0.0 : sc;
    const double f = (m - 1.0) + d * sc;
    const double y = kd * C::ln2_hi + (log1p_core(f) + kd * C::ln2_lo);
    double res = x > -1.0 ? y : (x == -1.0 ? -C::inf : C::nan);
    res = x == C::inf ? x : res;
    return x == 0.0 ? x : res;  // keep -0
}
TG_VMATH_INLINE float log1p(float x) {
    using C = K<float>;
    const float u = 1.0f + x;
    const float d = abs_(x) <= 1.0f ? x - (u - 1.0f) : 1.0f - (u - x);
    std::uint32_t kb;
    const float m = split_mant(u, kb);  // u >= 2^-24, never subnormal
    const float kd = small_uint_to_fp(kb) - 127.0f;
    float sc = as_f32(((254u - kb) & 0xffu) << 23);  // 2^-k
    sc = kd > 120.0f ? 0.0f : sc;
    const float f = (m - 1.0f) + d * sc;
    const float y = kd * C::ln2_hi + (log1p_core(f) + kd * C::ln2_lo);
    float res = x > -1.0f ? y : (x == -1.0f ? -C::inf : C::nan);
    res = x == C::inf ? x : res;
    return x == 0.0f ? x : res;
}

// tanh (double): |tanh x| = e/(e+2), e = expm1(2|x|) (relative accuracy near 0 carries over, no
// cancellation), |x| clamped where tanh rounds to 1; sign copied back. Float: tanh_of_exp below.
TG_VMATH_INLINE double tanh(double x) {
    double a = abs_(x);
    a = a > 20.0 ? 20.0 : a;
    const double e = expm1_clamped(2.0 * a);
    return with_sign(e / (e + 2.0), x);
}

// Forms given t = exp(-|x|) in [0, 1] (Note [Shared exponentials] in cpp/graph/fusion.cpp: a
// fused program computes t once for every one of them applied to the same x).
// sigmoid: 1/(1+t) for x >= 0, t/(1+t) for x < 0 (no overflow, relatively accurate deep in the
// left tail, subnormal results included).
TG_VMATH_INLINE double sigmoid_of_exp(double x, double t) { return (x >= 0.0 ? 1.0 : t) / (1.0 + t); }
TG_VMATH_INLINE float sigmoid_of_exp(float x, float t) { return (x >= 0.0f ? 1.0f : t) / (1.0f + t); }

// softplus = max(x, 0) + log1p(t). double: 1+t is in [1, 2], so one compare against sqrt(2)
// replaces the exponent extraction of log1p.
TG_VMATH_INLINE double softplus_of_exp(double x, double t) {
    using C = K<double>;
    const double u = 1.0 + t;
    const double d = t - (u - 1.0);  // exact rounding error of 1 + t
    const bool hi = u >= 0x1.6a09e667f3bcdp+0;
    const double kd = hi ? 1.0 : 0.0;
    const double f = (hi ? 0.5 * u : u) - 1.0 + (hi ? 0.5 * d : d);
    const double l = kd * C::ln2_hi + (log1p_core(f) + kd * C::ln2_lo);
    return (x > 0.0 ? x : 0.0) + l;
}
TG_VMATH_INLINE float softplus_of_exp(float x, float t) {
    // float: log1p(t) = 2 atanh(s/2), s = 2t/(2+t) in [0, 2/3], as s + s^3 Q(s^2) (1.5 ulp);
    // s = t exactly for a subnormal t, as log1p(t) is
    const float s = t / (1.0f + 0.5f * t);
    const float z = s * s;
    const float l = s + (s * z) * horner(z, kLog1pAtanhF);
    return (x > 0.0f ? x : 0.0f) + l;
}

// tanh |x| = (1 - t^2) / (1 + t^2) for |x| >= 3/4, where 1 - t^2 >= 0.77 cancels nothing and an
// error in t grows less than 1x (about 2 ulp); below, |x| + |x|^3 P(x^2) with a degree-5 minimax P
// (1 ulp). Sign copied back. Float tanh is this form, so fused and unfused tanh agree bit for bit.
// Double keeps expm1's tanh: a polynomial to double precision would cost more than the exp.
TG_VMATH_INLINE double tanh_of_exp(double x, double) { return tanh(x); }
TG_VMATH_INLINE float tanh_of_exp(float x, float t) {
    const float a = abs_(x);
    const float z = a * a;
    const float small = a + a * z * horner(z, kTanhSmallF);
    const float u = t * t;
    const float big = (1.0f - u) / (1.0f + u);
    return with_sign(a < 0.75f ? small : big, x);
}

// |x| clamped to 10, where tanh rounds to 1 either way, keeps exp(-|x|) normal: one scaling
// less than exp_nonpos and the same t wherever it matters, so the same values as the fused form.
TG_VMATH_INLINE float tanh(float x) {
    const float a = abs_(x);
    return tanh_of_exp(x, exp_normal_range(-(a > 10.0f ? 10.0f : a)));
}
TG_VMATH_INLINE double sigmoid(double x) { return sigmoid_of_exp(x, exp_nonpos(-abs_(x))); }
TG_VMATH_INLINE float sigmoid(float x) { return sigmoid_of_exp(x, exp_nonpos(-abs_(x))); }
TG_VMATH_INLINE double softplus(double x) { return softplus_of_exp(x, exp_nonpos(-abs_(x))); }
TG_VMATH_INLINE float softplus(float x) { return softplus_of_exp(x, exp_nonpos(-abs_(x))); }
TG_VMATH_INLINE double exp_neg_abs(double x) { return exp_nonpos(-abs_(x)); }
TG_VMATH_INLINE float exp_neg_abs(float x) { return exp_nonpos(-abs_(x)); }

// log_sigmoid(x) = log(1/(1+e^-x)) = -softplus(-x).
TG_VMATH_INLINE double log_sigmoid(double x) { return -softplus(-x); }
TG_VMATH_INLINE float log_sigmoid(float x) { return -softplus(-x); }

// erf: |x| < 1: x * P(x^2), degree-11 / degree-5 minimax (relative);
// 1 <= |x|: 1 - exp(-x^2) * Q(1/(1+|x|) - c), degree-12 / degree-5 minimax for erfcx,
// |x| clamped to 6 / 4 where erf rounds to 1. Both branches are computed, then selected.
TG_VMATH_INLINE double erf(double x) {
    const double a = abs_(x);
    const double small = x * horner(x * x, kErfSmallD);
    double b = a < 1.0 ? 1.0 : a;
    b = b > 6.0 ? 6.0 : b;
    const double u = 1.0 / (1.0 + b) - kErfBigCenterD;
    const double big = 1.0 - exp_normal_range(-(b * b)) * horner(u, kErfBigD);
    return a < 1.0 ? small : with_sign(big, x);
}
TG_VMATH_INLINE float erf(float x) {
    const float a = abs_(x);
    const float small = x * horner(x * x, kErfSmallF);
    float b = a < 1.0f ? 1.0f : a;
    b = b > 4.0f ? 4.0f : b;
    const float u = 1.0f / (1.0f + b) - kErfBigCenterF;
    const float big = 1.0f - exp_normal_range(-(b * b)) * horner(u, kErfBigF);
    return a < 1.0f ? small : with_sign(big, x);
}

// sin / cos: Cody-Waite reduction by pi/2 (3-piece constant, pieces short enough that
// k * piece is exact without FMA), k = round(x * 2/pi) via the rounding constant;
// degree-13 / degree-7 minimax for sin and degree-14 / degree-8 for cos on |r| <= pi/4;
// quadrant (k mod 4) chooses sin/cos of r and the sign by bit operations.
namespace detail_trig {
TG_VMATH_INLINE double reduce_pio2(double x, std::uint64_t &q) {
    const double t = x * 0x1.45f306dc9c883p-1 + K<double>::magic;
    const double kd = t - K<double>::magic;
    q = to_bits(t);  // low bits = k mod 2^n (two's complement)
    double r = x - kd * 0x1.921fb54400000p+0;
    r = r - kd * 0x1.0b4611a600000p-34;
    return r - kd * 0x1.3198a2e037073p-69;
}
TG_VMATH_INLINE float reduce_pio2(float x, std::uint32_t &q) {
    const float t = x * 0x1.45f306p-1f + K<float>::magic;
    const float kd = t - K<float>::magic;
    q = to_bits(t);
    float r = x - kd * 0x1.922p+0f;
    r = r - kd * -0x1.2aep-18f;
    return r - kd * -0x1.de973ep-31f;
}
// quadrant q: 0 -> s, 1 -> c, 2 -> -s, 3 -> -c
TG_VMATH_INLINE double pick(double s, double c, std::uint64_t q) {
    const std::uint64_t m = 0ull - (q & 1ull);
    const std::uint64_t v = (to_bits(s) & ~m) | (to_bits(c) & m);
    return as_f64(v ^ ((q & 2ull) << 62));
}
TG_VMATH_INLINE float pick(float s, float c, std::uint32_t q) {
    const std::uint32_t m = 0u - (q & 1u);
    const std::uint32_t v = (to_bits(s) & ~m) | (to_bits(c) & m);
    return as_f32(v ^ ((q & 2u) << 30));
}
template <class T, int NS, int NC>
TG_VMATH_INLINE void sincos_poly(T r, const T (&cs)[NS], const T (&cc)[NC], T &s, T &c) {
    const T z = r * r;
    s = r + r * z * horner(z, cs);
    c = T(1) - T(0.5) * z + (z * z) * horner(z, cc);
}
}  // namespace detail_trig

TG_VMATH_INLINE double sin(double x) {
    std::uint64_t q;
    const double r = detail_trig::reduce_pio2(x, q);
    double s, c;
    detail_trig::sincos_poly(r, kSinD, kCosD, s, c);
    const double y = detail_trig::pick(s, c, q);
    return x == 0.0 ? x : y;
}
TG_VMATH_INLINE double cos(double x) {
    std::uint64_t q;
    const double r = detail_trig::reduce_pio2(x, q);
    double s, c;
    detail_trig::sincos_poly(r, kSinD, kCosD, s, c);
    return detail_trig::pick(s, c, q + 1);
}
TG_VMATH_INLINE float sin(float x) {
    std::uint32_t q;
    const float r = detail_trig::reduce_pio2(x, q);
    float s, c;
    detail_trig::sincos_poly(r, kSinF, kCosF, s, c);
    const float y = detail_trig::pick(s, c, q);
    return x == 0.0f ? x : y;
}
TG_VMATH_INLINE float cos(float x) {
    std::uint32_t q;
    const float r = detail_trig::reduce_pio2(x, q);
    float s, c;
    detail_trig::sincos_poly(r, kSinF, kCosF, s, c);
    return detail_trig::pick(s, c, q + 1);
}

// ---------------------------------------------------------------------------------------
// Loops over arrays of any argument (the only libm calls in this file)
// ---------------------------------------------------------------------------------------

// Note [Trig range]
// ~~~~~~~~~~~~~~~~~
// sin and cos above reduce by pi/2 with a three-piece Cody-Waite constant, exact only while
// k = round(x 2/pi) times a piece is: |x| <= kTrigMax. Far beyond (1e10, 1e30 float, 1e20 double)
// the reduced argument is noise and the polynomial returns values far outside [-1, 1]; a correct
// reduction there needs the many bits of 2/pi of Payne-Hanek. sin_run / cos_run, the loops the
// Sin and Cos kernels call (cpp/ops/unary.cpp), take blocks of kTrigBlock elements: a block is
// scanned first (a vectorized or-reduction), and only a block holding some |x| > kTrigMax (or an
// infinity) is computed element by element, libm's sin / cos for those elements. The common case keeps the vectorized loop at every ISA level; a block
// (4 KB float, 8 KB double) is still in L1 when the scan is followed by the loop. out may alias
// x at the same positions.
template <class T> constexpr T kTrigMax = sizeof(T) == 8 ? T(1e6) : T(6000);
constexpr std::int64_t kTrigBlock = 1024;

template <class T, class Fast, class Exact>
void trig_run(const T *x, T *out, std::int64_t n, Fast fast, Exact exact) {
    for (std::int64_t lo = 0; lo < n; lo += kTrigBlock) {
        const std::int64_t m = n - lo < kTrigBlock ? n - lo : kTrigBlock;
        const T *xb = x + lo;
        T *ob = out + lo;
        // any |x| > kTrigMax in the block: an or of integer flags of the element width vectorizes
        // at every level (a bool or a floating max does not)
        decltype(to_bits(T(0))) big = 0;
        for (std::int64_t i = 0; i < m; ++i) big |= abs_(xb[i]) > kTrigMax<T> ? 1u : 0u;
        if (!big) {
            for (std::int64_t i = 0; i < m; ++i) ob[i] = fast(xb[i]);
        } else {
            for (std::int64_t i = 0; i < m; ++i) ob[i] = abs_(xb[i]) > kTrigMax<T> ? exact(xb[i]) : fast(xb[i]);
        }
    }
}
template <class T> void sin_run(const T *x, T *out, std::int64_t n) {
    trig_run(x, out, n, [](T v) { return sin(v); }, [](T v) { return std::sin(v); });
}
template <class T> void cos_run(const T *x, T *out, std::int64_t n) {
    trig_run(x, out, n, [](T v) { return cos(v); }, [](T v) { return std::cos(v); });
}

}  // namespace
}  // namespace vmath
}  // namespace tg

#undef TG_VMATH_INLINE
