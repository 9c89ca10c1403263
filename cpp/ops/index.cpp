// index.cpp -- index ops (see the rows below).
#include "core/error.h"
#include "engine/math.h"

namespace tg {

void register_index_ops() {}

}  // namespace tg
