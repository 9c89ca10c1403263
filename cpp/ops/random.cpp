// random.cpp -- stateful random ops: each call draws new values from a counter-based generator.
//
// Note [Random streams]: the state is kept here, not in the graph: a global seed and one counter
// per stream (a stream per op seed, plus the stream of ops without one). A call takes the next
// counter of its stream and element i of its output is a hash of (stream key, counter, i), so a
// traced op draws new values at every call of its graph, and set_random_seed (tf.random.set_seed)
// makes the whole sequence of calls reproducible, as TensorFlow's global and op seeds do.
// The hash is SplitMix64's finalizer over a Weyl sequence (Steele, Lea and Flood 2014).
#include "ops/random.h"
#include <cmath>
#include <mutex>
#include <random>
#include <unordered_map>
#include "core/error.h"
#include "engine/registry.h"
#include "kernels/half.h"

namespace tg {

namespace {

constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;
constexpr int64_t kParallelMin = 1 << 15;

uint64_t fmix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct RandomState {
  std::mutex mu;
  int64_t global_seed;
  std::unordered_map<int64_t, uint64_t> counters;  // op seed (-1: none) -> calls so far
  RandomState() {
    std::random_device rd;
    global_seed = (int64_t)((uint64_t)rd() << 32 | rd());
  }
};

RandomState& state() {
  static RandomState s;
  return s;
}

// The key of this call's values: global seed, op seed and the stream's next counter.
uint64_t next_stream(int64_t op_seed) {
  RandomState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  uint64_t c = s.counters[op_seed]++;
  uint64_t key = fmix((uint64_t)s.global_seed * kGamma + (op_seed < 0 ? 0x5DEECE66Dull : fmix((uint64_t)op_seed + 1)));
  return fmix(key ^ fmix((c + 1) * 0xD1B54A32D192ED03ull));
}

inline uint64_t bits(uint64_t stream, int64_t i) { return fmix(stream + (uint64_t)(i + 1) * kGamma); }

// The shape: attribute `shape`, or the one input, a 1-D integer tensor (a run-time shape in a graph
// that serves several sizes, Note [Relaxed graphs]).
Shape random_shape(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x.empty()) return a.ints("shape");
  if (x.size() != 1 || !is_integer(x[0]->dtype) || x[0]->ndim() != 1)
    throw InvalidArgument(cat(op.name, ": the shape input must be one 1-D integer tensor, got ", x.size(), " inputs",
                              x.empty() ? "" : cat(", the first ", meta_str(x[0]))));
  Shape s(x[0]->size);
  for (int64_t i = 0; i < x[0]->size; ++i)
    s[i] = x[0]->dtype == DType::Int64 ? x[0]->data_as<int64_t>()[i] : x[0]->data_as<int32_t>()[i];
  return s;
}

OutMeta random_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape s = random_shape(op, x, a);
  for (int64_t d : s)
    if (d < 0) throw InvalidArgument(cat(op.name, ": shape ", shape_str(s), " has a negative dimension"));
  int64_t d = a.i("dtype", (int64_t)DType::Float32);
  if (d != (int64_t)DType::Float32 && d != (int64_t)DType::Float64 && !(is_valid_dtype((int)d) && is_half((DType)d)))
    throw InvalidArgument(cat(op.name, ": dtype must be float16, bfloat16, float32 or float64, got dtype code ", d));
  return {s, (DType)d};
}

// Uniform in [0, 1): the top 24 (float) or 53 (double) bits.
template <class T> T unit(uint64_t b) {
  if constexpr (sizeof(T) == 4) return (T)(b >> 40) * (T)(1.0 / 16777216.0);
  else return (T)(b >> 11) * (T)(1.0 / 9007199254740992.0);
}

Tensor uniform_kernel(const OpDef&, const Tensors&, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  uint64_t stream = next_stream(a.i("seed", -1));
  const int64_t n = out->size;
  auto fill = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
#pragma omp parallel for if (n >= kParallelMin)
    for (int64_t i = 0; i < n; ++i) p[i] = unit<T>(bits(stream, i));
  };
  if (m.dtype == DType::Float32) fill(out->data_as<float>());
  else if (m.dtype == DType::Float64) fill(out->data_as<double>());
  else {  // a half type: its own mantissa's worth of bits (10 or 7), so no value rounds up to 1
    const int mantissa = m.dtype == DType::Float16 ? 10 : 7;
    std::vector<float> f((size_t)n);
    for (int64_t i = 0; i < n; ++i) f[(size_t)i] = std::ldexp((float)(bits(stream, i) >> (64 - mantissa)), -mantissa);
    half_bits_from_floats(m.dtype, f.data(), out->data_as<uint16_t>(), n);
  }
  return out;
}

// Box-Muller on pairs: elements 2k and 2k+1 are r cos(2 pi u2) and r sin(2 pi u2),
// r = sqrt(-2 log u1), u1 in (0, 1] and u2 in [0, 1) from the pair's two hashes.
Tensor normal_kernel(const OpDef&, const Tensors&, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  uint64_t stream = next_stream(a.i("seed", -1));
  const int64_t n = out->size, pairs = (n + 1) / 2;
  auto fill = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
#pragma omp parallel for if (n >= kParallelMin)
    for (int64_t k = 0; k < pairs; ++k) {
      double u1 = ((bits(stream, 2 * k) >> 11) + 1) * (1.0 / 9007199254740992.0);
      double u2 = unit<double>(bits(stream, 2 * k + 1));
      double r = std::sqrt(-2.0 * std::log(u1)), th = 6.283185307179586 * u2;
      p[2 * k] = (T)(r * std::cos(th));
      if (2 * k + 1 < n) p[2 * k + 1] = (T)(r * std::sin(th));
    }
  };
  if (m.dtype == DType::Float32) fill(out->data_as<float>());
  else if (m.dtype == DType::Float64) fill(out->data_as<double>());
  else {  // a half type: the double draws rounded once
    std::vector<double> d((size_t)n);
    fill(d.data());
    half_bits_from_doubles(m.dtype, d.data(), out->data_as<uint16_t>(), n);
  }
  return out;
}

}  // namespace

RandomCounters random_counters() {
  RandomState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.counters;
}

void set_random_counters(const RandomCounters& c) {
  RandomState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.counters = c;
}

void set_random_seed(int64_t seed) {
  RandomState& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.global_seed = seed;
  s.counters.clear();
}

void register_random_ops() {
  // Attributes shape (or one input, the shape as a tensor), dtype (float32/float64) and seed (-1:
  // none), Note [Random streams].
  // given their shape as a tensor computed in a trace (attribute shape_input), value-shaped
  auto from_input = [](const Attrs& a) { return a.i("shape_input", 0) != 0; };
  def_op("RandomUniform").inputs(-1).shape(random_infer).forward(uniform_kernel).has_side_effects()
      .shape_from_values(from_input, 0);
  def_op("RandomStandardNormal").inputs(-1).shape(random_infer).forward(normal_kernel).has_side_effects()
      .shape_from_values(from_input, 0);
}

}  // namespace tg
