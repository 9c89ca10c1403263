// optim.h -- fused optimizer update kernels: one pass over the variable, its gradient and its slots.
#pragma once
#include <cstdint>
#include "core/dtype.h"

namespace tg {

// Every kernel first applies decoupled weight decay, var *= (1 - decay) with decay = lr * weight_decay
// (Keras applies it in the optimizer base class before update_step), then the rule in its comment.
// Pointers are contiguous arrays of `n` elements of `dtype` (float32 or float64); optional slots may
// be null. The variable and slots are updated in place.

// SGD: with momentum m: m = momentum*m - lr*g; var += nesterov ? momentum*m - lr*g : m.
//      without (mom == nullptr): var -= lr*g.
void sgd_update(DType dtype, int64_t n, void* var, void* mom, const void* g, double lr, double momentum,
                bool nesterov, double decay);

// Adam: m += (g - m) c1; v += (g^2 - v) c2; vmax = max(vmax, v) when amsgrad (vmax != nullptr);
//       var -= alpha * m / (sqrt(v or vmax) + eps), alpha = lr sqrt(1 - b2^t) / (1 - b1^t). The caller
//       gives c1 = 1 - b1 and c2 = 1 - b2 as its rule rounds them (TF's kernel in the variable's dtype,
//       Keras from the exact value), and alpha.
void adam_update(DType dtype, int64_t n, void* var, void* m, void* v, void* vmax, const void* g, double alpha,
                 double c1, double c2, double eps, double decay);

// Nadam (Dozat): m, v as Adam; var -= lr * (c_m m + c_g g) / (sqrt(v / (1 - b2^t)) + eps),
//       c_m = u_{t+1} / (1 - prod_{i<=t+1} u_i), c_g = (1 - u_t) / (1 - prod_{i<=t} u_i).
void nadam_update(DType dtype, int64_t n, void* var, void* m, void* v, const void* g, double lr, double b1,
                  double b2, double eps, double c_m, double c_g, double b2_power, double decay);

// RMSprop: s = rho s + (1 - rho) g^2; centered: a = rho a + (1 - rho) g, den = (s - a^2) + eps, else den = s + eps;
//       1 - rho from the exact value, rounded once (as Keras, whose values it gives bit for bit);
//       inc = lr g / sqrt(den); momentum buffer p (if mom != nullptr): p = momentum p + inc, var -= p; else var -= inc.
void rmsprop_update(DType dtype, int64_t n, void* var, void* s, void* a, void* mom, const void* g, double lr,
                    double rho, double momentum, double eps, double decay);

// Adagrad (TF's ApplyAdagradV2): acc += g^2; var -= lr g / (sqrt(acc) + eps).
void adagrad_update(DType dtype, int64_t n, void* var, void* acc, const void* g, double lr, double eps,
                    double decay);

}  // namespace tg
