// conv.cpp -- NHWC convolutions (Conv2D, DepthwiseConv2dNative) and their backprop ops, each itself differentiable.
//
// A convolution y = conv(x, w) is bilinear, and its two adjoints are ops of their own:
//   BackpropInput(w, dy)  = d<dy, conv(x, w)>/dx   (conv2d_transpose),
//   BackpropFilter(x, dy) = d<dy, conv(x, w)>/dw.
// Each of the three is bilinear in its two inputs, and the gradient of each is one of the other two,
// so every order of derivative is a convolution again. Attributes: see ops/window.h; the backprop
// ops also carry input_sizes / filter_sizes (the shape they produce).
#include "engine/forward.h"
#include "engine/math.h"
#include "ops/conv_epilogue.h"
#include "ops/window.h"
#include "ops/half_rows.h"

namespace tg {

namespace {

// The op names of one convolution family and whether its filter is depthwise ([kh, kw, c, m]).
struct ConvFamily {
  const char *fwd, *input, *filter;
  bool depthwise;
};
constexpr ConvFamily kConv{"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", false};
constexpr ConvFamily kDepthwise{"DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                                "DepthwiseConv2dNativeBackpropFilter", true};

int64_t out_channels(const ConvFamily& f, const Shape& w) { return f.depthwise ? w[2] * w[3] : w[3]; }

// Checks an input shape x and filter shape w against each other; returns the window geometry.
Window2D conv_window(const OpDef& op, const Shape& x, const Shape& w, const Attrs& a) {
  auto what = [&] { return cat("input ", shape_str(x), " and filter ", shape_str(w)); };
  if (x.size() != 4 || w.size() != 4)
    throw InvalidArgument(cat(op.name, ": input must be 4-D [batch, height, width, channels] and filter 4-D "
                              "[height, width, in_channels, out], got ", what()));
  for (int64_t d : x)
    if (d < 0) throw InvalidArgument(cat(op.name, ": negative dimension in ", what()));
  if (x[3] != w[2])
    throw InvalidArgument(cat(op.name, ": input depth ", x[3], " must equal the filter's in_channels ", w[2], " for ", what()));
  if (w[0] < 1 || w[1] < 1 || w[0] > kMaxWindow || w[1] > kMaxWindow)
    throw InvalidArgument(cat(op.name, ": the filter's height and width must be in [1, 2^30], got ", what()));
  return window_2d(op, x, w[0], w[1], a, what);
}

void check_floats(const OpDef& op, const Tensor& a, const Tensor& b) {
  if (!is_floating(a->dtype) || a->dtype != b->dtype)
    throw InvalidArgument(cat(op.name, ": inputs must be float32 or float64 of one dtype, got ", meta_str(a), " and ",
                              meta_str(b)));
}

Shape sizes_attr(const OpDef& op, const Attrs& a, const char* name) {
  Shape s = a.ints(name);
  if (s.size() != 4) throw InvalidArgument(cat(op.name, ": ", name, " must have 4 entries, got ", shape_str(s)));
  return s;
}

Shape out_shape(const ConvFamily& f, const Window2D& g, const Shape& w) { return {g.n, g.oh, g.ow, out_channels(f, w)}; }

void check_dy(const OpDef& op, const Shape& want, const Tensor& dy) {
  if (dy->shape != want)
    throw InvalidArgument(cat(op.name, ": out_backprop ", meta_str(dy), " must have the convolution's output shape ",
                              shape_str(want)));
}

// (x, w) -> y
template <const ConvFamily& F> OutMeta forward_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_floats(op, x[0], x[1]);
  Window2D g = conv_window(op, x[0]->shape, x[1]->shape, a);
  return {out_shape(F, g, x[1]->shape), x[0]->dtype};
}
// input_sizes; a batch of -1 is dy's (a traced rule's, Note [Sizes in traced rules]).
Shape input_sizes(const OpDef& op, const Attrs& a, const Tensor& dy) {
  Shape in = sizes_attr(op, a, "input_sizes");
  if (in[0] == -1 && dy->ndim() == 4) in[0] = dy->shape[0];
  return in;
}

// (w, dy) -> dx of shape input_sizes
template <const ConvFamily& F> OutMeta input_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_floats(op, x[0], x[1]);
  Shape in = input_sizes(op, a, x[1]);
  check_dy(op, out_shape(F, conv_window(op, in, x[0]->shape, a), x[0]->shape), x[1]);
  return {in, x[0]->dtype};
}
// (x, dy) -> dw of shape filter_sizes
template <const ConvFamily& F> OutMeta filter_infer(const OpDef& op, const Tensors& x, const Attrs& a) {
  check_floats(op, x[0], x[1]);
  Shape fs = sizes_attr(op, a, "filter_sizes");
  check_dy(op, out_shape(F, conv_window(op, x[0]->shape, fs, a), fs), x[1]);
  return {fs, x[0]->dtype};
}

}  // namespace

Tensor conv2d_with_epilogue(const Tensor& x, const Tensor& w, const Attrs& a, const OutMeta& m, const Epilogue& ep) {
  const OpDef& op = op_def(kConv.fwd);
  Tensor out = empty(m.shape, m.dtype);
  conv2d_forward(conv_window(op, x->shape, w->shape, a), x, w, out, ep);
  return out;
}

