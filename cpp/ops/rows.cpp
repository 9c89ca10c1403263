// rows.cpp -- SetRow and ResizeRows: the ops a graph loop collects its per-iteration results with
// (TensorArray writes and stack, map_fn's and scan's outputs), a buffer [rows, ...] written one row
// at a time.
//
// SetRow(buffer, index, value): the buffer with row `index` replaced by value (of the row's shape,
// or a scalar for every element of the row). Attr grow (default false): an index past the last row
// grows the buffer to max(index + 1, 2 x rows) rows, zeros beyond the old ones, so a loop that
// appends one row per iteration copies O(rows) elements in all (a dynamic_size TensorArray). An
// index out of range otherwise is an error. Run by a graph whose executor donates the buffer (the
// loop's own, read by nothing else: Note [Donated loop variables] in graph/executor.cpp), the row is
// written in place, so a loop of n writes costs O(n) rows, not O(n^2).
// ResizeRows(x, n): the first n rows of x, zero rows past its end (a grown buffer cut to its size);
// with attr like, n is the row count of the second input (a shape, not a value: map_fn's padded
// buffer cut to the rows of elems).
#include <algorithm>
#include <cstring>
#include "core/error.h"
#include "engine/forward.h"
#include "engine/math.h"

namespace tg {

namespace {

int64_t int_scalar(const OpDef& op, const Tensor& t, const char* what) {
  if (!is_integer(t->dtype) || t->size != 1 || t->ndim() > 1)
    throw InvalidArgument(cat(op.name, ": ", what, " must be an integer scalar, got ", meta_str(t)));
  return t->dtype == DType::Int64 ? *t->data_as<int64_t>() : (int64_t)*t->data_as<int32_t>();
}

Shape row_shape(const Tensor& buffer) { return Shape(buffer->shape.begin() + 1, buffer->shape.end()); }

void check_buffer(const OpDef& op, const Tensor& buffer) {
  if (buffer->ndim() == 0) throw InvalidArgument(cat(op.name, ": buffer must have rank >= 1, got ", meta_str(buffer)));
}

// The rows SetRow's output has: the buffer's, or more when it grows for an index past its end.
int64_t set_row_rows(const OpDef& op, const Tensors& x, const Attrs& a) {
  const int64_t rows = x[0]->shape[0], i = int_scalar(op, x[1], "index");
  return a.b("grow") && i >= rows ? std::max(i + 1, 2 * rows) : rows;
}

OutMeta set_row_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  const Tensor &buffer = x[0], &value = x[2];
  check_buffer(op, buffer);
  int_scalar(op, x[1], "index");
  if (value->dtype != buffer->dtype)
    throw InvalidArgument(cat(op.name, ": value of ", meta_str(value), " for a buffer of ", meta_str(buffer),
                              ": the dtypes differ"));
  if (value->ndim() != 0 && value->shape != row_shape(buffer))
    throw InvalidArgument(cat(op.name, ": value of ", meta_str(value), " does not have the row shape ",
                              shape_str(row_shape(buffer)), " of the buffer ", meta_str(buffer)));
  Shape out = buffer->shape;
  out[0] = set_row_rows(op, x, a);
  return {out, buffer->dtype};
}

// Row `index` checked against the buffer (every run: a graph runs its shape rules only at the trace).
int64_t checked_row(const OpDef& op, const Tensors& x, const Attrs& a, int64_t out_rows) {
  const int64_t i = int_scalar(op, x[1], "index"), rows = x[0]->shape[0];
  if (i < 0 || (i >= rows && !a.b("grow")))
    throw InvalidArgument(cat(op.name, ": index ", i, " is out of range for a buffer of ", rows, " rows (",
                              meta_str(x[0]), ")"));
  if (i >= out_rows) throw Internal(cat(op.name, ": index ", i, " is past the ", out_rows, " rows of the output"));
  // (a graph runs with its traced shapes: a value of another size at run time must not be misread)
  const Shape row = row_shape(x[0]);
  if (x[2]->ndim() != 0 && x[2]->shape != row)
    throw InvalidArgument(cat(op.name, ": value of ", meta_str(x[2]), " does not have the row shape ", shape_str(row),
                              " of the buffer ", meta_str(x[0])));
  return i;
}

void write_row(const Tensor& out, int64_t i, const Tensor& value) {
  const size_t es = dtype_size(out->dtype);
  const int64_t per_row = out->shape[0] ? out->size / out->shape[0] : 0;
  char* dst = static_cast<char*>(out->data()) + (size_t)(i * per_row) * es;
  if (value->size == per_row) {
    std::memcpy(dst, value->data(), (size_t)per_row * es);
    return;
  }
  for (int64_t k = 0; k < per_row; ++k) std::memcpy(dst + (size_t)k * es, value->data(), es);  // a scalar for the row
}

Tensor set_row_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  const int64_t i = checked_row(op, x, a, m.shape[0]);
  if (x[0]->shape[0] > m.shape[0] || row_shape(x[0]) != Shape(m.shape.begin() + 1, m.shape.end()))
    throw Internal(cat(op.name, ": buffer ", meta_str(x[0]), " does not fit the output ", shape_str(m.shape)));
  Tensor out = empty(m.shape, m.dtype);
  const size_t kept = x[0]->nbytes();
  if (kept) std::memcpy(out->data(), x[0]->data(), kept);
  if (out->nbytes() > kept) std::memset(static_cast<char*>(out->data()) + kept, 0, out->nbytes() - kept);
  write_row(out, i, x[2]);
  return out;
}

