// einsum.cpp -- Einsum of two operands (attr equation such as 'bqhd,bkhd->bhqk'): one contraction
// as batched GEMMs on strided views (kernels/contract.h). tf.einsum reduces every equation to these
// (diagonals, lone sums and ellipses are taken first, in Python).
#include <climits>
#include <string>
#include "core/error.h"
#include "engine/forward.h"
#include "engine/math.h"
#include "kernels/contract.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

// 'ab,bc->ac' as the labels of each operand and of the output.
struct Equation {
  std::string a, b, out;
};

Equation parse(const OpDef& op, const Tensors& x, const Attrs& attrs) {
  const std::string eq = attrs.s("equation");
  auto bad = [&](const std::string& why) {
    return InvalidArgument(cat(op.name, ": equation '", eq, "' ", why, " for operands ", meta_str(x[0]), " and ",
                               meta_str(x[1])));
  };
  const size_t comma = eq.find(','), arrow = eq.find("->");
  if (comma == std::string::npos || arrow == std::string::npos || comma > arrow)
    throw bad("must have the form 'ab,bc->ac'");
  Equation e{eq.substr(0, comma), eq.substr(comma + 1, arrow - comma - 1), eq.substr(arrow + 2)};
  for (const std::string* t : {&e.a, &e.b, &e.out})
    for (size_t i = 0; i < t->size(); ++i) {
      const char c = (*t)[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
        throw bad("has a character other than a letter in a term (this op takes no '...')");
      if (t->find(c, i + 1) != std::string::npos) throw bad(cat("repeats label '", std::string(1, c), "' in one term"));
    }
  if ((int64_t)e.a.size() != x[0]->ndim() || (int64_t)e.b.size() != x[1]->ndim())
    throw bad("does not name every axis of the operands");
  for (char c : e.out)
    if (e.a.find(c) == std::string::npos && e.b.find(c) == std::string::npos)
      throw bad(cat("has output label '", std::string(1, c), "' in no operand"));
  for (char c : e.a + e.b)
    if (e.out.find(c) == std::string::npos && (e.a.find(c) == std::string::npos || e.b.find(c) == std::string::npos))
      throw bad(cat("sums label '", std::string(1, c), "' of one operand only (sum it first)"));
  for (size_t i = 0; i < e.a.size(); ++i) {
    const size_t j = e.b.find(e.a[i]);
    if (j != std::string::npos && x[0]->shape[i] != x[1]->shape[j])
      throw bad(cat("gives label '", std::string(1, e.a[i]), "' the sizes ", x[0]->shape[i], " and ", x[1]->shape[j]));
  }
  return e;
}

int64_t label_size(const Equation& e, const Tensors& x, char c) {
  const size_t i = e.a.find(c);
  return i != std::string::npos ? x[0]->shape[i] : x[1]->shape[e.b.find(c)];
}

OutMeta einsum_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (x[0]->dtype != x[1]->dtype || !is_floating(x[0]->dtype))
    throw InvalidArgument(cat(op.name, ": operands must be float tensors of one dtype, got ", meta_str(x[0]), " and ",
                              meta_str(x[1])));
  const Equation e = parse(op, x, a);
  Shape out;
  for (char c : e.out) out.push_back(label_size(e, x, c));
  int64_t m = 1, n = 1, k = 1;
  for (char c : e.a)
    if (e.b.find(c) == std::string::npos) m *= label_size(e, x, c);
    else if (e.out.find(c) == std::string::npos) k *= label_size(e, x, c);
  for (char c : e.b)
    if (e.a.find(c) == std::string::npos) n *= label_size(e, x, c);
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    throw InvalidArgument(cat(op.name, ": a matrix of the contraction exceeds 2^31 - 1 rows or columns for operands ",
                              meta_str(x[0]), " and ", meta_str(x[1])));
  return {out, x[0]->dtype};
}

// Element strides of a contiguous tensor of `shape` by axis.
std::vector<int64_t> strides_of(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int d = (int)shape.size() - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

Tensor einsum_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  const Equation e = parse(op, x, a);
  Tensor out = empty(m.shape, m.dtype);
  if (out->size == 0) return out;
  const std::vector<int64_t> sa = strides_of(x[0]->shape), sb = strides_of(x[1]->shape), sc = strides_of(m.shape);
  auto stride = [](const std::string& labels, const std::vector<int64_t>& s, char c) -> int64_t {
    const size_t i = labels.find(c);
    return i == std::string::npos ? 0 : s[i];
  };
  Contraction p;
  auto add = [&](char c) {
    ContractDim d{label_size(e, x, c), stride(e.a, sa, c), stride(e.b, sb, c), stride(e.out, sc, c)};
    const bool in_a = e.a.find(c) != std::string::npos, in_b = e.b.find(c) != std::string::npos;
    const bool kept = e.out.find(c) != std::string::npos;
    (in_a && in_b ? (kept ? p.batch : p.k) : in_a ? p.m : p.n).push_back(d);
  };
  for (char c : e.a) add(c);
  for (char c : e.b)
    if (e.a.find(c) == std::string::npos) add(c);
  contract(p, m.dtype, x[0]->data(), x[1]->data(), out->data());
  return out;
}

Tensor einsum(const Tensor& x, const Tensor& y, const std::string& eq) {
  return call("Einsum", {x, y}, Attrs().set("equation", eq));
}

// A letter in no term, for a batched sweep's leading axis (Note [Batched gradients]).
char free_label(const Equation& e) {
  for (char c = 'A'; c <= 'z'; ++c)
    if ((c <= 'Z' || c >= 'a') && (e.a + e.b + e.out).find(c) == std::string::npos) return c;
  throw InvalidArgument("Einsum: no letter is left for the jacobian's batch axis");
}

}  // namespace

void register_einsum_ops() {
  // dA = einsum(out,b->a)(g, B), dB = einsum(out,a->b)(g, A): the labels of one operand that the
  // other lacks are kept in g, the ones it shares are summed or batched as in the forward.
  def_op("Einsum").inputs(2).shape(half_infer<einsum_infer>).forward(half_kernel<einsum_kernel>).also_types(kHalfTypes).batched()
      .gradient([](GradCtx& ctx) -> Tensors {
        const Equation e = parse(op_def("Einsum"), ctx.x.vec(), ctx.attrs);
        const std::string lead = ctx.batch ? std::string(1, free_label(e)) : "";
        Tensors r(2);
        if (ctx.needs_grad[0]) r[0] = einsum(ctx.g, ctx.x[1], lead + e.out + "," + e.b + "->" + lead + e.a);
        if (ctx.needs_grad[1]) r[1] = einsum(ctx.g, ctx.x[0], lead + e.out + "," + e.a + "->" + lead + e.b);
        return r;
      })
      .jvp([](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
        Tensor r;
        if (tx[0]) r = call("Einsum", {tx[0], x[1]}, a);
        if (tx[1]) {
          Tensor t = call("Einsum", {x[0], tx[1]}, a);
          r = r ? r + t : t;
        }
        return r;
      });
}

}  // namespace tg
