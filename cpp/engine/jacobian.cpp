// jacobian.cpp -- jacobians as batched reverse sweeps (see jacobian.h), pruned by the sweep itself.
#include "engine/jacobian.h"
#include <algorithm>
#include "core/error.h"
#include "engine/math.h"

namespace tg {

namespace {

// Rows [r0, r0 + rows) of the identity over the target's elements, shaped [rows] + shape.
// With `repeat` > 1 (batch_jacobian) each row has a one at column j of every batch example.
Tensor identity_rows(int64_t r0, int64_t rows, const Shape& shape, DType dtype, int64_t repeat) {
  Shape s = shape;
  s.insert(s.begin(), rows);
  Tensor seed = zeros(s, dtype);
  const int64_t per_row = num_elements(shape), cols = repeat > 0 ? per_row / repeat : 0;  // repeat 0: an empty batch
  auto fill_ones = [&](auto one) {
    auto* p = seed->data_as<decltype(one)>();
    for (int64_t k = 0; k < rows; ++k)
      for (int64_t rep = 0; rep < repeat; ++rep) p[k * per_row + rep * cols + r0 + k] = one;
    return 0;
  };
  if (dtype == DType::Float16) fill_ones(uint16_t{0x3c00});  // 1.0 in float16's bits
  else if (dtype == DType::BFloat16) fill_ones(uint16_t{0x3f80});  // 1.0 in bfloat16's
  else dispatch_dtype(dtype, [&](auto v) { return fill_ones(decltype(v)(1)); });
  return seed;
}

// One sweep over rows [r0, r0 + rows): per source, the gradients [rows] + source.shape (null
// where the sweep gives none).
Tensors sweep_rows(Tape& tape, const JacobianRequest& req, int64_t r0, int64_t rows, int64_t repeat) {
  GradientRequest g;
  g.targets = {req.target};
  g.sources = req.sources;
  g.keep_tape = true;
  Tensor seed = identity_rows(r0, rows, req.target->shape, req.target->dtype, repeat);
  if (req.use_pfor) {
    g.batch = 1;
    g.output_gradients = {seed};
  } else {
    g.output_gradients = {reshape(seed, req.target->shape)};
  }
  Tensors r = gradient(tape, g);
  for (size_t i = 0; i < r.size(); ++i) {
    if (!r[i]) continue;
    Shape s = req.sources[i]->shape;
    s.insert(s.begin(), rows);
    if (rows == 0) r[i] = zeros(s, r[i]->dtype);  // unbatched, an empty target still gives a source-shaped gradient
    else if (r[i]->shape != s) r[i] = reshape(r[i], s);
  }
  return r;
}

// Per source, the stacked rows [n_rows] + source.shape: one sweep per chunk of rows. A source
// the sweep gives no gradient in any chunk is unconnected (See Note [Untracked sources]).
Tensors jacobian_rows(Tape& tape, const JacobianRequest& req, int64_t n_rows, int64_t repeat) {
  if (!tape.persistent && tape.used)
    throw TapeMisuse("A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)");
  int64_t chunk = req.parallel_iterations;
  if (chunk <= 0 || chunk > n_rows) chunk = n_rows;
  if (!req.use_pfor) chunk = 1;
  std::vector<Tensors> parts(req.sources.size());
  std::vector<bool> connected(req.sources.size(), false);
  // A target with no elements still takes one (empty) sweep: a connected source gets its 0-size
  // jacobian, as TF gives it, not None.
  for (int64_t r0 = 0; r0 < n_rows || (r0 == 0 && n_rows == 0); r0 += std::max<int64_t>(chunk, 1)) {
    const int64_t rows = std::min(chunk, n_rows - r0);
    Tensors g = sweep_rows(tape, req, r0, rows, repeat);
    for (size_t i = 0; i < g.size(); ++i) {
      connected[i] = connected[i] || g[i];
      parts[i].push_back(g[i]);
    }
  }
  if (!tape.persistent) {
    tape.used = true;
    tape.entries.clear();
  }
  Tensors out(req.sources.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const Tensor& s = req.sources[i];
    if (!any_floating(s->dtype) || !(connected[i] || req.unconnected_zero)) continue;
    int64_t r0 = 0;
    for (auto& p : parts[i]) {  // a chunk without a gradient is zero
      const int64_t rows = std::min(chunk, n_rows - r0);
      if (!p) {
        Shape shape = s->shape;
        shape.insert(shape.begin(), rows);
        p = zeros(shape, s->dtype);
      }
      r0 += rows;
    }
    out[i] = parts[i].empty() ? nullptr : parts[i].size() == 1 ? parts[i][0] : concat(parts[i], 0);
  }
  return out;
}

}  // namespace

Tensors jacobian(Tape& tape, const JacobianRequest& req) {
  Tensors rows = jacobian_rows(tape, req, req.target->size, 1);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i]) continue;
    Shape s = req.target->shape;
    s.insert(s.end(), req.sources[i]->shape.begin(), req.sources[i]->shape.end());
    rows[i] = reshape(rows[i], s);
  }
  return rows;
}

Tensor batch_jacobian(Tape& tape, const JacobianRequest& req) {
  const Tensor &t = req.target, &x = req.sources.at(0);
  if (t->ndim() < 1 || x->ndim() < 1 || t->shape[0] != x->shape[0])
    throw InvalidArgument(cat("GradientTape.batch_jacobian: target ", meta_str(t), " and source ", meta_str(x),
                              " must share their first (batch) dimension"));
  const int64_t b = t->shape[0], per = num_elements(Shape(t->shape.begin() + 1, t->shape.end()));
  // Row j: a one at element j of every example -> d y[i, j] / d x[i] for all i at once.
  Tensor rows = jacobian_rows(tape, req, per, b)[0];
  if (!rows) return nullptr;
  // rows: [per, b, x...] -> [b, per, x...] -> [b] + t.shape[1:] + x.shape[1:]
  std::vector<int64_t> perm = {1, 0};
  for (int d = 2; d < x->ndim() + 1; ++d) perm.push_back(d);
  Shape s = t->shape;
  s.insert(s.end(), x->shape.begin() + 1, x->shape.end());
  return reshape(transpose(rows, perm), s);
}

}  // namespace tg
