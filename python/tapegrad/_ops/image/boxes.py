"""tf.image's box selection: non_max_suppression (and _with_scores), on the registry op
NonMaxSuppressionV3 (cpp/ops/nms.cpp), whose result's length follows the scores, so one tf.function
trace serves every input."""
from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import cast, convert_to_tensor
from tapegrad._ops import _raw

__all__ = ["non_max_suppression", "non_max_suppression_with_scores"]

_nms = _raw.NonMaxSuppressionV3


def _select(b, scores, max_output_size, iou_threshold, score_threshold, fn):
    # boxes's dtype (declared an input, scores would give Python boxes its own)
    s = convert_arg(scores, "tensor", fn, "scores", b.dtype)
    if isinstance(max_output_size, float):
        raise TypeError(f"{fn}: max_output_size must be an int32 scalar, got the float {max_output_size!r}")
    n = convert_arg(max_output_size, "tensor", fn, "max_output_size", dtypes.int32)
    if n.dtype != dtypes.int32:  # TF's kernel takes int32 only
        raise errors.InvalidArgumentError(f"{fn}: max_output_size must be an int32 tensor, got {n.dtype.name}")
    thresholds = []
    for v, arg in ((iou_threshold, "iou_threshold"), (score_threshold, "score_threshold")):
        t = convert_arg(v, "tensor", fn, arg, dtypes.float32)
        if t.dtype != dtypes.float32:  # as TF's T_threshold (half or float)
            raise errors.InvalidArgumentError(f"{fn}: {arg} must be a float32 tensor, got {t.dtype.name}")
        thresholds.append(cast(t, dtypes.float32))
    return _nms(b, s, n, *thresholds)


@dispatch("boxes, scores:any, max_output_size:any, iou_threshold:any=0.5, score_threshold:any=-inf")
def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices (int32) of up to ``max_output_size`` boxes, by decreasing score, each overlapping no box
    chosen before it by more than ``iou_threshold`` (IoU) and scoring above ``score_threshold``."""
    return _select(boxes, scores, max_output_size, iou_threshold, score_threshold, "non_max_suppression")


@dispatch("boxes, scores:any, max_output_size:any, iou_threshold:any=0.5, score_threshold:any=-inf, "
          "soft_nms_sigma:any=0.0")
def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(indices, their scores) as non_max_suppression; only hard suppression (soft_nms_sigma=0)."""
    if float(soft_nms_sigma) != 0.0:
        raise errors.UnimplementedError("non_max_suppression_with_scores: soft_nms_sigma > 0 (Soft-NMS) is not "
                                        "implemented; only hard suppression (0.0)")
    fn = "non_max_suppression_with_scores"
    picked = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, fn)
    return picked, _raw.GatherV2(convert_to_tensor(scores), picked, axis=0, batch_dims=0)
