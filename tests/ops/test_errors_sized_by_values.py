"""Every refusal of the ops in cpp/ops/sized_by_values.cpp and cpp/ops/nms.cpp, and of the
UnsortedSegment* num_segments input: fed the bad input, each raises InvalidArgumentError naming the op."""
import numpy as np
import pytest

import tapegrad as tf

op = tf._core.op
f32, i32 = np.float32, np.int32
C = tf.constant

CASES = [
    ("Where", lambda: op("Where")(C(1.0)), "rank 1 or more"),
    ("Range", lambda: op("Range")(C([0]), C(3), C(1)), "start must be a scalar"),
    ("Range", lambda: op("Range")(C(0), C(3.0), C(1)), "one dtype"),
    ("Range", lambda: op("Range")(C(0), C(3), C(0)), "Requires delta != 0"),
    ("Range", lambda: op("Range")(C(5), C(3), C(1)), "start <= limit"),
    ("Range", lambda: op("Range")(C(1), C(3), C(-1)), "start >= limit"),
    ("Fill", lambda: op("Fill")(C([[2]]), C(1.0)), "dims must be a vector"),
    ("Fill", lambda: op("Fill")(C([2]), C([1.0])), "value must be a scalar"),
    ("Fill", lambda: op("Fill")(C([2, -1]), C(1.0)), "dims must not be negative"),
    ("ReverseV2", lambda: op("ReverseV2")(C([1.0]), axis=[1]), "out of range"),
    ("ReverseV2", lambda: op("ReverseV2")(C([[1.0]]), axis=[0, 0]), "listed twice"),
    ("ExpandDims", lambda: op("ExpandDims")(C([1.0]), axis=2), "out of range"),
    ("Squeeze", lambda: op("Squeeze")(C([1.0, 2.0]), axis=[0]), "cannot squeeze"),
    ("Squeeze", lambda: op("Squeeze")(C([[1.0]]), axis=[0, 0]), "cannot squeeze"),
    ("ReshapeLike", lambda: op("ReshapeLike")(C([1.0, 2.0]), C([1.0])), "cannot give"),
    ("Reshape", lambda: op("DynamicReshape")(C([1.0, 2.0]), C([3])), "cannot reshape"),
    ("DynamicReshape", lambda: op("DynamicReshape")(C([1.0]), C([[1]])), "shape must be a vector"),
    ("BroadcastTo", lambda: op("DynamicBroadcastTo")(C([1.0, 2.0]), C([3])), "cannot broadcast"),
    ("UnsortedSegmentSumLike", lambda: op("UnsortedSegmentSumLike")(C([1.0]), C([0]), C([1.0]), axis=1),
     "out of range"),
    ("UnsortedSegmentSum", lambda: op("UnsortedSegmentSum")(C([1.0]), C([0]), num_segments_input=True),
     "expected data, segment_ids and num_segments"),
    ("UnsortedSegmentSum", lambda: op("UnsortedSegmentSum")(C([1.0]), C([0]), C([2]), num_segments_input=True),
     "num_segments must be an integer scalar"),
]

_NMS = [C(np.zeros((2, 4), f32)), C(np.zeros(2, f32)), C(1), C(0.5), C(-np.inf, tf.float32)]


def _nms(i, value):
    args = list(_NMS)
    args[i] = value
    return lambda: op("NonMaxSuppressionV3")(*args)


CASES += [
    ("NonMaxSuppressionV3", _nms(0, C(np.zeros((2, 3), f32))), "boxes must be a float [num_boxes, 4]"),
    ("NonMaxSuppressionV3", _nms(1, C(np.zeros(3, f32))), "scores must be a [num_boxes] tensor"),
    ("NonMaxSuppressionV3", _nms(2, C(1.0)), "max_output_size must be an integer"),
    ("NonMaxSuppressionV3", _nms(2, C([1])), "max_output_size must be a scalar"),
    ("NonMaxSuppressionV3", _nms(2, C(-1)), "must be non-negative"),
    ("NonMaxSuppressionV3", _nms(3, C(1)), "iou_threshold must be a float"),
    ("NonMaxSuppressionV3", _nms(3, C(1.5)), "iou_threshold must be in [0, 1]"),
]


@pytest.mark.parametrize("name, call, words", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_raises_naming_the_op(name, call, words):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        call()
    assert name in str(e.value) and words in str(e.value), str(e.value)


def test_non_max_suppression_takes_tfs_dtypes_only():
    boxes, scores = np.array([[0, 0, 1, 1], [0, 0, 1, 1.1]], f32), np.array([0.9, 0.8], f32)
    nms = tf.image.non_max_suppression
    with pytest.raises(tf.errors.InvalidArgumentError, match="max_output_size must be an int32 tensor"):
        nms(boxes, scores, tf.constant(2, tf.int64))
    with pytest.raises(TypeError, match="max_output_size must be an int32 scalar"):
        nms(boxes, scores, 2.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="iou_threshold must be a float32 tensor"):
        nms(boxes, scores, 2, tf.constant(0.5, tf.float64))
    assert nms(boxes.astype(np.float64), scores.astype(np.float64), 2).numpy().tolist() == [0]  # TF casts these
