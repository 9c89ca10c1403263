// random.h -- the global seed of the random ops (see Note [Random streams] in random.cpp).
#pragma once
#include <cstdint>

namespace tg {

// Sets the global seed and restarts every stream: the calls that follow draw a fixed sequence.
void set_random_seed(int64_t seed);

}  // namespace tg
