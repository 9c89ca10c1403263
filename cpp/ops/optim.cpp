// optim.cpp -- optimizer updates as stateful ops, TF's fused training ops: each updates a Variable and
// its slot Variables in place (tf.raw_ops.ResourceApplyAdam and friends).
//
// Inputs are TF's, in TF's order (Note [Update op inputs]): the variable and its slots are Variables,
// the hyperparameters (lr, beta1_power, momentum, ...) numeric scalars - tensors, so a traced training
// step reads each call's learning rate and step-dependent coefficients. The output is an empty tensor;
// the op exists for its effect (OpDef::stateful).
#include <cmath>
#include <cstring>
#include "core/error.h"
#include "engine/registry.h"
#include "kernels/optim.h"

namespace tg {

namespace {

// Note [Update op inputs]: an update op's inputs, one letter each in TF's order: 'w' the Variable
// to update, 'v' a slot Variable of its dtype and shape, 's' a numeric scalar, 'g' the gradient
// (a tensor of the variable's dtype and shape). `names` are TF's argument names, for messages.
struct Layout {
  const char* roles;
  std::vector<const char*> names;
};

void check_update(const OpDef& op, const Tensors& x, const Layout& l) {
  const size_t n = std::strlen(l.roles);
  if (x.size() != n) throw InvalidArgument(cat(op.name, ": expected ", n, " inputs, got ", x.size()));
  const Tensor& var = x[0];
  if (!var->is_variable || !var->storage)
    throw InvalidArgument(cat(op.name, ": var must be a Variable, got a Tensor of ", meta_str(var)));
  if (!is_floating(var->dtype))
    throw InvalidArgument(cat(op.name, ": optimizer updates need float32 or float64 variables, got ", meta_str(var)));
  for (size_t k = 1; k < n; ++k) {
    const Tensor& t = x[k];
    const char* name = l.names[k];
    switch (l.roles[k]) {
      case 's':
        if (t->ndim() != 0 || !(is_floating(t->dtype) || is_integer(t->dtype)))
          throw InvalidArgument(cat(op.name, ": ", name, " must be a numeric scalar, got ", meta_str(t)));
        break;
      case 'v':
        if (!t->is_variable || !t->storage)
          throw InvalidArgument(cat(op.name, ": slot ", name, " must be a Variable, got a Tensor of ", meta_str(t)));
        for (size_t j = 0; j < k; ++j)
          if (l.roles[j] != 's' && l.roles[j] != 'g' && x[j] == t)
            throw InvalidArgument(cat(op.name, ": slot ", name, " is the same Variable as ", l.names[j],
                                      "; every slot needs its own Variable"));
        [[fallthrough]];
      default:
        if (t->dtype != var->dtype || t->shape != var->shape)
          throw InvalidArgument(cat(op.name, ": ", name, " of ", meta_str(t), " does not match the variable of ",
                                    meta_str(var)));
    }
  }
}

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

double at(const Tensors& x, size_t k) { return scalar_value(x[k]); }

// The update ops' layouts and rules, found by OpDef (the registry's infer and kernel are plain functions).
using UpdateFn = void (*)(const OpDef&, const Tensors&, const Attrs&);
struct Update {
  const OpDef* op;
  Layout layout;
  UpdateFn run;
};
std::vector<Update>& updates() {
  static std::vector<Update> table;
  return table;
}
const Update& update_of(const OpDef& op) {
  for (const Update& u : updates())
    if (u.op == &op) return u;
  throw InvalidArgument(cat(op.name, ": not an update op"));
}

OutMeta update_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  check_update(op, x, update_of(op).layout);
  return {Shape{0}, x[0]->dtype};
}

Tensor update_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  update_of(op).run(op, x, a);
  return empty(m.shape, m.dtype);
}

void def_update(const char* name, Layout layout, UpdateFn run) {
  if (std::strlen(layout.roles) != layout.names.size()) throw InvalidArgument(cat(name, ": layout and names differ"));
  OpDef& op = def_op(name).inputs(-1).shape(update_infer).forward(update_kernel).has_side_effects();
  updates().push_back({&op, std::move(layout), run});
}

