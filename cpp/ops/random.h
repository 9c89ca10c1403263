// random.h -- the global seed of the random ops (see Note [Random streams] in random.cpp).
#pragma once
#include <cstdint>
#include <unordered_map>

namespace tg {

// Sets the global seed and restarts every stream: the calls that follow draw a fixed sequence.
void set_random_seed(int64_t seed);

// The position of every stream (a dry trace puts them back: get_concrete_function draws nothing).
using RandomCounters = std::unordered_map<int64_t, uint64_t>;
RandomCounters random_counters();
void set_random_counters(const RandomCounters& c);

}  // namespace tg
