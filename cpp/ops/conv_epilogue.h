// conv_epilogue.h -- Conv2D with a bias add and relu applied as it computes (Note [Epilogue fusion]
// in graph/epilogue.cpp).
#pragma once
#include "engine/registry.h"
#include "kernels/epilogue.h"

namespace tg {

// conv2d(x, w) with Conv2D's attributes `a`, then `ep`; m is Conv2D's inferred output.
Tensor conv2d_with_epilogue(const Tensor& x, const Tensor& w, const Attrs& a, const OutMeta& m, const Epilogue& ep);

}  // namespace tg