// Nadam's momentum schedule: with u_t = b1 (1 - 0.5 * 0.96^t) and P_t = u_1 ... u_t = b1^t Q_t,
// Q_t = prod_{i<=t} (1 - 0.5 * 0.96^i): Q is a fixed table (0.96^i < 1e-36 past i = 2048, so
// later factors are 1 in double precision), which keeps the schedule free of extra state.
double nadam_q(double t) {
  constexpr int kTable = 2048;
  static const std::vector<double> q = [] {
    std::vector<double> r(kTable + 1, 1.0);
    for (int i = 1; i <= kTable; ++i) r[i] = r[i - 1] * (1 - 0.5 * std::pow(0.96, i));
    return r;
  }();
  return q[t >= kTable ? kTable : t < 0 ? 0 : (int)t];
}

// 1 - b as TF's kernels compute it: in the variable's dtype, from b rounded to it.
double one_minus(DType dtype, double b) { return dtype == DType::Float32 ? (double)(1.0f - (float)b) : 1 - b; }

void adam(const Tensors& x, void* vhat, size_t p) {  // p: index of beta1_power
  double b1p = at(x, p), b2p = at(x, p + 1), lr = at(x, p + 2);
  double alpha = lr * std::sqrt(1 - b2p) / (1 - b1p);  // TF's lr_t
  const DType d = x[0]->dtype;
  adam_update(d, x[0]->size, writable(x[0]), writable(x[1]), writable(x[2]), vhat, x[p + 6]->data(), alpha,
              one_minus(d, at(x, p + 3)), one_minus(d, at(x, p + 4)), at(x, p + 5), 0.0);
}

// Note [Keras's Adam]: Keras writes Adam in ops, in the variable's dtype T: the betas reach T through a
// float32 constant and are raised to t in T, so alpha = lr sqrt(1 - b2^t) / (1 - b1^t) is computed in
// T; the moments use 1 - beta from the exact Python value, rounded to T once. TF's fused kernel rounds
// beta to T and subtracts in T: for float32, 1 - float32(0.999) = 0.00099998713 where Keras has 0.001,
// and the weights differed by about 6e-6 relative in the first steps.
template <class T> double keras_adam_alpha(double lr, double b1, double b2, double t) {
  const T p1 = std::pow((T)(float)b1, (T)t), p2 = std::pow((T)(float)b2, (T)t);
  return (double)((T)lr * std::sqrt(T(1) - p2) / (T(1) - p1));
}

void keras_adam(const OpDef& op, const Tensors& x, void* vhat, size_t p) {  // p: index of local_step
  const double t = at(x, p), lr = at(x, p + 1), b1 = at(x, p + 2), b2 = at(x, p + 3);
  if (!(t >= 1))  // at t = 0 the bias corrections divide by zero: the variable would silently become NaN
    throw InvalidArgument(cat(op.name, ": local_step must be >= 1 (the step being taken), got ", t));
  const DType d = x[0]->dtype;
  const double alpha = d == DType::Float32 ? keras_adam_alpha<float>(lr, b1, b2, t)
                                           : keras_adam_alpha<double>(lr, b1, b2, t);
  adam_update(d, x[0]->size, writable(x[0]), writable(x[1]), writable(x[2]), vhat, x[p + 5]->data(), alpha, 1 - b1,
              1 - b2, at(x, p + 4), 0.0);
}

void refuse_nesterov(const OpDef& op, const Attrs& a) {
  if (a.b("use_nesterov")) throw Unimplemented(cat(op.name, ": use_nesterov=True is not supported"));
}

}  // namespace

