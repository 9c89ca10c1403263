// optim.cpp -- bindings of the fused optimizer kernels: validate, unshare storage, update in place.
#include <pybind11/pybind11.h>
#include "bindings/convert.h"
#include "core/error.h"
#include "kernels/optim.h"

namespace tg {

namespace {

// Kernels at least this large run without the GIL.
constexpr int64_t kReleaseGilMin = 1 << 15;

// The variable or slot as an engine tensor; checks it is a variable matching `like`.
// An optional slot may be None (the kernel then skips it).
Tensor state(const char* op, const char* what, py::handle obj, const Tensor& like, bool optional = false) {
  if (obj.is_none()) {
    if (optional) return nullptr;
    throw InvalidArgument(cat(op, ": ", what, " must be a Variable, got None"));
  }
  if (!py::isinstance<TensorImpl>(obj))
    throw InvalidArgument(cat(op, ": ", what, " must be a Variable, got ", py::str(py::type::of(obj)).cast<std::string>()));
  Tensor t = obj.cast<Tensor>();
  if (!t->is_variable || !t->storage)
    throw InvalidArgument(cat(op, ": ", what, " must be a Variable, got a Tensor of ", meta_str(t)));
  if (like && (t->dtype != like->dtype || t->shape != like->shape))
    throw InvalidArgument(cat(op, ": ", what, " of ", meta_str(t), " does not match the variable of ", meta_str(like)));
  // Tapes and views may still hold the old value: update a private copy then, as assign does.
  if (t->storage.use_count() > 1) {
    auto fresh = std::make_shared<Storage>(t->nbytes());
    std::memcpy(fresh->data, t->data(), t->nbytes());
    t->storage = fresh;
    t->offset = 0;
  }
  return t;
}

Tensor gradient(const char* op, py::handle obj, const Tensor& var) {
  if (!py::isinstance<TensorImpl>(obj))
    throw InvalidArgument(cat(op, ": the gradient must be a Tensor, got ", py::str(py::type::of(obj)).cast<std::string>()));
  Tensor g = obj.cast<Tensor>();
  if (g->dtype != var->dtype || g->shape != var->shape)
    throw InvalidArgument(cat(op, ": gradient of ", meta_str(g), " does not match the variable of ", meta_str(var)));
  return g;
}

void* ptr(const Tensor& t) { return t ? t->data() : nullptr; }

// Runs the kernel, without the GIL when it is large.
template <class F> void launch(const Tensor& var, F&& kernel) {
  if (var->size >= kReleaseGilMin) {
    py::gil_scoped_release nogil;
    kernel();
  } else {
    kernel();
  }
}

}  // namespace

void bind_optim(py::module_& m) {
  m.def("sgd_update", [](py::handle var, py::handle mom, py::handle grad, double lr, double momentum, bool nesterov,
                         double decay) {
    Tensor x = state("SGD", "variable", var, nullptr), p = state("SGD", "momentum", mom, x, true);
    Tensor g = gradient("SGD", grad, x);
    launch(x, [&] { sgd_update(x->dtype, x->size, x->data(), ptr(p), g->data(), lr, momentum, nesterov, decay); });
  }, py::arg("var"), py::arg("momentum_slot"), py::arg("grad"), py::arg("lr"), py::arg("momentum"),
     py::arg("nesterov"), py::arg("decay") = 0.0);

  m.def("adam_update", [](py::handle var, py::handle m1, py::handle m2, py::handle vmax, py::handle grad,
                          double alpha, double b1, double b2, double eps, double decay) {
    Tensor x = state("Adam", "variable", var, nullptr);
    Tensor m = state("Adam", "m", m1, x), v = state("Adam", "v", m2, x), vm = state("Adam", "vhat", vmax, x, true);
    Tensor g = gradient("Adam", grad, x);
    launch(x, [&] { adam_update(x->dtype, x->size, x->data(), ptr(m), ptr(v), ptr(vm), g->data(), alpha, b1, b2, eps, decay); });
  }, py::arg("var"), py::arg("m"), py::arg("v"), py::arg("vhat"), py::arg("grad"), py::arg("alpha"),
     py::arg("beta_1"), py::arg("beta_2"), py::arg("epsilon"), py::arg("decay") = 0.0);

  m.def("nadam_update", [](py::handle var, py::handle m1, py::handle m2, py::handle grad, double lr, double b1,
                           double b2, double eps, double c_m, double c_g, double b2_power, double decay) {
    Tensor x = state("Nadam", "variable", var, nullptr);
    Tensor m = state("Nadam", "m", m1, x), v = state("Nadam", "v", m2, x);
    Tensor g = gradient("Nadam", grad, x);
    launch(x, [&] { nadam_update(x->dtype, x->size, x->data(), ptr(m), ptr(v), g->data(), lr, b1, b2, eps, c_m, c_g, b2_power, decay); });
  }, py::arg("var"), py::arg("m"), py::arg("v"), py::arg("grad"), py::arg("lr"), py::arg("beta_1"),
     py::arg("beta_2"), py::arg("epsilon"), py::arg("c_m"), py::arg("c_g"), py::arg("beta_2_power"),
     py::arg("decay") = 0.0);

  m.def("rmsprop_update", [](py::handle var, py::handle s1, py::handle a1, py::handle mom, py::handle grad, double lr,
                             double rho, double momentum, double eps, double decay) {
    Tensor x = state("RMSprop", "variable", var, nullptr);
    Tensor s = state("RMSprop", "velocity", s1, x), a = state("RMSprop", "average gradient", a1, x, true);
    Tensor p = state("RMSprop", "momentum", mom, x, true);
    Tensor g = gradient("RMSprop", grad, x);
    launch(x, [&] { rmsprop_update(x->dtype, x->size, x->data(), ptr(s), ptr(a), ptr(p), g->data(), lr, rho, momentum, eps, decay); });
  }, py::arg("var"), py::arg("velocity"), py::arg("average_gradient"), py::arg("momentum_slot"), py::arg("grad"),
     py::arg("lr"), py::arg("rho"), py::arg("momentum"), py::arg("epsilon"), py::arg("decay") = 0.0);

  m.def("adagrad_update", [](py::handle var, py::handle acc1, py::handle grad, double lr, double eps, double decay) {
    Tensor x = state("Adagrad", "variable", var, nullptr), acc = state("Adagrad", "accumulator", acc1, x);
    Tensor g = gradient("Adagrad", grad, x);
    launch(x, [&] { adagrad_update(x->dtype, x->size, x->data(), ptr(acc), g->data(), lr, eps, decay); });
  }, py::arg("var"), py::arg("accumulator"), py::arg("grad"), py::arg("lr"), py::arg("epsilon"), py::arg("decay") = 0.0);
}

}  // namespace tg
