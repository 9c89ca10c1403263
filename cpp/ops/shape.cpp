// shape.cpp -- ops that change shape or dtype: Reshape (a view), Cast, BroadcastTo, Transpose,
// Identity, StopGradient, and the copies ConcatV2, Pad and Tile.
#include "core/error.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "engine/observer.h"
#include "kernels/copy.h"
#include "kernels/half.h"
#include <vector>
#include <limits>

namespace tg {

// In sized_by_values.cpp: the gradients of ConcatV2, Pad and Tile in a trace whose sizes vary with
// values (Note [Gradients of sized copies]).
Tensors concat_grad_at_run_time(const Tensor& g, const Tensors& pieces, int64_t axis, const std::vector<bool>& needs);
Tensor pad_grad_at_run_time(const Tensor& g, const Tensor& x, const std::vector<int64_t>& paddings);
Tensor tile_grad_at_run_time(const Tensor& g, const Tensor& x, const std::vector<int64_t>& multiples);

namespace {

Tensor view_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) { return view(x[0], m.shape); }

OutMeta same_meta(const OpDef&, const Tensors& x, const Attrs&) { return {x[0]->shape, x[0]->dtype}; }

OutMeta reshape_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape s = a.ints("shape");
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      if (infer_at >= 0) throw InvalidArgument(cat(op.name, ": only one dimension may be -1, got shape ", shape_str(s)));
      infer_at = (int)i;
    } else if (s[i] < 0) {
      throw InvalidArgument(cat(op.name, ": invalid target shape ", shape_str(s)));
    } else {
      if (__builtin_mul_overflow(known, s[i], &known))
        throw InvalidArgument(cat(op.name, ": target shape ", shape_str(s), " has too many elements"));
    }
  }
  if (infer_at >= 0) {
    // TF's rule: zero dimensions of the target are left out of its product, and then zero dimensions
    // of the input out of its element count, so (0, 3) -> [3, 0, -1] infers 1 and [-1, 0] infers 3.
    bool target_has_zero = false;
    int64_t product = 1;
    for (size_t i = 0; i < s.size(); ++i)
      if ((int)i != infer_at) {
        if (s[i] == 0) target_has_zero = true;
        else product *= s[i];
      }
    int64_t count = 1;
    for (int64_t d : x[0]->shape)
      if (d > 0 || !target_has_zero) count *= d;
    s[infer_at] = count / product;
    if (num_elements(s) != x[0]->size || (!target_has_zero && count % product != 0))
      throw InvalidArgument(cat(op.name, ": cannot reshape ", meta_str(x[0]), " to ", shape_str(a.ints("shape"))));
  } else if (known != x[0]->size) {
    throw InvalidArgument(cat(op.name, ": cannot reshape ", meta_str(x[0]), " (", x[0]->size, " elements) to ",
                              shape_str(s), " (", known, " elements)"));
  }
  return {s, x[0]->dtype};
}

OutMeta cast_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  int64_t d = a.i("dtype", -1);
  if (!is_valid_dtype((int)d) || d != (int64_t)(int)d) throw InvalidArgument(cat(op.name, ": invalid target dtype code ", d));
  return {x[0]->shape, (DType)d};
}

// Note [Casts from floats to integers]: truncation toward zero; a value outside the target's range
// (undefined behaviour in C++) gives what TF's conversion on x86 gives element by element (its
// scalar path; TF's vectorized loop differs for some unsigned targets, by position in the array):
//   int32, int64: NaN, +-inf and out-of-range values give the lowest value (cvtt*'s "integer indefinite");
//   8- and 16-bit types: the int32 conversion's low bits (300.7 -> uint8 44, -1.0 -> 255);
//   uint32: the int64 conversion's low 32 bits;
//   uint64: values in [2^63, 2^64) exactly, others the int64 conversion's bits (-1.0 -> 2^64 - 1),
//   NaN, +-inf and values beyond 2^64 give 2^63.
// hi = 2^(bits-1) is exact in float and double; in range means -hi - 1 < v < hi (for float
// -hi - 1 rounds to -hi, which maps to the lowest value either way).
template <class D, class S> D float_to_int(S v) {
  if constexpr (sizeof(D) < 4) {
    return (D)float_to_int<int32_t>(v);
  } else if constexpr (std::is_same_v<D, uint32_t>) {
    return (D)float_to_int<int64_t>(v);
  } else if constexpr (std::is_same_v<D, uint64_t>) {
    const S two63 = (S)9223372036854775808.0;
    if (v >= two63 && v < two63 * 2) return (uint64_t)(v - two63) + (uint64_t{1} << 63);
    return (uint64_t)float_to_int<int64_t>(v);
  } else {
    const S hi = -(S)std::numeric_limits<D>::lowest();
    return v < hi && v > -hi - S(1) ? (D)v : std::numeric_limits<D>::lowest();
  }
}

