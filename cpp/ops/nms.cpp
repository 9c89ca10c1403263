// nms.cpp -- NonMaxSuppressionV3(boxes, scores, max_output_size, iou_threshold, score_threshold): the
// greedy selection of tf.image.non_max_suppression. Boxes are [num_boxes, 4] rows (y1, x1, y2, x2),
// any two opposite corners; scores [num_boxes]. Highest score first (the lower index among equal
// scores), a box is kept unless its IoU with a kept box exceeds iou_threshold; boxes scoring at or
// below score_threshold are never kept; at most max_output_size indices (int32). The result's length
// follows the values (value-shaped, Note [Value-shaped ops]); no gradient (indices).
#include <algorithm>
#include <cmath>
#include <numeric>
#include "core/error.h"
#include "engine/registry.h"

namespace tg {

namespace {

bool always(const Attrs&) { return true; }

struct Box {
  double ymin, xmin, ymax, xmax;
  double area() const { return (ymax - ymin) * (xmax - xmin); }
};

template <class T>
Box box_at(const T* b, int64_t i) {
  const T* r = b + 4 * i;
  return {std::min<double>(r[0], r[2]), std::min<double>(r[1], r[3]), std::max<double>(r[0], r[2]),
          std::max<double>(r[1], r[3])};
}

// 0 when either box has no area, as TF.
double iou(const Box& a, const Box& b) {
  const double aa = a.area(), ab = b.area();
  if (aa <= 0 || ab <= 0) return 0;
  const double h = std::max(0.0, std::min(a.ymax, b.ymax) - std::max(a.ymin, b.ymin));
  const double w = std::max(0.0, std::min(a.xmax, b.xmax) - std::max(a.xmin, b.xmin));
  const double inter = h * w;
  return inter / (aa + ab - inter);
}

double scalar_input(const OpDef& op, const Tensor& t, const char* what) {
  if (t->ndim() != 0) throw InvalidArgument(cat(op.name, ": ", what, " must be a scalar, got ", meta_str(t)));
  return scalar_value(t);
}

void check_inputs(const OpDef& op, const Tensors& x) {
  const Tensor &boxes = x[0], &scores = x[1];
  if (!is_floating(boxes->dtype) || boxes->ndim() != 2 || boxes->shape[1] != 4)
    throw InvalidArgument(cat(op.name, ": boxes must be a float [num_boxes, 4] tensor, got ", meta_str(boxes)));
  if (scores->dtype != boxes->dtype || scores->ndim() != 1 || scores->shape[0] != boxes->shape[0])
    throw InvalidArgument(cat(op.name, ": scores must be a [num_boxes] tensor of the boxes' dtype, got ", meta_str(scores),
                              " for boxes ", meta_str(boxes)));
  if (!is_integer(x[2]->dtype)) throw InvalidArgument(cat(op.name, ": max_output_size must be an integer, got ", meta_str(x[2])));
  for (int i = 3; i < 5; ++i)
    if (!is_floating(x[i]->dtype))
      throw InvalidArgument(cat(op.name, ": ", i == 3 ? "iou_threshold" : "score_threshold", " must be a float, got ",
                                meta_str(x[i])));
}

std::vector<int64_t> select(const OpDef& op, const Tensors& x) {
  check_inputs(op, x);
  const int64_t limit = (int64_t)scalar_input(op, x[2], "max_output_size");
  const double iou_threshold = scalar_input(op, x[3], "iou_threshold");
  const double score_threshold = scalar_input(op, x[4], "score_threshold");
  if (!(iou_threshold >= 0 && iou_threshold <= 1))
    throw InvalidArgument(cat(op.name, ": iou_threshold must be in [0, 1], got ", iou_threshold));
  if (limit < 0) throw InvalidArgument(cat(op.name, ": max_output_size must be non-negative, got ", limit));
  const int64_t n = x[0]->shape[0];
  std::vector<Box> boxes((size_t)n);
  std::vector<double> score((size_t)n);
  dispatch_dtype(x[0]->dtype, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>)
      for (int64_t i = 0; i < n; ++i) {
        boxes[(size_t)i] = box_at(x[0]->data_as<T>(), i);
        score[(size_t)i] = (double)x[1]->data_as<T>()[i];
      }
    return 0;
  });
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (score[(size_t)i] > score_threshold) order.push_back(i);  // (a NaN score is never kept)
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return score[(size_t)a] > score[(size_t)b]; });
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if ((int64_t)kept.size() >= limit) break;
    bool keep = true;
    for (int64_t k : kept)
      if (iou(boxes[(size_t)i], boxes[(size_t)k]) > iou_threshold) {
        keep = false;
        break;
      }
    if (keep) kept.push_back(i);
  }
  return kept;
}

OutMeta nms_infer(const OpDef& op, const Tensors& x, const Attrs&) { return {{(int64_t)select(op, x).size()}, DType::Int32}; }

Tensor nms_kernel(const OpDef& op, const Tensors& x, const Attrs&, const OutMeta& m) {
  const std::vector<int64_t> kept = select(op, x);
  if (m.shape != Shape{(int64_t)kept.size()})
    throw Internal(cat(op.name, ": ", kept.size(), " boxes kept for a result of shape ", shape_str(m.shape)));
  Tensor out = empty(m.shape, DType::Int32);
  for (size_t i = 0; i < kept.size(); ++i) out->data_as<int32_t>()[i] = (int32_t)kept[i];
  return out;
}

}  // namespace

void register_nms_ops() {
  def_op("NonMaxSuppressionV3").inputs(5).shape(nms_infer).forward(nms_kernel).shape_from_values(always)
      .not_differentiable();
}

}  // namespace tg
