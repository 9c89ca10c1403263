// elementwise.cpp -- broadcast set-up for elementwise kernels: collapse dimensions, fill EwArgs.
#include "kernels/elementwise.h"
#include "core/error.h"
#include "kernels/ew_args.h"
#include "kernels/half.h"
#include "kernels/kernel_table.h"

namespace tg {

// Fills shape/strides for the output shape `out`, collapsing adjacent dimensions
// that every input treats the same way (both broadcast or both contiguous).
static void fill_strides(EwArgs& a, const Tensors& x, const Shape& out, const char* op) {
  const int nd = (int)out.size(), nin = (int)x.size();
  int64_t st[3][64];
  int64_t sh[64];
  if (nd > 64) throw InvalidArgument(cat(op, ": tensors of rank ", nd, " are not supported"));
  for (int k = 0; k < nin; ++k) {
    const Shape& s = x[k]->shape;
    int off = nd - (int)s.size();
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      int64_t dim = d < off ? 1 : s[d - off];
      st[k][d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
  }
  for (int d = 0; d < nd; ++d) sh[d] = out[d];
  // Collapse: walk from the innermost dimension, merging d into the current run when
  // for every input stride[d] == stride[run] * shape[run] (or both zero).
  int m = 0;
  int64_t cs[3][64], csh[64];
  for (int d = nd - 1; d >= 0; --d) {
    if (sh[d] == 1) continue;
    bool merge = m > 0;
    for (int k = 0; k < nin && merge; ++k)
      merge = (st[k][d] == 0 && cs[k][m - 1] == 0) ||
              (cs[k][m - 1] != 0 && st[k][d] == cs[k][m - 1] * csh[m - 1]);
    if (merge && m > 0) {
      // keep the inner stride; extend the run's length
      csh[m - 1] *= sh[d];
    } else {
      csh[m] = sh[d];
      for (int k = 0; k < nin; ++k) cs[k][m] = st[k][d];
      ++m;
    }
  }
  if (m == 0) {
    csh[0] = 1;
    for (int k = 0; k < nin; ++k) cs[k][0] = 0;
    m = 1;
  }
  if (m > kMaxDims)
    throw InvalidArgument(cat(op, ": broadcasting over more than ", kMaxDims, " distinct dimensions is not supported"));
  a.ndim = m;
  for (int d = 0; d < m; ++d) {  // reverse back to outer-first order
    a.shape[d] = csh[m - 1 - d];
    for (int k = 0; k < nin; ++k) a.stride[k][d] = cs[k][m - 1 - d];
  }
}

// Note [Unzeroed kernel arguments]: EwArgs is 320 bytes, and zeroing it was a tenth of a scalar op's
// set-up. A kernel reads the shape and strides of the first `ndim` dimensions and the strides of
// its own inputs only, and those are always written (fill_strides or the one-run path); the rest
// is set here.
// Note [float16 in float32]: an elementwise op on float16 (or bfloat16) inputs widens them to float32
// (exactly), runs the float32 kernel and rounds a half result once, as TF's CPU kernels compute half
// values in float. For +, -, *, / and sqrt that is the correctly rounded float16 result (float32
// holds more than twice float16's precision, so the double rounding cannot differ).
static Tensor run_in_float32(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m) {
  Tensors wide(x.size());
  for (size_t i = 0; i < x.size(); ++i) wide[i] = widened_if_half(x[i]);
  const bool half_out = is_half(m.dtype);
  Tensor r = run_elementwise(op, wide, attrs, {m.shape, half_out ? DType::Float32 : m.dtype});
  return half_out ? rounded_half(r, m.dtype) : r;
}

Tensor run_elementwise(const OpDef& op, const Tensors& x, const Attrs& attrs, const OutMeta& m) {
  // The kernel is chosen by the dtype of the last input (Select's condition is first).
  DType dt = x.back()->dtype;
  EwKernel k = ew_kernel(op, dt, active_isa());
  if (!k && is_half(dt)) return run_in_float32(op, x, attrs, m);
  if (!k) throw InvalidArgument(cat(op.name, ": no kernel for dtype ", dtype_name(dt)));
  Tensor out = empty(m.shape, m.dtype);
  if (out->size == 0) return out;
  EwArgs a;  // see Note [Unzeroed kernel arguments]
  for (size_t i = 0; i < 3; ++i) a.in[i] = i < x.size() ? x[i]->data() : nullptr;
  a.out = out->data();
  a.n = out->size;
  a.alpha = a.beta = 0;
  if (!attrs.items.empty()) {
    a.alpha = attrs.f("alpha", 0.0);
    a.beta = attrs.f("beta", 0.0);
  }
  // Inputs of the output's shape (storage is contiguous) collapse to one run: what fill_strides
  // would find, without its per-dimension walk (most small ops, scalars above all).
  bool same = m.shape.size() <= kMaxDims;  // (fill_strides refuses ranks above 64)
  for (auto& xi : x) same = same && xi->shape == m.shape;
  if (same) {
    a.ndim = 1;
    a.shape[0] = a.n;
    for (size_t i = 0; i < x.size(); ++i) a.stride[i][0] = a.n == 1 ? 0 : 1;  // (fill_strides: 0 for a size of 1)
  } else {
    fill_strides(a, x, m.shape, op.name.c_str());
  }
  k(a);
  return out;
}

bool run_elementwise_into(const OpDef& op, const TensorImpl* const* x, int n, const TensorImpl& out) {
  EwKernel k = ew_kernel(op, out.dtype, active_isa());
  if (!k) return false;
  EwArgs a;  // see Note [Unzeroed kernel arguments]
  a.in[1] = a.in[2] = nullptr;
  a.alpha = a.beta = 0;
  for (int i = 0; i < n; ++i) {
    a.in[i] = x[i]->data();
    a.stride[i][0] = out.size == 1 ? 0 : 1;  // (as fill_strides: 0 for a size of 1)
  }
  a.out = out.data();
  a.n = out.size;
  a.ndim = 1;
  a.shape[0] = a.n;
  if (a.n) k(a);
  return true;
}

}  // namespace tg