template <class D, class S> void cast_values(const S* s, D* d, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<D, bool>) {
      d[i] = s[i] != S(0);  // NaN -> true, as TF
    } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
      d[i] = float_to_int<D>(s[i]);
    } else {
      d[i] = (D)s[i];  // integers wrap to the target's width (modulo 2^bits), as TF
    }
  }
}

// The half types are held as bits: a half input is widened to float32 first (exactly), and a half
// result is rounded once from the source's value (float32, float64, or an integer through double).
// float16 <-> bfloat16 goes through float32, which holds both exactly.
Tensor cast_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  Tensor in = x[0];
  const int64_t n = out->size;
  if (is_half(in->dtype)) {
    if (m.dtype == in->dtype) return copy(in);
    in = widened_half(in);
  }
  if (is_half(m.dtype)) {
    uint16_t* h = out->data_as<uint16_t>();
    if (in->dtype == DType::Float32) {
      half_bits_from_floats(m.dtype, in->data_as<float>(), h, n);
    } else if (in->dtype == DType::Float64) {
      half_bits_from_doubles(m.dtype, in->data_as<double>(), h, n);
    } else {
      std::vector<double> v((size_t)n);
      dispatch_real(in->dtype, [&](auto a) { cast_values(in->data_as<decltype(a)>(), v.data(), n); return 0; });
      half_bits_from_doubles(m.dtype, v.data(), h, n);
    }
    return out;
  }
  dispatch_real(in->dtype, [&](auto a) {
    using S = decltype(a);
    return dispatch_real(m.dtype, [&](auto b) {
      cast_values(in->data_as<S>(), out->data_as<decltype(b)>(), n);
      return 0;
    });
  });
  return out;
}

// Shape: the dimensions of x as a 1-d int32/int64 tensor (a run-time value in a relaxed graph).
OutMeta shape_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  int64_t d = a.i("out_type", (int64_t)DType::Int32);
  if (d != (int64_t)DType::Int32 && d != (int64_t)DType::Int64)
    throw InvalidArgument(cat(op.name, ": out_type must be int32 or int64, got dtype code ", d));
  return {{(int64_t)x[0]->ndim()}, (DType)d};
}

Tensor shape_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  for (int i = 0; i < x[0]->ndim(); ++i) {
    if (m.dtype == DType::Int32) out->data_as<int32_t>()[i] = (int32_t)x[0]->shape[i];
    else out->data_as<int64_t>()[i] = x[0]->shape[i];
  }
  return out;
}

OutMeta broadcast_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  Shape target = a.ints("shape"), out;
  if (!broadcast_shapes(x[0]->shape, target, out) || out != target)
    throw InvalidArgument(cat(op.name, ": cannot broadcast ", meta_str(x[0]), " to shape ", shape_str(target)));
  return {target, x[0]->dtype};
}

// BroadcastLike(x, like): x broadcast to like's shape (like's values are not read). The sweep uses it
// in traces to give a gradient its tensor's full shape at run time (Note [Sizes in traced rules]).
OutMeta broadcast_like_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  Shape out;
  if (!broadcast_shapes(x[0]->shape, x[1]->shape, out) || out != x[1]->shape)
    throw InvalidArgument(cat(op.name, ": cannot broadcast ", meta_str(x[0]), " to the shape of ", meta_str(x[1])));
  return {out, x[0]->dtype};
}

