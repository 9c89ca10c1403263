"""Bad input to the shape and indexing ops raises InvalidArgumentError naming the op (never a crash)."""
import numpy as np
import pytest

import tapegrad as tf

X = tf.constant(np.arange(24.0).reshape(2, 3, 4))
IDX = tf.constant([0, 1])
op = tf._core.op
SS = dict(begin=[0, 0, 0], end=[2, 3, 4], strides=[1, 1, 1])

CASES = [
    # existing shape ops
    ("Reshape", lambda: tf.reshape(X, [5, 5])),
    ("Reshape", lambda: tf.reshape(X, [-1, -1])),
    ("Reshape", lambda: tf.reshape(X, [-2, 12])),
    ("Reshape", lambda: tf.reshape(X, [-1, 5])),
    ("Transpose", lambda: tf.transpose(X, [0, 1])),
    ("Transpose", lambda: tf.transpose(X, [0, 1, 1])),
    ("Transpose", lambda: tf.transpose(X, [0, 1, 3])),
    ("BroadcastTo", lambda: tf.broadcast_to(X, [3, 3, 4])),
    ("BroadcastTo", lambda: tf.broadcast_to(X, [3, 4])),
    ("Cast", lambda: op("Cast")(X, dtype=9)),
    ("Cast", lambda: op("Cast")(X)),
    ("ExpandDims", lambda: tf.expand_dims(X, 4)),
    ("Squeeze", lambda: tf.squeeze(X, 0)),
    # StridedSlice and its gradient, fed directly
    ("StridedSlice", lambda: op("StridedSlice")(X, begin=[0, 0], end=[2, 3], strides=[1, 1])),
    ("StridedSlice", lambda: op("StridedSlice")(X, **dict(SS, strides=[1, 0, 1]))),
    ("StridedSlice", lambda: op("StridedSlice")(X, **dict(SS, begin=[0, 4, 0]))),
    ("StridedSlice", lambda: op("StridedSlice")(X, **dict(SS, end=[2, 3, 5]))),
    ("StridedSlice", lambda: op("StridedSlice")(X, **dict(SS, begin=[-1, 0, 0]))),
    ("StridedSlice", lambda: op("StridedSlice")(X, **dict(SS, begin=[2, 0, 0], strides=[-1, 1, 1]))),
    ("StridedSlice", lambda: op("StridedSlice")(X, **dict(SS, end=[-2, 3, 4], strides=[-1, 1, 1]))),
    ("StridedSlice", lambda: op("StridedSlice")(X, begin=[0, 0, 0])),
    ("StridedSlice", lambda: op("StridedSlice")(X, **SS, shrink_axis_mask=1)),
    ("StridedSlice", lambda: op("StridedSlice")(X, **SS, shrink_axis_mask=8)),
    ("StridedSlice", lambda: op("StridedSlice")(X, **SS, shrink_axis_mask=-1)),
    ("StridedSliceGrad", lambda: op("StridedSliceGrad")(X, shape=[2, 3, 4], begin=[0, 0, 0], end=[1, 3, 4],
                                                        strides=[1, 1, 1])),
    ("StridedSliceGrad", lambda: op("StridedSliceGrad")(X, shape=[2, -3, 4], **SS)),
    ("StridedSliceGrad", lambda: op("StridedSliceGrad")(X, shape=[2, 3], **SS)),
    # __getitem__ and friends
    ("StridedSlice", lambda: X[2]),
    ("StridedSlice", lambda: X[0, 0, -5]),
    ("StridedSlice", lambda: X[0, 0, 0, 0]),
    ("StridedSlice", lambda: X[..., 0, ...]),
    ("StridedSlice", lambda: X[::0]),
    ("StridedSlice", lambda: X[[0, 2],]),
    ("StridedSlice", lambda: tf.constant(1.0)[0]),
    ("Slice", lambda: tf.slice(X, [0, 0, 0], [3, 1, 1])),
    ("Slice", lambda: tf.slice(X, [0, 0], [1, 1])),
    ("Slice", lambda: tf.slice(X, [0, -1, 0], [1, 1, 1])),
    ("ReverseV2", lambda: tf.reverse(X, [3])),
    ("ReverseV2", lambda: tf.reverse(X, [1, -2])),
    ("BooleanMask", lambda: tf.boolean_mask(X, [True, False, True])),
    ("BooleanMask", lambda: tf.boolean_mask(X, [1, 0])),
    ("BooleanMask", lambda: tf.boolean_mask(X, True)),
    # ConcatV2, stack, unstack, split
    ("ConcatV2", lambda: op("ConcatV2")(axis=0)),
    ("ConcatV2", lambda: tf.concat([tf.constant(1.0), tf.constant(2.0)], 0)),
    ("ConcatV2", lambda: tf.concat([X, X[0]], 0)),
    ("ConcatV2", lambda: tf.concat([X, X[:, :, :1]], 1)),
    ("ConcatV2", lambda: tf.concat([X, tf.cast(X, tf.float32)], 0)),
    ("ConcatV2", lambda: tf.concat([X, X], 3)),
    ("Pack", lambda: tf.stack([X, X[0]])),
    ("Pack", lambda: tf.stack([])),
    ("Unpack", lambda: tf.unstack(X, num=3)),
    ("Unpack", lambda: tf.unstack(X, axis=3)),
    ("Split", lambda: tf.split(X, 4, axis=1)),
    ("Split", lambda: tf.split(X, 0)),
    ("Split", lambda: tf.split(X, 2, axis=-4)),
    ("SplitV", lambda: tf.split(X, [1, 1], axis=1)),
    ("SplitV", lambda: tf.split(X, [-1, -1, 4], axis=2)),
    ("SplitV", lambda: tf.split(X, [5, -1], axis=2)),
    # Pad and MirrorPad
    ("Pad", lambda: tf.pad(X, [[1, 1], [1, 1]])),
    ("Pad", lambda: tf.pad(X, [[1, 1], [0, -1], [0, 0]])),
    ("Pad", lambda: tf.pad(X, [[1, 1], [0, 0], [0, 0]], mode="WRAP")),
    ("MirrorPad", lambda: tf.pad(X, [[2, 0], [0, 0], [0, 0]], mode="REFLECT")),
    ("MirrorPad", lambda: tf.pad(X, [[0, 0], [0, 4], [0, 0]], mode="SYMMETRIC")),
    ("MirrorPad", lambda: tf.pad(X, [[0, 0]], mode="SYMMETRIC")),
    # Tile
    ("Tile", lambda: tf.tile(X, [1, 2])),
    ("Tile", lambda: tf.tile(X, [1, -2, 1])),
    # GatherV2 and UnsortedSegmentSum
    ("GatherV2", lambda: tf.gather(X, [0, 2])),
    ("GatherV2", lambda: tf.gather(X, [-1])),
    ("GatherV2", lambda: tf.gather(X, [[0], [4]], axis=2)),
    ("GatherV2", lambda: tf.gather(X, [0.0])),
    ("GatherV2", lambda: tf.gather(X, IDX, axis=3)),
    ("GatherV2", lambda: tf.gather(X, IDX, axis=-4)),
    ("GatherV2", lambda: tf.gather(tf.constant(1.0), IDX)),
    ("GatherV2", lambda: tf.gather(X, IDX, axis=1, batch_dims=2)),
    ("GatherV2", lambda: tf.gather(X, IDX, axis=0, batch_dims=1)),
    ("GatherV2", lambda: tf.gather(X, [[0, 1, 2]], axis=1, batch_dims=1)),
    ("GatherV2", lambda: tf.gather(X, IDX, axis=1, batch_dims=-3)),
    ("GatherV2", lambda: tf.gather(tf.zeros([0, 2]), [0])),
    ("UnsortedSegmentSum", lambda: tf.math.unsorted_segment_sum(X, [0, 3], 3)),
    ("UnsortedSegmentSum", lambda: tf.math.unsorted_segment_sum(X, [0, 1, 0], 3)),
    ("UnsortedSegmentSum", lambda: tf.math.unsorted_segment_sum(X, [[0, 1]], 3)),
    ("UnsortedSegmentSum", lambda: tf.math.unsorted_segment_sum(X, [0.0, 1.0], 3)),
    ("UnsortedSegmentSum", lambda: tf.math.unsorted_segment_sum(X, [0, 1], -1)),
    ("UnsortedSegmentSum", lambda: op("UnsortedSegmentSum")(X, IDX)),
    ("UnsortedSegmentSum", lambda: tf.math.unsorted_segment_sum(tf.constant([True, False]), [0, 1], 2)),
    # OneHot
    ("OneHot", lambda: tf.one_hot([1.0], 3)),
    ("OneHot", lambda: tf.one_hot([1], -1)),
    ("OneHot", lambda: tf.one_hot([1], 3, axis=2)),
    ("OneHot", lambda: tf.one_hot([1], 3, axis=-2)),
    ("OneHot", lambda: op("OneHot")(IDX, depth=3, dtype=7)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_raises_naming_the_op(name, fn):
    with pytest.raises(tf.errors.InvalidArgumentError, match=name):
        fn()


@pytest.mark.parametrize("key", [1.5, "a", (0, [0], [1]), [[0.5]], tf.constant(1.0)], ids=repr)
def test_invalid_index_types_are_type_errors(key):
    with pytest.raises(TypeError, match="valid indices"):
        X[key]


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        X[5]