namespace {

template <const ConvFamily& F> Tensor forward_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  if (!F.depthwise) return conv2d_with_epilogue(x[0], x[1], a, m, {});
  Tensor out = empty(m.shape, m.dtype);
  depthwise_forward(conv_window(op, x[0]->shape, x[1]->shape, a), x[0], x[1], out);
  return out;
}
template <const ConvFamily& F> Tensor input_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor dx = empty(m.shape, m.dtype);
  Window2D g = conv_window(op, m.shape, x[0]->shape, a);
  (F.depthwise ? depthwise_backprop_input : conv2d_backprop_input)(g, x[0], x[1], dx);
  return dx;
}
template <const ConvFamily& F> Tensor filter_kernel(const OpDef& op, const Tensors& x, const Attrs& a, const OutMeta& m) {
  Tensor dw = empty(m.shape, m.dtype);
  Window2D g = conv_window(op, x[0]->shape, m.shape, a);
  (F.depthwise ? depthwise_backprop_filter : conv2d_backprop_filter)(g, x[0], x[1], dw);
  return dw;
}

// The window attributes of a rule's op (without the produced shape of a backprop op).
Attrs window_attrs(const Attrs& a) {
  Attrs r;
  for (auto& kv : a.items)
    if (kv.first != "input_sizes" && kv.first != "filter_sizes") r.items.push_back(kv);
  return r;
}
Attrs with_size(const Attrs& a, const char* name, const Shape& s) { return window_attrs(a).set(name, s); }

Tensor conv(const ConvFamily& f, const Tensor& x, const Tensor& w, const Attrs& a) { return call(f.fwd, {x, w}, window_attrs(a)); }
Tensor conv_input(const ConvFamily& f, const Tensor& w, const Tensor& dy, const Shape& in, const Attrs& a) {
  return call(f.input, {w, dy}, with_size(a, "input_sizes", in));
}
Tensor conv_filter(const ConvFamily& f, const Tensor& x, const Tensor& dy, const Shape& fs, const Attrs& a) {
  return call(f.filter, {x, dy}, with_size(a, "filter_sizes", fs));
}

// y = conv(x, w): dx = BackpropInput(w, g), dw = BackpropFilter(x, g).
template <const ConvFamily& F> Tensors forward_grad(GradCtx& ctx) {
  const Tensor &x = ctx.x[0], &w = ctx.x[1];
  Tensors r(2);
  if (ctx.needs_grad[0]) r[0] = conv_input(F, w, ctx.g, traced_shape(x->shape), ctx.attrs);
  if (ctx.needs_grad[1]) r[1] = conv_filter(F, x, ctx.g, w->shape, ctx.attrs);
  return r;
}
// dx = BackpropInput(w, dy): <g, dx> = <conv(g, w), dy>, so d/dw = BackpropFilter(g, dy), d/ddy = conv(g, w).
template <const ConvFamily& F> Tensors input_grad(GradCtx& ctx) {
  const Tensor &w = ctx.x[0], &dy = ctx.x[1];
  Tensors r(2);
  if (ctx.needs_grad[0]) r[0] = conv_filter(F, ctx.g, dy, w->shape, ctx.attrs);
  if (ctx.needs_grad[1]) r[1] = conv(F, ctx.g, w, ctx.attrs);
  return r;
}
// dw = BackpropFilter(x, dy): <g, dw> = <conv(x, g), dy>, so d/dx = BackpropInput(g, dy), d/ddy = conv(x, g).
template <const ConvFamily& F> Tensors filter_grad(GradCtx& ctx) {
  const Tensor &x = ctx.x[0], &dy = ctx.x[1];
  Tensors r(2);
  if (ctx.needs_grad[0]) r[0] = conv_input(F, ctx.g, dy, x->shape, ctx.attrs);
  if (ctx.needs_grad[1]) r[1] = conv(F, x, ctx.g, ctx.attrs);
  return r;
}

// A bilinear op f(a, b): df = f(ta, b) + f(a, tb).
JvpFn bilinear_jvp(const char* name) {
  return [name](const Tensors& x, const Tensor&, const Tensors& tx, const Attrs& a) -> Tensor {
    Tensor r;
    if (tx[0]) r = call(name, {tx[0], x[1]}, a);
    if (tx[1]) {
      Tensor t = call(name, {x[0], tx[1]}, a);
      r = r ? r + t : t;
    }
    return r;
  };
}

template <const ConvFamily& F> void register_family() {
  def_op(F.fwd).inputs(2).shape(half_infer<forward_infer<F>>).forward(half_kernel<forward_kernel<F>>).also_types(kHalfTypes).gradient(forward_grad<F>)
      .jvp(bilinear_jvp(F.fwd));
  def_op(F.input).inputs(2).shape(half_infer<input_infer<F>>).forward(half_kernel<input_kernel<F>>).also_types(kHalfTypes).gradient(input_grad<F>)
      .jvp(bilinear_jvp(F.input));
  def_op(F.filter).inputs(2).shape(half_infer<filter_infer<F>>).forward(half_kernel<filter_kernel<F>>).also_types(kHalfTypes).gradient(filter_grad<F>)
      .jvp(bilinear_jvp(F.filter));
}

}  // namespace


void register_conv_ops() {
  register_family<kConv>();
  register_family<kDepthwise>();
}

}  // namespace tg
