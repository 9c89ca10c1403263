// optim.cpp -- optimizer updates as stateful ops: each updates a Variable and its slots in place.
//
// Inputs of every Apply* op: (var, grad, lr, iterations, slots...). lr is a numeric scalar (a
// Variable, so a graph sees later changes), iterations the optimizer's int scalar step counter
// (steps taken so far; this update is step t = iterations + 1). Step-dependent coefficients
// (bias corrections, Nadam's momentum schedule) are computed here from t, so a traced training
// step replays correctly. Attribute weight_decay applies decoupled decay var *= 1 - lr * wd
// first. The output is an empty tensor; the op exists for its effect (OpDef::stateful).
#include <cmath>
#include <cstring>
#include "core/error.h"
#include "engine/registry.h"
#include "kernels/optim.h"

namespace tg {

namespace {

constexpr int kPrefix = 4;  // var, grad, lr, iterations

// Checks the inputs; `slots` is the number of slot variables this op's attributes call for.
void check_update(const OpDef& op, const Tensors& x, size_t slots) {
  if (x.size() != kPrefix + slots)
    throw InvalidArgument(cat(op.name, ": expected ", kPrefix + slots, " inputs (var, grad, lr, iterations and ", slots,
                              " slot variables), got ", x.size()));
  const Tensor &var = x[0], &grad = x[1], &lr = x[2], &it = x[3];
  if (!var->is_variable || !var->storage)
    throw InvalidArgument(cat(op.name, ": the variable to update must be a Variable, got a Tensor of ", meta_str(var)));
  if (!is_floating(var->dtype))
    throw InvalidArgument(cat(op.name, ": optimizer updates need float32 or float64 variables, got ", meta_str(var)));
  if (grad->dtype != var->dtype || grad->shape != var->shape)
    throw InvalidArgument(cat(op.name, ": gradient of ", meta_str(grad), " does not match the variable of ", meta_str(var)));
  if (lr->ndim() != 0 || !(is_floating(lr->dtype) || is_integer(lr->dtype)))
    throw InvalidArgument(cat(op.name, ": the learning rate must be a numeric scalar, got ", meta_str(lr)));
  if (it->ndim() != 0 || !is_integer(it->dtype))
    throw InvalidArgument(cat(op.name, ": iterations must be an int32/int64 scalar, got ", meta_str(it)));
  for (size_t k = kPrefix; k < x.size(); ++k) {
    const Tensor& s = x[k];
    if (!s->is_variable || !s->storage)
      throw InvalidArgument(cat(op.name, ": slot ", k - kPrefix, " must be a Variable, got a Tensor of ", meta_str(s)));
    if (s->dtype != var->dtype || s->shape != var->shape)
      throw InvalidArgument(cat(op.name, ": slot ", k - kPrefix, " of ", meta_str(s), " does not match the variable of ",
                                meta_str(var)));
    for (size_t j = 0; j < k; ++j)
      if (j != 1 && j != 2 && j != 3 && x[j] == s)
        throw InvalidArgument(cat(op.name, ": slot ", k - kPrefix, " is the same Variable as input ", j,
                                  "; every slot needs its own Variable"));
  }
}

OutMeta no_output(const Tensors& x) { return {Shape{0}, x[0]->dtype}; }

// The pointer to write through; a storage others still read (tapes, views, earlier reads in a
// graph) is copied first, as assignment does.
void* writable(const Tensor& t) {
  if (t->storage.use_count() > 1) {
    auto fresh = std::make_shared<Storage>(t->nbytes());
    std::memcpy(fresh->data, t->data(), t->nbytes());
    t->storage = fresh;
    t->offset = 0;
  }
  return t->data();
}

void* slot(const Tensors& x, size_t k) { return k < x.size() ? writable(x[k]) : nullptr; }

double lr_of(const Tensors& x) { return scalar_value(x[2]); }
double step_of(const Tensors& x) { return scalar_value(x[3]) + 1.0; }
double decay_of(const Attrs& a, double lr) { return lr * a.f("weight_decay", 0.0); }

// ---- SGD: slots [momentum] when attr momentum != 0.
OutMeta sgd_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  double mu = a.f("momentum", 0.0);
  if (!(mu >= 0 && mu <= 1)) throw InvalidArgument(cat(op.name, ": momentum must be in [0, 1], got ", mu));
  check_update(op, x, mu != 0 ? 1 : 0);
  return no_output(x);
}

Tensor sgd_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  double lr = lr_of(x);
  sgd_update(x[0]->dtype, x[0]->size, writable(x[0]), slot(x, 4), x[1]->data(), lr, a.f("momentum", 0.0),
             a.b("nesterov"), decay_of(a, lr));
  return empty(m.shape, m.dtype);
}

