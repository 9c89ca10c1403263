// epilogue.h -- a bias add and a relu applied to a producer's output while it is still in cache
// (Note [Epilogue fusion] in graph/epilogue.cpp).
#pragma once
#include <cstdint>
#include "core/tensor.h"

namespace tg {

struct Epilogue {
  const void* bias = nullptr;  // [O] in the output's dtype, or null
  bool relu = false;
  bool active() const { return bias || relu; }
};

// y[r, j] = relu?(y[r, j] + bias[j]) for the `rows` rows of an [rows, O] block: the values
// Add and Relu would give (x <= 0 ? 0 : x keeps NaN and turns -0 into 0).
template <class T> inline void apply_epilogue_rows(const Epilogue& e, T* y, int64_t rows, int64_t O) {
  const T* b = static_cast<const T*>(e.bias);
  for (int64_t r = 0; r < rows; ++r, y += O) {
    if (b)
      for (int64_t j = 0; j < O; ++j) y[j] += b[j];
    if (e.relu)
      for (int64_t j = 0; j < O; ++j) y[j] = y[j] <= T(0) ? T(0) : y[j];
  }
}

// The epilogue over all of y (float32 or float64, last dimension O), on the kernel threads.
void apply_epilogue(const Epilogue& e, Tensor& y);

}  // namespace tg