// In place when the donated buffer keeps its size (Note [Donated loop variables]).
Tensor set_row_in_place(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (m.shape[0] != x[0]->shape[0]) return nullptr;
  const int64_t i = checked_row(op, x, a, m.shape[0]);
  Tensor out = view(x[0], m.shape);
  write_row(out, i, x[2]);
  return out;
}

// x cut or padded to the rows of `like` (its shape, read when the op runs: a traced rule serves every size).
Tensor resize_rows_like(const Tensor& x, const Tensor& like) {
  return call("ResizeRows", {x, like}, Attrs().set("like", true));
}

// d out / d buffer: g with the written row zeroed (cut back to the buffer's rows if it grew);
// d out / d value: g's row (summed over the row for a scalar value).
Tensors set_row_grad(GradCtx& ctx) {
  const Tensor &buffer = ctx.x[0], &index = ctx.x[1], &value = ctx.x[2];
  Tensor gb, gv;
  // The row first: then the SetRow is g's last reader, and a backward loop writes it in place.
  if (ctx.needs_grad[2]) gv = sum_to(call("GatherV2", {ctx.g, index}, Attrs().set("axis", (int64_t)0)), value->shape);
  if (ctx.needs_grad[0]) {
    gb = call("SetRow", {ctx.g, index, scalar_like(ctx.g, 0.0)});
    if (ctx.attrs.b("grow")) gb = resize_rows_like(gb, buffer);
  }
  return {gb, nullptr, gv};
}

Tensor set_row_jvp(const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) {
  if (!tx[0] && !tx[2]) return nullptr;
  return call("SetRow", {tx[0] ? tx[0] : zeros_like(x[0]), x[1], tx[2] ? tx[2] : scalar_like(x[0], 0.0)}, a);
}

// The rows asked for: the value of n, or with attr like the rows of the second input.
int64_t resize_rows_count(const OpDef& op, const Tensors& x, const Attrs& a) {
  if (!a.b("like")) return int_scalar(op, x[1], "n");
  if (x[1]->ndim() == 0) throw InvalidArgument(cat(op.name, ": like must have rank >= 1, got ", meta_str(x[1])));
  return x[1]->shape[0];
}

OutMeta resize_rows_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_buffer(op, x[0]);
  Shape out = x[0]->shape;
  out[0] = std::max<int64_t>(resize_rows_count(op, x, a), 0);  // (a negative n is refused by the kernel)
  return {out, x[0]->dtype};
}

Tensor resize_rows_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  const int64_t n = resize_rows_count(op, x, a);
  if (n < 0) throw InvalidArgument(cat(op.name, ": n must be >= 0, got ", n, " for ", meta_str(x[0])));
  if (n != m.shape[0]) throw Internal(cat(op.name, ": ", n, " rows asked for an output of ", shape_str(m.shape)));
  Tensor out = empty(m.shape, m.dtype);
  const size_t kept = std::min(x[0]->nbytes(), out->nbytes());
  if (kept) std::memcpy(out->data(), x[0]->data(), kept);
  if (out->nbytes() > kept) std::memset(static_cast<char*>(out->data()) + kept, 0, out->nbytes() - kept);
  return out;
}

// SetRow's rule reads the buffer only for its row count when it grew.
bool set_row_grad_reads(int i, const Attrs& a) { return i != 0 || a.b("grow"); }

bool unless_like(const Attrs& a) { return !a.b("like"); }
bool when_growing(const Attrs& a) { return a.b("grow"); }

}  // namespace

void register_rows_ops() {
  def_op("SetRow").inputs(3).shape(set_row_infer).forward(set_row_kernel).gradient(set_row_grad).jvp(set_row_jvp)
      .shape_from_values(when_growing).writes_into_input(set_row_in_place).grad_reads(set_row_grad_reads);
  def_op("ResizeRows").inputs(2).shape(resize_rows_infer).forward(resize_rows_kernel).shape_from_values(unless_like)
      .gradient([](GradCtx& ctx) -> Tensors { return {resize_rows_like(ctx.g, ctx.x[0]), nullptr}; })
      .jvp(linear_jvp("ResizeRows"));
}

}  // namespace tg
