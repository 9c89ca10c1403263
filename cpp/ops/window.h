// window.h -- a 2-D NHWC window op's geometry from its attributes, shared by the conv and pooling rows.
//
// Attributes (the Python wrappers normalise TF's forms to these):
//   strides [sh, sw], dilations [dh, dw] (default 1), padding "SAME" | "VALID" | "EXPLICIT",
//   explicit_paddings [top, bottom, left, right] (with "EXPLICIT").
// Output sizes follow TF: VALID (in - k_eff + s) / s, SAME ceil(in / s) with the padding split
// evenly (the extra row or column after), EXPLICIT (in + pads - k_eff + s) / s.
#pragma once
#include <algorithm>
#include "core/error.h"
#include "engine/registry.h"
#include "kernels/conv.h"

namespace tg {

// Strides, dilations, window sizes and paddings stay below 2^30, so that no size computed from
// them overflows int64.
constexpr int64_t kMaxWindow = int64_t(1) << 30;

inline std::vector<int64_t> pair_attr(const OpDef& op, const Attrs& a, const char* name) {
  std::vector<int64_t> v = a.ints(name);
  if (v.empty()) v = {1, 1};
  if (v.size() != 2 || v[0] < 1 || v[1] < 1 || v[0] > kMaxWindow || v[1] > kMaxWindow)
    throw InvalidArgument(cat(op.name, ": ", name, " must be two ints in [1, 2^30], got ", shape_str(v)));
  return v;
}

// in: the input shape [n, h, w, c]; kh, kw: the window; what(): the shapes involved, for messages
// (built only for an error).
template <class What>
Window2D window_2d(const OpDef& op, const Shape& in, int64_t kh, int64_t kw, const Attrs& a, What what) {
  Window2D g;
  g.n = in[0], g.h = in[1], g.w = in[2], g.c = in[3];
  g.kh = kh, g.kw = kw;
  auto s = pair_attr(op, a, "strides"), d = pair_attr(op, a, "dilations");
  g.sh = s[0], g.sw = s[1], g.dh = d[0], g.dw = d[1];
  const std::string padding = a.s("padding", "VALID");
  int64_t pads[4] = {0, 0, 0, 0};
  const int64_t ek[2] = {(kh - 1) * g.dh + 1, (kw - 1) * g.dw + 1}, size[2] = {g.h, g.w}, stride[2] = {g.sh, g.sw};
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    if (padding == "SAME") {
      out[i] = (size[i] + stride[i] - 1) / stride[i];
      const int64_t total = std::max<int64_t>((out[i] - 1) * stride[i] + ek[i] - size[i], 0);
      pads[2 * i] = total / 2;
      pads[2 * i + 1] = total - total / 2;
    } else if (padding == "VALID" || padding == "EXPLICIT") {
      if (padding == "EXPLICIT") {
        auto p = a.ints("explicit_paddings");
        if (p.size() != 4 || *std::min_element(p.begin(), p.end()) < 0 || *std::max_element(p.begin(), p.end()) > kMaxWindow)
          throw InvalidArgument(cat(op.name, ": explicit_paddings must be 4 ints in [0, 2^30], got ", shape_str(p)));
        pads[2 * i] = p[2 * i], pads[2 * i + 1] = p[2 * i + 1];
      }
      out[i] = (size[i] + pads[2 * i] + pads[2 * i + 1] - ek[i] + stride[i]) / stride[i];
      if (out[i] < 0)
        throw InvalidArgument(cat(op.name, ": computed output size would be negative: ", out[i], " [input_size: ",
                                  size[i], ", effective_filter_size: ", ek[i], ", stride: ", stride[i], "] for ", what()));
    } else {
      throw InvalidArgument(cat(op.name, ": padding must be \"SAME\", \"VALID\" or \"EXPLICIT\", got \"", padding, "\""));
    }
  }
  g.oh = out[0], g.ow = out[1], g.pt = pads[0], g.pl = pads[2];
  return g;
}

}  // namespace tg
