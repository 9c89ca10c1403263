// optim.cpp -- fused optimizer update kernels (see optim.h for the update rules).
#include "kernels/optim.h"
#include <cmath>
#include "core/error.h"

namespace tg {

namespace {

// Below this size one thread is faster than waking the OpenMP team.
// Optional slots and flags are template parameters, so each loop body is branch-free and vectorizes.
constexpr int64_t kParallelMin = 1 << 16;

// Runs step(i) for i in [0, n): across the OpenMP team when n is large, else inline (an `if` clause
// on the pragma would still enter the OpenMP runtime for every small variable).
template <class F> inline void for_each_index(int64_t n, F&& step) {
  if (n >= kParallelMin) {
#pragma omp parallel for simd
    for (int64_t i = 0; i < n; ++i) step(i);
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) step(i);
  }
}

// Runs body.template operator()<T>() for the float dtype.
template <class F> void float_dispatch(DType dtype, const char* name, F&& body) {
  if (dtype == DType::Float32) body(float{});
  else if (dtype == DType::Float64) body(double{});
  else throw InvalidArgument(cat(name, ": optimizer updates need float32 or float64 variables"));
}

template <class T, bool NESTEROV> void sgd_momentum(int64_t n, T* x, T* p, const T* g, T lr, T mu, T keep) {
  for_each_index(n, [&](int64_t i) {
    T m = mu * p[i] - lr * g[i];
    p[i] = m;
    x[i] = keep * x[i] + (NESTEROV ? mu * m - lr * g[i] : m);
  });
}

template <class T> void sgd(int64_t n, T* x, T* p, const T* g, T lr, T mu, bool nesterov, T keep) {
  if (!p) {
    for_each_index(n, [&](int64_t i) { x[i] = keep * x[i] - lr * g[i]; });
  } else if (nesterov) {
    sgd_momentum<T, true>(n, x, p, g, lr, mu, keep);
  } else {
    sgd_momentum<T, false>(n, x, p, g, lr, mu, keep);
  }
}

// First and second moments, shared by Adam and Nadam: m += (g - m) c1, v += (g^2 - v) c2 (c = 1 - beta).
template <class T> inline void update_moments(T gi, T& m, T& v, T c1, T c2) {
  m += (gi - m) * c1;
  v += (gi * gi - v) * c2;
}

template <class T, bool AMS> void adam_loop(int64_t n, T* x, T* m, T* v, T* vmax, const T* g, T alpha, T c1, T c2,
                                            T eps, T keep) {
  for_each_index(n, [&](int64_t i) {
    update_moments(g[i], m[i], v[i], c1, c2);
    T mi = m[i], vi = v[i];
    if constexpr (AMS) {
      vi = vmax[i] > vi ? vmax[i] : vi;
      vmax[i] = vi;
    }
    x[i] = keep * x[i] - alpha * mi / (std::sqrt(vi) + eps);
  });
}

template <class T> void adam(int64_t n, T* x, T* m, T* v, T* vmax, const T* g, T alpha, T c1, T c2, T eps, T keep) {
  if (vmax) adam_loop<T, true>(n, x, m, v, vmax, g, alpha, c1, c2, eps, keep);
  else adam_loop<T, false>(n, x, m, v, vmax, g, alpha, c1, c2, eps, keep);
}

template <class T> void nadam(int64_t n, T* x, T* m, T* v, const T* g, T lr, T b1, T b2, T eps, T c_m, T c_g,
                              T b2_power, T keep) {
  const T c1 = 1 - b1, c2 = 1 - b2;
  for_each_index(n, [&](int64_t i) {
    const T gi = g[i];
    update_moments(gi, m[i], v[i], c1, c2);
    T mi = m[i], vi = v[i];
    T m_hat = c_m * mi + c_g * gi;
    x[i] = keep * x[i] - lr * m_hat / (std::sqrt(vi / (1 - b2_power)) + eps);
  });
}

template <class T, bool CENTERED, bool MOMENTUM>
void rmsprop_loop(int64_t n, T* x, T* s, T* a, T* p, const T* g, T lr, T rho, T c, T mu, T eps, T keep) {
  for_each_index(n, [&](int64_t i) {
    T gi = g[i];
    T si = rho * s[i] + c * (gi * gi);
    s[i] = si;
    T den = si;
    if constexpr (CENTERED) {
      T ai = rho * a[i] + c * gi;
      a[i] = ai;
      den -= ai * ai;
    }
    den += eps;  // (s - a^2) + eps, in Keras's order
    T inc = lr * gi / std::sqrt(den);
    if constexpr (MOMENTUM) {
      inc += mu * p[i];
      p[i] = inc;
    }
    x[i] = keep * x[i] - inc;
  });
}

template <class T> void rmsprop(int64_t n, T* x, T* s, T* a, T* p, const T* g, T lr, T rho, T c, T mu, T eps, T keep) {
  if (a && p) rmsprop_loop<T, true, true>(n, x, s, a, p, g, lr, rho, c, mu, eps, keep);
  else if (a) rmsprop_loop<T, true, false>(n, x, s, a, p, g, lr, rho, c, mu, eps, keep);
  else if (p) rmsprop_loop<T, false, true>(n, x, s, a, p, g, lr, rho, c, mu, eps, keep);
  else rmsprop_loop<T, false, false>(n, x, s, a, p, g, lr, rho, c, mu, eps, keep);
}

template <class T> void adagrad(int64_t n, T* x, T* acc, const T* g, T lr, T eps, T keep) {
  for_each_index(n, [&](int64_t i) {
    T gi = g[i];
    T ai = acc[i] + gi * gi;
    acc[i] = ai;
    x[i] = keep * x[i] - lr * gi / (std::sqrt(ai) + eps);
  });
}

template <class T> T* as(void* p) { return static_cast<T*>(p); }
template <class T> const T* as(const void* p) { return static_cast<const T*>(p); }

}  // namespace

