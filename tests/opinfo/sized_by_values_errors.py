"""Bad calls of the rows in opinfo/sized_by_values.py (the ops of cpp/ops/sized_by_values.cpp and
cpp/ops/nms.cpp, and the UnsortedSegment* num_segments input): each raises InvalidArgumentError naming the
op; tf.zeros, tf.fill and tf.range refuse with TF's classes, a size too large to allocate with OOM."""
import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError
op = tf._core.op
f32 = np.float32
C = tf.constant


def _naming(call, name, words):
    """The bad call raises InvalidArgumentError, its message holding the op's name and the words."""
    return call.raises(E, contains=(name, words))


def _oom(call, shape):
    return call.raises(tf.errors.ResourceExhaustedError,
                       r"(Fill|Range|MatrixDiagV3): OOM when allocating tensor with " + shape)


def _range():
    return [
        _naming(BadCall(op("Range"), C([0]), C(3), C(1)), "Range", "start must be a scalar"),
        _naming(BadCall(op("Range"), C(0), C(3.0), C(1)), "Range", "one dtype"),
        _naming(BadCall(op("Range"), C(0), C(3), C(0)), "Range", "Requires delta != 0"),
        _naming(BadCall(op("Range"), C(5), C(3), C(1)), "Range", "start <= limit"),
        _naming(BadCall(op("Range"), C(1), C(3), C(-1)), "Range", "start >= limit"),
        # through tf.range, as TF refuses
        BadCall(tf.range, 0, 10, 0).raises(E, r"Range: Requires delta != 0"),
        BadCall(tf.range, 10, 0).raises(E, r"Requires start <= limit when delta > 0: 10/0"),
        BadCall(tf.range, 0, 10, -1).raises(E, r"Requires start >= limit when delta < 0"),
        BadCall(tf.range, float("inf")).raises(E, r"Range: Requires \(\(limit - start\) / delta\)"),
        BadCall(tf.range, None).raises(ValueError, "Range: limit is None"),
        _oom(BadCall(tf.range, 10 ** 13), r"shape\[10000000000000\] and type int64"),
    ] + [  # a Python float for an integer dtype: TF's TypeError "Cannot convert 0.3 to EagerTensor of dtype int64"
        # (tapegrad truncated the step)
        BadCall(tf.range, *args, dtype=dtype).raises(TypeError, "Range: Cannot convert")
        for args in [(0, 1, 0.3), (0, 5, 1.5), (0.0, 3, 1), (0, 3.0)] for dtype in (tf.int32, tf.int64)]


def _fill():
    return [
        _naming(BadCall(op("Fill"), C([[2]]), C(1.0)), "Fill", "dims must be a vector"),
        _naming(BadCall(op("Fill"), C([2]), C([1.0])), "Fill", "value must be a scalar"),
        _naming(BadCall(op("Fill"), C([2, -1]), C(1.0)), "Fill", "dims must not be negative"),
        # through tf.zeros, tf.ones and tf.fill
        BadCall(tf.zeros, [-1, 2]).raises(E),
        BadCall(tf.fill, [-1], 1.0).raises(E, r"Fill: Dimension -1 must be >= 0"),
        BadCall(tf.zeros, [2.5]).raises(TypeError, r"zeros: shape must be an int, got 2.5"),
        BadCall(tf.ones, [float("inf")]).raises(TypeError, r"ones: shape must be an int, got inf"),
        BadCall(tf.zeros, None).raises(ValueError, r"zeros: shape is None"),
        # sizes too large: raised instead of wrapping, OOM where the count fits but the bytes cannot be had
        BadCall(tf.zeros, [2 ** 40, 2 ** 40]).raises(E, "too many elements"),
        BadCall(tf.zeros, [2 ** 50]).raises(tf.errors.ResourceExhaustedError,
                                            r"Fill: OOM .*shape\[1125899906842624\] and type float"),
        BadCall(tf.zeros, [2 ** 57]).raises(tf.errors.ResourceExhaustedError),
        _oom(BadCall(tf.zeros, [2 ** 40, 2 ** 20]), r"shape\[1099511627776,1048576\] and type float"),
        _oom(BadCall(tf.ones, [1 << 62]), r"shape\[4611686018427387904\] and type float"),
        _oom(BadCall(tf.fill, [10 ** 12], 1.0), r"shape\[1000000000000\] and type float \(4000000000000 bytes\)"),
        _oom(BadCall(tf.zeros, [2 ** 40], tf.float64), r"shape\[1099511627776\] and type double"),
    ]


def _x():
    return tf.constant(np.arange(24.0).reshape(2, 3, 4))


