// conv.h -- NHWC convolution and pooling kernels (float32/float64) over one window geometry.
#pragma once
#include "core/tensor.h"
#include "kernels/epilogue.h"

namespace tg {

// Where a 2-D window sits for each output pixel: output pixel (oy, ox) reads input rows
// oy * sh - pt + ky * dh and columns ox * sw - pl + kx * dw; positions outside the input are
// padding (zeros for convolutions, skipped by pooling).
struct Window2D {
  int64_t n = 0, h = 0, w = 0, c = 0;  // input batch, height, width, channels
  int64_t kh = 1, kw = 1;              // window (filter) height and width
  int64_t oh = 0, ow = 0;              // output height and width
  int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  int64_t pt = 0, pl = 0;              // padding before the first row / column
};

// Convolution with filter w [kh, kw, c, o]: out [n, oh, ow, o] (im2col + GEMM); `ep` is applied to
// each block of images as soon as it is computed.
void conv2d_forward(const Window2D& g, const Tensor& x, const Tensor& w, Tensor& out, const Epilogue& ep = {});
// Its adjoints: dx [n, h, w, c] from w and dy [n, oh, ow, o]; dw [kh, kw, c, o] from x and dy.
void conv2d_backprop_input(const Window2D& g, const Tensor& w, const Tensor& dy, Tensor& dx);
void conv2d_backprop_filter(const Window2D& g, const Tensor& x, const Tensor& dy, Tensor& dw);

// Depthwise convolution with w [kh, kw, c, m]: out [n, oh, ow, c * m], channel c * m + j from input channel c.
void depthwise_forward(const Window2D& g, const Tensor& x, const Tensor& w, Tensor& out);
void depthwise_backprop_input(const Window2D& g, const Tensor& w, const Tensor& dy, Tensor& dx);
void depthwise_backprop_filter(const Window2D& g, const Tensor& x, const Tensor& dy, Tensor& dw);

// Max pooling over the valid positions of each window (NaN wins); the gradient goes to the first
// maximum of each window; max_pool_gather reads t (input-shaped) at those positions.
void max_pool(const Window2D& g, const Tensor& x, Tensor& out);
void max_pool_scatter(const Window2D& g, const Tensor& x, const Tensor& dy, Tensor& dx);
void max_pool_gather(const Window2D& g, const Tensor& x, const Tensor& t, Tensor& out);
// Average pooling: the mean over the valid positions of each window (padding is not counted).
void avg_pool(const Window2D& g, const Tensor& x, Tensor& out);
void avg_pool_backprop(const Window2D& g, const Tensor& dy, Tensor& dx);

}  // namespace tg
