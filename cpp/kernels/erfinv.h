// erfinv.h -- the inverse error function on (-1, 1): Giles' single-precision polynomials ("Approximating
// the erfinv function", GPU Computing Gems, 2010) as the start, then two Newton steps in double on
// erf (|y| <= 0.5) or on erfc (|y| > 0.5, where 1 - |y| is exact), which give double precision.
// erfinv(+-1) = +-inf; outside [-1, 1] and for NaN the result is NaN.
#pragma once
#include <cmath>
#include <limits>

namespace tg {

template <class T>
T erfinv_scalar(T yt) {
  const double y = (double)yt;
  if (!(std::abs(y) < 1.0)) {
    if (y == 1.0 || y == -1.0) return y * std::numeric_limits<T>::infinity();
    return std::numeric_limits<T>::quiet_NaN();
  }
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  const double a = std::abs(y), two_over_sqrt_pi = 1.1283791670955126;
  for (int i = 0; i < 2; ++i) {
    const double slope = two_over_sqrt_pi * std::exp(-x * x);
    if (slope == 0) break;
    if (a <= 0.5) {
      x -= (std::erf(x) - y) / slope;
    } else {  // on |x|: erfc(|x|) = 1 - |y|
      const double ax = std::abs(x) + (std::erfc(std::abs(x)) - (1.0 - a)) / slope;
      x = std::copysign(ax, y);
    }
  }
  return (T)x;
}

}  // namespace tg