// ---- Adam: slots m, v [, vhat when amsgrad]; alpha = lr sqrt(1 - b2^t) / (1 - b1^t).
OutMeta adam_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_update(op, x, a.b("amsgrad") ? 3 : 2);
  return no_output(x);
}

Tensor adam_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  double lr = lr_of(x), t = step_of(x), b1 = a.f("beta_1", 0.9), b2 = a.f("beta_2", 0.999);
  double alpha = lr * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
  adam_update(x[0]->dtype, x[0]->size, writable(x[0]), slot(x, 4), slot(x, 5), slot(x, 6), x[1]->data(), alpha, b1, b2,
              a.f("epsilon", 1e-7), decay_of(a, lr));
  return empty(m.shape, m.dtype);
}

// ---- Nadam: slots m, v. With u_t = b1 (1 - 0.5 * 0.96^t) and P_t = u_1 ... u_t = b1^t Q_t,
// Q_t = prod_{i<=t} (1 - 0.5 * 0.96^i): Q is a fixed table (0.96^i < 1e-36 past i = 2048, so
// later factors are 1 in double precision), which keeps the schedule free of extra state.
double nadam_q(double t) {
  constexpr int kTable = 2048;
  static const std::vector<double> q = [] {
    std::vector<double> r(kTable + 1, 1.0);
    for (int i = 1; i <= kTable; ++i) r[i] = r[i - 1] * (1 - 0.5 * std::pow(0.96, i));
    return r;
  }();
  return q[t >= kTable ? kTable : (int)t];
}

Tensor nadam_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  double lr = lr_of(x), t = step_of(x), b1 = a.f("beta_1", 0.9), b2 = a.f("beta_2", 0.999);
  auto u = [&](double s) { return b1 * (1 - 0.5 * std::pow(0.96, s)); };
  double p_t = std::pow(b1, t) * nadam_q(t), u_t = u(t), u_next = u(t + 1);
  double c_m = u_next / (1 - p_t * u_next), c_g = (1 - u_t) / (1 - p_t);
  nadam_update(x[0]->dtype, x[0]->size, writable(x[0]), slot(x, 4), slot(x, 5), x[1]->data(), lr, b1, b2,
               a.f("epsilon", 1e-7), c_m, c_g, std::pow(b2, t), decay_of(a, lr));
  return empty(m.shape, m.dtype);
}

OutMeta nadam_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_update(op, x, 2);
  return no_output(x);
}

// ---- RMSprop: slots velocity [, average_gradient when centered] [, momentum when momentum != 0].
OutMeta rmsprop_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_update(op, x, 1 + (a.b("centered") ? 1 : 0) + (a.f("momentum", 0.0) != 0 ? 1 : 0));
  return no_output(x);
}

Tensor rmsprop_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  double lr = lr_of(x);
  bool centered = a.b("centered");
  double mu = a.f("momentum", 0.0);
  size_t k = 5;
  void* avg = centered ? slot(x, k++) : nullptr;
  void* mom = mu != 0 ? slot(x, k++) : nullptr;
  rmsprop_update(x[0]->dtype, x[0]->size, writable(x[0]), slot(x, 4), avg, mom, x[1]->data(), lr, a.f("rho", 0.9), mu,
                 a.f("epsilon", 1e-7), decay_of(a, lr));
  return empty(m.shape, m.dtype);
}

// ---- Adagrad: slot accumulator.
OutMeta adagrad_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_update(op, x, 1);
  return no_output(x);
}

Tensor adagrad_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  double lr = lr_of(x);
  adagrad_update(x[0]->dtype, x[0]->size, writable(x[0]), slot(x, 4), x[1]->data(), lr, a.f("epsilon", 1e-7),
                 decay_of(a, lr));
  return empty(m.shape, m.dtype);
}

}  // namespace

void register_optim_ops() {
  // The update rules are written out in kernels/optim.h.
  def_op("ApplySGD").inputs(-1).shape(sgd_infer).forward(sgd_kernel).has_side_effects();
  def_op("ApplyAdam").inputs(-1).shape(adam_infer).forward(adam_kernel).has_side_effects();
  def_op("ApplyNadam").inputs(-1).shape(nadam_infer).forward(nadam_kernel).has_side_effects();
  def_op("ApplyRMSprop").inputs(-1).shape(rmsprop_infer).forward(rmsprop_kernel).has_side_effects();
  def_op("ApplyAdagrad").inputs(-1).shape(adagrad_infer).forward(adagrad_kernel).has_side_effects();
}

}  // namespace tg