// SumToLike(g, like): g brought to like's shape, aligned from the right: summed over g's leading axes
// and the axes where like has 1, broadcast along the axes where g has 1 (like's values are not
// read). Its own adjoint (with the roles swapped). The sweep uses it in traces whose sizes vary with
// values, where whether an axis is summed or broadcast is known only at run time (Note [Sizes in
// traced rules]).
OutMeta sum_to_like_infer(const OpDef& op, const Tensors& x, const Attrs&) {
  const Tensor &g = x[0], &like = x[1];
  if (g->dtype == DType::Bool) throw InvalidArgument(cat(op.name, ": expected a numeric tensor, got ", meta_str(g)));
  const int n = std::min(g->ndim(), like->ndim());
  for (int i = 1; i <= n; ++i) {
    const int64_t a = g->shape[g->ndim() - i], b = like->shape[like->ndim() - i];
    if (a != b && a != 1 && b != 1)
      throw InvalidArgument(cat(op.name, ": cannot bring ", meta_str(g), " to the shape of ", meta_str(like)));
  }
  return {like->shape, g->dtype};
}

Tensor sum_to_like_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  const Tensor& g = x[0];
  const int lead = g->ndim() - (int)m.shape.size();  // > 0: g's axes to sum; < 0: like's axes to broadcast
  // 1) r: g summed over its leading axes and the axes where like has 1, in like's rank
  Shape r_shape(m.shape.size(), 1);
  for (size_t i = 0; i < m.shape.size(); ++i) {
    const int gi = (int)i + lead;
    if (gi >= 0 && m.shape[i] != 1) r_shape[i] = g->shape[gi];
  }
  Tensor r = zeros(r_shape, m.dtype);
  const auto r_strides = contiguous_strides(r_shape);
  std::vector<int64_t> step(g->ndim(), 0);  // r's stride per axis of g (0: summed)
  for (int d = 0; d < g->ndim(); ++d) {
    const int i = d - lead;
    if (i >= 0 && r_shape[i] != 1) step[d] = r_strides[i];
  }
  dispatch_dtype(m.dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* src = g->data_as<T>();
      T* dst = r->data_as<T>();
      std::vector<int64_t> at(g->ndim(), 0);
      int64_t o = 0;
      for (int64_t k = 0; k < g->size; ++k) {
        dst[o] += src[k];
        for (int d = g->ndim() - 1; d >= 0; --d) {  // next index of g, row-major
          o += step[d];
          if (++at[d] < g->shape[d]) break;
          o -= step[d] * at[d];
          at[d] = 0;
        }
      }
    }
    return 0;
  });
  if (r_shape == m.shape) return r;
  // 2) broadcast along the axes where r has 1
  Tensor out = empty(m.shape, m.dtype);
  std::vector<int64_t> st(m.shape.size(), 0);
  for (size_t i = 0; i < m.shape.size(); ++i) st[i] = r_shape[i] == 1 ? 0 : r_strides[i];
  strided_copy(r->data(), out->data(), dtype_size(m.dtype), m.shape, st);
  return out;
}

Tensor broadcast_kernel(const OpDef&, const Tensors& x, const Attrs&, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  auto src = contiguous_strides(x[0]->shape);
  std::vector<int64_t> st(m.shape.size(), 0);
  int off = (int)m.shape.size() - x[0]->ndim();
  for (int d = 0; d < x[0]->ndim(); ++d) st[d + off] = x[0]->shape[d] == 1 ? 0 : src[d];
  strided_copy(x[0]->data(), out->data(), dtype_size(m.dtype), m.shape, st);
  return out;
}

OutMeta transpose_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  auto perm = a.ints("perm");
  const int nd = x[0]->ndim();
  if (!a.has("perm")) for (int i = 0; i < nd; ++i) perm.push_back(nd - 1 - i);
  std::vector<bool> seen(nd, false);
  if ((int)perm.size() != nd) throw InvalidArgument(cat(op.name, ": perm has ", perm.size(), " entries for input ", meta_str(x[0])));
  Shape s;
  for (int64_t p : perm) {
    if (p < 0 || p >= nd || seen[p]) throw InvalidArgument(cat(op.name, ": perm is not a permutation of 0..", nd - 1));
    seen[p] = true;
    s.push_back(x[0]->shape[p]);
  }
  return {s, x[0]->dtype};
}