void sgd_update(DType dtype, int64_t n, void* var, void* mom, const void* g, double lr, double momentum,
                bool nesterov, double decay) {
  float_dispatch(dtype, "SGD", [&](auto t) {
    using T = decltype(t);
    sgd<T>(n, as<T>(var), as<T>(mom), as<T>(g), (T)lr, (T)momentum, nesterov, (T)(1 - decay));
  });
}

void adam_update(DType dtype, int64_t n, void* var, void* m, void* v, void* vmax, const void* g, double alpha,
                 double c1, double c2, double eps, double decay) {
  float_dispatch(dtype, "Adam", [&](auto t) {
    using T = decltype(t);
    adam<T>(n, as<T>(var), as<T>(m), as<T>(v), as<T>(vmax), as<T>(g), (T)alpha, (T)c1, (T)c2, (T)eps, (T)(1 - decay));
  });
}

void nadam_update(DType dtype, int64_t n, void* var, void* m, void* v, const void* g, double lr, double b1,
                  double b2, double eps, double c_m, double c_g, double b2_power, double decay) {
  float_dispatch(dtype, "Nadam", [&](auto t) {
    using T = decltype(t);
    nadam<T>(n, as<T>(var), as<T>(m), as<T>(v), as<T>(g), (T)lr, (T)b1, (T)b2, (T)eps, (T)c_m, (T)c_g,
             (T)b2_power, (T)(1 - decay));
  });
}

void rmsprop_update(DType dtype, int64_t n, void* var, void* s, void* a, void* mom, const void* g, double lr,
                    double rho, double momentum, double eps, double decay) {
  float_dispatch(dtype, "RMSprop", [&](auto t) {
    using T = decltype(t);
    rmsprop<T>(n, as<T>(var), as<T>(s), as<T>(a), as<T>(mom), as<T>(g), (T)lr, (T)rho, (T)(1 - rho), (T)momentum,
               (T)eps, (T)(1 - decay));
  });
}

void adagrad_update(DType dtype, int64_t n, void* var, void* acc, const void* g, double lr, double eps,
                    double decay) {
  float_dispatch(dtype, "Adagrad", [&](auto t) {
    using T = decltype(t);
    adagrad<T>(n, as<T>(var), as<T>(acc), as<T>(g), (T)lr, (T)eps, (T)(1 - decay));
  });
}

}  // namespace tg
