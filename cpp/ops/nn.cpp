// nn.cpp -- nn ops (see the rows below).
#include "core/error.h"
#include "engine/math.h"

namespace tg {

void register_nn_ops() {}

}  // namespace tg