def _segment_n():
    seg = op("UnsortedSegmentSum")
    return [_naming(BadCall(seg, C([1.0]), C([0]), num_segments_input=True), "UnsortedSegmentSum",
                    "expected data, segment_ids and num_segments"),
            _naming(BadCall(seg, C([1.0]), C([0]), C([2]), num_segments_input=True), "UnsortedSegmentSum",
                    "num_segments must be an integer scalar")]


def _nms_call(i, value):
    """NonMaxSuppressionV3 on good inputs but the i-th, which is `value`."""
    args = [C(np.zeros((2, 4), f32)), C(np.zeros(2, f32)), C(1), C(0.5), C(-np.inf, tf.float32)]
    args[i] = value
    return BadCall(op("NonMaxSuppressionV3"), *args)


def _nms():
    boxes, scores = np.array([[0, 0, 1, 1], [0, 0, 1, 1.1]], f32), np.array([0.9, 0.8], f32)
    nms, name = tf.image.non_max_suppression, "NonMaxSuppressionV3"
    return [
        _naming(_nms_call(0, C(np.zeros((2, 3), f32))), name, "boxes must be a float [num_boxes, 4]"),
        _naming(_nms_call(1, C(np.zeros(3, f32))), name, "scores must be a [num_boxes] tensor"),
        _naming(_nms_call(2, C(1.0)), name, "max_output_size must be an integer"),
        _naming(_nms_call(2, C([1])), name, "max_output_size must be a scalar"),
        _naming(_nms_call(2, C(-1)), name, "must be non-negative"),
        _naming(_nms_call(3, C(1)), name, "iou_threshold must be a float"),
        _naming(_nms_call(3, C(1.5)), name, "iou_threshold must be in [0, 1]"),
        # tf.image.non_max_suppression takes TF's dtypes only
        BadCall(nms, boxes, scores, tf.constant(2, tf.int64)).raises(E, "max_output_size must be an int32 tensor"),
        BadCall(nms, boxes, scores, 2.0).raises(TypeError, "max_output_size must be an int32 scalar"),
        BadCall(nms, boxes, scores, 2, tf.constant(0.5, tf.float64))
        .raises(E, "iou_threshold must be a float32 tensor"),
    ]


ERROR_INPUTS = {
    "Where": lambda: [_naming(BadCall(op("Where"), C(1.0)), "Where", "rank 1 or more")],
    "Range": _range, "Fill": _fill,
    "ReverseV2": lambda: [_naming(BadCall(op("ReverseV2"), C([1.0]), axis=[1]), "ReverseV2", "out of range"),
                          _naming(BadCall(op("ReverseV2"), C([[1.0]]), axis=[0, 0]), "ReverseV2", "listed twice")],
    "reverse": lambda: [BadCall(tf.reverse, _x(), [3]).raises(E, "ReverseV2"),
                        BadCall(tf.reverse, _x(), [1, -2]).raises(E, "ReverseV2")],
    "ExpandDims": lambda: [_naming(BadCall(op("ExpandDims"), C([1.0]), axis=2), "ExpandDims", "out of range"),
                           BadCall(tf.expand_dims, _x(), 4).raises(E, "ExpandDims")],
    "Squeeze": lambda: [_naming(BadCall(op("Squeeze"), C([1.0, 2.0]), axis=[0]), "Squeeze", "cannot squeeze"),
                        _naming(BadCall(op("Squeeze"), C([[1.0]]), axis=[0, 0]), "Squeeze", "cannot squeeze"),
                        BadCall(tf.squeeze, _x(), 0).raises(E, "Squeeze")],
    "ReshapeLike": lambda: [_naming(BadCall(op("ReshapeLike"), C([1.0, 2.0]), C([1.0])), "ReshapeLike", "cannot give")],
    "DynamicReshape": lambda: [
        _naming(BadCall(op("DynamicReshape"), C([1.0, 2.0]), C([3])), "Reshape", "cannot reshape"),
        _naming(BadCall(op("DynamicReshape"), C([1.0]), C([[1]])), "DynamicReshape", "shape must be a vector")],
    "DynamicBroadcastTo": lambda: [
        _naming(BadCall(op("DynamicBroadcastTo"), C([1.0, 2.0]), C([3])), "BroadcastTo", "cannot broadcast")],
    "UnsortedSegmentSumLike": lambda: [_naming(
        BadCall(op("UnsortedSegmentSumLike"), C([1.0]), C([0]), C([1.0]), axis=1), "UnsortedSegmentSumLike",
        "out of range")],
    "UnsortedSegmentSum_n": _segment_n,
    "NonMaxSuppressionV3": _nms,
}