std::vector<int64_t> full_perm(const Tensor& x, const Attrs& a) {
  auto perm = a.ints("perm");
  if (!a.has("perm")) for (int i = 0; i < x->ndim(); ++i) perm.push_back(x->ndim() - 1 - i);
  return perm;
}

Tensor transpose_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  auto src = contiguous_strides(x[0]->shape);
  auto perm = full_perm(x[0], a);
  std::vector<int64_t> st;
  for (int64_t p : perm) st.push_back(src[p]);
  strided_copy(x[0]->data(), out->data(), dtype_size(m.dtype), m.shape, st);
  return out;
}

// The slice [begin, begin + size) of g with unit strides (see Note [Normalised slices] in index.cpp).
Tensor slice_of(const Tensor& g, const std::vector<int64_t>& begin, const Shape& size) {
  std::vector<int64_t> end(begin.size()), ones(begin.size(), 1);
  for (size_t d = 0; d < begin.size(); ++d) end[d] = begin[d] + size[d];
  return call("StridedSlice", {g}, Attrs().set("begin", begin).set("end", end).set("strides", ones));
}

// ConcatV2(x_0, ..., x_n-1; axis): inputs agree on every dimension but `axis`.
OutMeta concat_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x.empty()) throw InvalidArgument(cat(op.name, ": expected at least one input"));
  if (x[0]->ndim() == 0) throw InvalidArgument(cat(op.name, ": cannot concatenate scalars, got ", meta_str(x[0])));
  const int axis = normalize_axis(a.i("axis"), x[0]->ndim(), op.name.c_str());
  Shape s = x[0]->shape;
  s[axis] = 0;
  for (auto& xi : x) {
    bool ok = xi->dtype == x[0]->dtype && xi->ndim() == x[0]->ndim();
    for (int d = 0; ok && d < xi->ndim(); ++d) ok = d == axis || xi->shape[d] == x[0]->shape[d];
    if (!ok) throw InvalidArgument(cat(op.name, ": cannot concatenate ", meta_str(xi), " with ", meta_str(x[0]), " along axis ", axis));
    s[axis] += xi->shape[axis];
  }
  return {s, x[0]->dtype};
}

Tensor concat_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  const int axis = normalize_axis(a.i("axis"), (int)m.shape.size(), op.name.c_str());
  const auto cs = contiguous_strides(m.shape);
  const size_t es = dtype_size(m.dtype);
  int64_t at = 0;
  for (auto& xi : x) {
    strided_scatter(xi->data(), (char*)out->data() + at * cs[axis] * es, es, xi->shape, cs);
    at += xi->shape[axis];
  }
  return out;
}

// d concat / d x_i: the slice of g that x_i filled.
Tensors concat_grad(GradCtx& ctx) {
  const int axis = normalize_axis(ctx.attrs.i("axis"), ctx.g->ndim(), "ConcatV2");
  if (sizes_vary_with_values() && !ctx.batch) return concat_grad_at_run_time(ctx.g, ctx.x.vec(), axis, ctx.needs_grad);
  Tensors r(ctx.x.size());
  std::vector<int64_t> begin(ctx.g->ndim(), 0);
  for (size_t i = 0; i < ctx.x.size(); ++i) {
    if (ctx.needs_grad[i]) r[i] = slice_of(ctx.g, begin, ctx.x[i]->shape);
    begin[axis] += ctx.x[i]->shape[axis];
  }
  return r;
}

// Pad(x; paddings = [before_0, after_0, ...], constant_values): x surrounded by a constant.
std::vector<int64_t> pad_before(const Tensor& x, const Attrs& a) {
  auto p = a.ints("paddings");
  std::vector<int64_t> b;
  for (int d = 0; d < x->ndim(); ++d) b.push_back(p[2 * d]);
  return b;
}