void register_optim_ops() {
  // The update rules are written out in kernels/optim.h.
  def_update("ResourceApplyGradientDescent", {"wsg", {"var", "alpha", "delta"}},
             [](const OpDef&, const Tensors& x, const Attrs&) {  // var -= alpha * delta
               sgd_update(x[0]->dtype, x[0]->size, writable(x[0]), nullptr, x[2]->data(), at(x, 1), 0.0, false, 0.0);
             });
  def_update("ResourceApplyKerasMomentum", {"wvsgs", {"var", "accum", "lr", "grad", "momentum"}},
             [](const OpDef&, const Tensors& x, const Attrs& a) {
               sgd_update(x[0]->dtype, x[0]->size, writable(x[0]), writable(x[1]), x[3]->data(), at(x, 2), at(x, 4),
                          a.b("use_nesterov"), 0.0);
             });
  def_update("ResourceApplyAdam", {"wvvssssssg", {"var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1",
                                                 "beta2", "epsilon", "grad"}},
             [](const OpDef& op, const Tensors& x, const Attrs& a) { refuse_nesterov(op, a); adam(x, nullptr, 3); });
  def_update("ResourceApplyAdamWithAmsgrad", {"wvvvssssssg", {"var", "m", "v", "vhat", "beta1_power", "beta2_power",
                                                             "lr", "beta1", "beta2", "epsilon", "grad"}},
             [](const OpDef&, const Tensors& x, const Attrs&) { adam(x, writable(x[3]), 4); });
  // tapegrad's own: Keras's Adam at step local_step = t (>= 1), rounded as Keras's ops round it
  // (Note [Keras's Adam]); TF has no fused op for it.
  def_update("ResourceApplyKerasAdam", {"wvvsssssg", {"var", "m", "v", "local_step", "lr", "beta1", "beta2",
                                                     "epsilon", "grad"}},
             [](const OpDef& op, const Tensors& x, const Attrs&) { keras_adam(op, x, nullptr, 3); });
  def_update("ResourceApplyKerasAdamWithAmsgrad", {"wvvvsssssg", {"var", "m", "v", "vhat", "local_step", "lr", "beta1",
                                                                 "beta2", "epsilon", "grad"}},
             [](const OpDef& op, const Tensors& x, const Attrs&) { keras_adam(op, x, writable(x[3]), 4); });
  // tapegrad's own (TF has no fused Nadam): Keras's Nadam at step local_step = t (>= 1).
  def_update("ResourceApplyNadam", {"wvvsssssg", {"var", "m", "v", "local_step", "lr", "beta1", "beta2", "epsilon",
                                                 "grad"}},
             [](const OpDef& op, const Tensors& x, const Attrs&) {
               double t = at(x, 3), lr = at(x, 4), b1 = at(x, 5), b2 = at(x, 6);
               if (!(t >= 1))  // at t = 0 the bias corrections divide by zero (1 - P_0 u_1 is fine, 1 - beta_2^0 not)
                 throw InvalidArgument(cat(op.name, ": local_step must be >= 1 (the step being taken), got ", t));
               auto u = [&](double s) { return b1 * (1 - 0.5 * std::pow(0.96, s)); };
               double p_t = std::pow(b1, t) * nadam_q(t), u_t = u(t), u_next = u(t + 1);
               double c_m = u_next / (1 - p_t * u_next), c_g = (1 - u_t) / (1 - p_t);
               nadam_update(x[0]->dtype, x[0]->size, writable(x[0]), writable(x[1]), writable(x[2]), x[8]->data(), lr,
                            b1, b2, at(x, 7), c_m, c_g, std::pow(b2, t), 0.0);
             });
  def_update("ResourceApplyRMSProp", {"wvvssssg", {"var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"}},
             [](const OpDef&, const Tensors& x, const Attrs&) {
               rmsprop_update(x[0]->dtype, x[0]->size, writable(x[0]), writable(x[1]), nullptr, writable(x[2]),
                              x[7]->data(), at(x, 3), at(x, 4), at(x, 5), at(x, 6), 0.0);
             });
  def_update("ResourceApplyCenteredRMSProp", {"wvvvssssg", {"var", "mg", "ms", "mom", "lr", "rho", "momentum",
                                                            "epsilon", "grad"}},
             [](const OpDef&, const Tensors& x, const Attrs&) {
               rmsprop_update(x[0]->dtype, x[0]->size, writable(x[0]), writable(x[2]), writable(x[1]), writable(x[3]),
                              x[8]->data(), at(x, 4), at(x, 5), at(x, 6), at(x, 7), 0.0);
             });
  def_update("ResourceApplyAdagradV2", {"wvssg", {"var", "accum", "lr", "epsilon", "grad"}},
             [](const OpDef& op, const Tensors& x, const Attrs& a) {
               if (!a.b("update_slots", true)) throw Unimplemented(cat(op.name, ": update_slots=False is not supported"));
               adagrad_update(x[0]->dtype, x[0]->size, writable(x[0]), writable(x[1]), x[4]->data(), at(x, 2),
                              at(x, 3), 0.0);
             });
}

}  // namespace tg
