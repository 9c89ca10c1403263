// gamma_functions.h -- log|Gamma|, digamma and polygamma on the real line, as TF defines them at the
// poles (NaN or inf). Digamma and polygamma shift x up with their recurrences,
//   psi(x) = psi(x + 1) - 1/x,   psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1),
// until the asymptotic series in 1/x (Bernoulli numbers B_2k) is accurate to double precision;
// digamma reflects negative x (psi(x) = psi(1 - x) - pi / tan(pi x)). Polygamma of a negative x below
// -1000 is NaN (the shift would take too long; TF's kernel gives finite values there). Orders past
// about 170 overflow to +-inf.
#pragma once
#include <cmath>
#include <limits>

namespace tg {

namespace gamma_detail {
// B_2k for k = 1..8
constexpr double kBernoulli[] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510};
constexpr double kPi = 3.14159265358979323846;
inline bool is_pole(double x) { return x <= 0 && x == std::floor(x); }
}  // namespace gamma_detail

template <class T>
T lgamma_scalar(T x) {
  int sign;
  return (T)::lgamma_r((double)x, &sign);  // the reentrant form: lgamma writes the global signgam
}

inline double digamma_double(double x) {
  using namespace gamma_detail;
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity() || is_pole(x))
    return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  double shift = 0;
  if (x < 0) {  // reflection; pi / tan(pi x) with x reduced to (-1/2, 1/2] for accuracy
    const double r = x - std::nearbyint(x);
    shift = -kPi / std::tan(kPi * r);
    x = 1 - x;
  }
  for (; x < 10; x += 1) shift -= 1 / x;
  const double z = 1 / (x * x);
  double series = 0, zk = z;
  for (int k = 1; k <= 8; ++k, zk *= z) series += kBernoulli[k - 1] / (2 * k) * zk;
  return shift + std::log(x) - 0.5 / x - series;
}

template <class T>
T digamma_scalar(T x) {
  return (T)digamma_double((double)x);
}

// psi^(n)(x) for a whole n >= 0 (NaN for other n). Every term n! / x^(n+1) and (2k+n-1)! / ((2k)! x^(2k+n))
// is formed as exp(lgamma(..) - (..) log|x|), so large orders neither overflow a factorial nor lose
// a term to pow() overflowing.
inline double polygamma_double(double n, double x) {
  using namespace gamma_detail;
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  if (std::isnan(n) || std::isnan(x) || n < 0 || n != std::floor(n)) return nan;
  if (n == 0) return digamma_double(x);
  if (n == inf) return std::abs(x) < 1 ? inf : nan;  // (TF's values)
  const bool odd = std::fmod(n, 2.0) == 1.0;
  if (x == -inf || is_pole(x)) return odd ? inf : nan;  // (TF's values at the poles)
  if (x == inf) return odd ? 0.0 : -0.0;
  if (x < -1000) return nan;
  const double sign = odd ? 1.0 : -1.0;  // (-1)^(n+1)
  // q / x^p for q = exp(log_q), with x's sign
  auto over_power = [](double log_q, double x, double p) {
    const double magnitude = std::exp(log_q - p * std::log(std::abs(x)));
    return x < 0 && std::fmod(p, 2.0) == 1.0 ? -magnitude : magnitude;
  };
  const double log_n_fact = std::lgamma(n + 1);
  double acc = 0;
  const double start = 20 + 2 * n;
  for (; x < start; x += 1) {
    const double term = over_power(log_n_fact, x, n + 1);
    acc += term;
    // For a large order the terms fall fast: once one is below rounding the rest (and the tail) are
    // too, and the loop to 20 + 2n would take as many steps as n.
    if (std::isnan(term)) return nan;
    if (x > 0 && std::abs(term) <= std::abs(acc) * 1e-18) return sign * acc;
  }
  // (n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)! / ((2k)! x^(2k+n))
  double tail = over_power(std::lgamma(n), x, n) + over_power(log_n_fact, x, n + 1) / 2;
  for (int k = 1; k <= 8; ++k)
    tail += kBernoulli[k - 1] * over_power(std::lgamma(2.0 * k + n) - std::lgamma(2.0 * k + 1), x, 2.0 * k + n);
  return sign * (acc + tail);
}

template <class T>
T polygamma_scalar(T n, T x) {
  return (T)polygamma_double((double)n, (double)x);
}

}  // namespace tg