OutMeta pad_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  auto p = a.ints("paddings");
  if (p.size() != 2 * (size_t)x[0]->ndim())
    throw InvalidArgument(cat(op.name, ": paddings must have shape [", x[0]->ndim(), ", 2] for input ", meta_str(x[0]),
                              ", got ", p.size(), " values"));
  Shape s = x[0]->shape;
  for (int d = 0; d < x[0]->ndim(); ++d) {
    if (p[2 * d] < 0 || p[2 * d + 1] < 0)
      throw InvalidArgument(cat(op.name, ": paddings must be non-negative, got ", p[2 * d], ", ", p[2 * d + 1],
                                " for dimension ", d, " of ", meta_str(x[0])));
    int64_t size = 0;  // TF's message for a size past int64
    if (__builtin_add_overflow(s[d], p[2 * d], &size) || __builtin_add_overflow(size, p[2 * d + 1], &size))
      throw InvalidArgument(cat(op.name, ": Expected a non-negative size, got a size past int64 for dimension ", d,
                                " of ", meta_str(x[0]), " padded by ", p[2 * d], ", ", p[2 * d + 1]));
    s[d] = size;
  }
  return {s, x[0]->dtype};
}

Tensor pad_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = full(m.shape, m.dtype, a.f("constant_values", 0.0));
  const auto cs = contiguous_strides(m.shape), before = pad_before(x[0], a);
  int64_t at = 0;
  for (size_t d = 0; d < cs.size(); ++d) at += before[d] * cs[d];
  const size_t es = dtype_size(m.dtype);
  if (x[0]->size) strided_scatter(x[0]->data(), (char*)out->data() + at * es, es, x[0]->shape, cs);
  return out;
}

// Tile(x; multiples): out[i] = x[i mod shape], copied from x seen as [m0, d0, m1, d1, ...] with zero
// strides on the m axes.
OutMeta tile_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype == DType::UInt16)  // TF's Tile kernel has no uint16 (a hole in its type list, kept)
    throw Unimplemented(cat(op.name, ": TileOp : The input data type is not supported, DataType : uint16"));
  auto m = a.ints("multiples");
  if (m.size() != (size_t)x[0]->ndim())
    throw InvalidArgument(cat(op.name, ": multiples has ", m.size(), " entries for input ", meta_str(x[0])));
  Shape s = x[0]->shape;
  for (size_t d = 0; d < m.size(); ++d) {
    if (m[d] < 0) throw InvalidArgument(cat(op.name, ": multiples must be non-negative, got ", m[d], " for input ", meta_str(x[0])));
    if (__builtin_mul_overflow(s[d], m[d], &s[d]))
      throw InvalidArgument(cat(op.name, ": multiples are too large for input ", meta_str(x[0])));
  }
  num_elements(s);  // throws if the total overflows
  return {s, x[0]->dtype};
}

Shape interleaved(const Tensor& x, const Attrs& a) {  // [m0, d0, m1, d1, ...]
  auto m = a.ints("multiples");
  Shape s;
  for (int d = 0; d < x->ndim(); ++d) { s.push_back(m[d]); s.push_back(x->shape[d]); }
  return s;
}

Tensor tile_kernel(const OpDef&, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor out = empty(m.shape, m.dtype);
  const auto cs = contiguous_strides(x[0]->shape);
  std::vector<int64_t> st;
  for (int64_t c : cs) { st.push_back(0); st.push_back(c); }
  if (out->size) strided_copy(x[0]->data(), out->data(), dtype_size(m.dtype), interleaved(x[0], a), st);
  return out;
}

// d tile / dx: g seen as [m0, d0, m1, d1, ...], summed over the m axes.
Tensors tile_grad(GradCtx& ctx) {
  if (ctx.x[0]->ndim() == 0) return {ctx.g};
  if (sizes_vary_with_values() && !ctx.batch) return {tile_grad_at_run_time(ctx.g, ctx.x[0], ctx.attrs.ints("multiples"))};
  std::vector<int64_t> axes;
  for (int d = 0; d < ctx.x[0]->ndim(); ++d) axes.push_back(2 * d);
  return {reduce_sum(reshape(ctx.g, interleaved(ctx.x[0], ctx.attrs)), axes, false)};
}

}  // namespace

