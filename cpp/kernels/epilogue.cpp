// epilogue.cpp -- the bias-and-relu epilogue over a whole output (kernels/epilogue.h).
#include "kernels/epilogue.h"
#include "kernels/work_pool.h"

namespace tg {

void apply_epilogue(const Epilogue& e, Tensor& y) {
  if (!e.active() || y->size == 0) return;
  const int64_t O = y->shape.back();
  if (O == 0) return;
  const int64_t rows = y->size / O;
  auto run = [&](auto* data) {
    auto body = [&](int64_t lo, int64_t hi) { apply_epilogue_rows(e, data + lo * O, hi - lo, O); };
    parallel_ranges(rows, std::max<int64_t>(1, 16384 / O), 1, body);
  };
  if (y->dtype == DType::Float64) run(y->data_as<double>());
  else run(y->data_as<float>());
}

}  // namespace tg