void register_shape_ops() {
  def_op("Reshape").also_types(kAllTypes).shape(reshape_infer).forward(view_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors {
        if (sizes_vary_with_values() && !ctx.batch) return {call("ReshapeLike", {ctx.g, ctx.x[0]})};  // (see there)
        return {reshape(ctx.g, traced_shape(batched_shape(ctx, ctx.x[0]->shape)))};
      })
      .jvp(linear_jvp("Reshape"));
  def_op("Cast").shape(cast_infer).forward(cast_kernel).batched().also_types(kAllTypes)
      .gradient([](GradCtx& ctx) -> Tensors {                       // float -> float only
        bool ok = any_floating(ctx.x[0]->dtype) && any_floating(ctx.out->dtype);
        return {ok ? cast(ctx.g, ctx.x[0]->dtype) : nullptr};
      })
      .jvp(linear_jvp("Cast"));  // only float outputs carry tangents
  def_op("BroadcastTo").also_types(kAllTypes).shape(broadcast_infer).forward(broadcast_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {ctx.g}; })  // summed back by the engine
      .jvp(linear_jvp("BroadcastTo"));
  def_op("BroadcastLike").inputs(2).shape(broadcast_like_infer).forward(broadcast_kernel)
      .gradient([](GradCtx& ctx) -> Tensors { return {ctx.g, nullptr}; })  // summed back by the engine
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) -> Tensor {
        return tx[0] ? call("BroadcastLike", {tx[0], x[1]}) : nullptr;
      });
  def_op("SumToLike").inputs(2).shape(sum_to_like_infer).forward(sum_to_like_kernel)
      .gradient([](GradCtx& ctx) -> Tensors { return {call("SumToLike", {ctx.g, ctx.x[0]}), nullptr}; })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs&) -> Tensor {
        return tx[0] ? call("SumToLike", {tx[0], x[1]}) : nullptr;
      });
  def_op("Transpose").also_types(kAllTypes).shape(transpose_infer).forward(transpose_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors {                       // transpose by the inverse perm
        auto perm = full_perm(ctx.x[0], ctx.attrs);
        std::vector<int64_t> inv(ctx.batch + perm.size());
        for (int b = 0; b < ctx.batch; ++b) inv[b] = b;
        for (size_t i = 0; i < perm.size(); ++i) inv[ctx.batch + perm[i]] = ctx.batch + (int64_t)i;
        return {transpose(ctx.g, inv)};
      })
      .jvp(linear_jvp("Transpose"));
  def_op("Identity").also_types(kAllTypes).shape(same_meta).forward(view_kernel).batched()
      .gradient([](GradCtx& ctx) -> Tensors { return {ctx.g}; })
      .jvp([](const Tensors&, const Tensor&, const Tensors& tx, const Attrs&) { return tx[0]; });
  def_op("StopGradient").also_types(kAllTypes).shape(same_meta).forward(view_kernel).not_differentiable();
  def_op("Shape").also_types(kAllTypes).shape(shape_infer).forward(shape_kernel).not_differentiable();
  def_op("ConcatV2").also_types(kAllTypes).inputs(-1).shape(concat_infer).forward(concat_kernel).gradient(concat_grad)
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) {  // concat of the tangents
        Tensors t(x.size());
        for (size_t i = 0; i < x.size(); ++i) t[i] = tx[i] ? tx[i] : zeros_like(x[i]);
        return call("ConcatV2", t, a);
      });
  def_op("Pad").also_types(kAllTypes).shape(pad_infer).forward(pad_kernel)
      .gradient([](GradCtx& ctx) -> Tensors {                       // the interior of g
        if (sizes_vary_with_values() && !ctx.batch) return {pad_grad_at_run_time(ctx.g, ctx.x[0], ctx.attrs.ints("paddings"))};
        return {slice_of(ctx.g, pad_before(ctx.x[0], ctx.attrs), ctx.x[0]->shape)};
      })
      .jvp([](const Tensors&, const Tensor&, const Tensors& tx, const Attrs& a) {  // the constant's tangent is 0
        Attrs z = a;
        return call("Pad", {tx[0]}, z.set("constant_values", 0.0));
      });
  def_op("Tile").also_types(kAllTypes).shape(tile_infer).forward(tile_kernel).gradient(tile_grad).jvp(linear_jvp("Tile"));
}

}  // namespace tg
