"""Bad calls of the shape and indexing rows (opinfo/array.py): InvalidArgumentError naming the op, never a
crash; an index of the wrong type is a TypeError."""
import functools
import operator

import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError
op = tf._core.op
SS = dict(begin=[0, 0, 0], end=[2, 3, 4], strides=[1, 1, 1])


@functools.cache
def _x():
    return tf.constant(np.arange(24.0).reshape(2, 3, 4))


def _idx():
    return tf.constant([0, 1])


def _named(name, *calls):
    """Each bad call raising InvalidArgumentError whose message matches the op's name."""
    return [call.raises(E, name) for call in calls]


def _reshape():
    X = _x()
    return _named("Reshape", BadCall(tf.reshape, X, [5, 5]), BadCall(tf.reshape, X, [-1, -1]),
                  BadCall(tf.reshape, X, [-2, 12]), BadCall(tf.reshape, X, [-1, 5])) + [
        BadCall(tf.reshape, tf.zeros([2, 3]), [4]).raises(E, r"Reshape.*\(2, 3\).*\(4,\)"),
        BadCall(tf.reshape, tf.zeros([2, 3]), [-1, -1]).raises(E, "Reshape.*-1"),
        BadCall(tf.reshape, tf.zeros([4]), [2 ** 40, 2 ** 40, -1]).raises(E),  # too large: raised, not wrapped
        BadCall(tf.reshape, tf.ones([6]), [4, -1]).raises(E, r"^Reshape: "),
    ]


def _transpose():
    X = _x()
    return _named("Transpose", BadCall(tf.transpose, X, [0, 1]), BadCall(tf.transpose, X, [0, 1, 1]),
                  BadCall(tf.transpose, X, [0, 1, 3]), BadCall(tf.transpose, tf.zeros([2, 3]), perm=[0, 0]))


def _broadcast_to():
    X = _x()
    return _named("BroadcastTo", BadCall(tf.broadcast_to, X, [3, 3, 4]), BadCall(tf.broadcast_to, X, [3, 4]),
                  BadCall(tf.broadcast_to, tf.zeros([3]), [2, 4])) + [
        BadCall(tf.broadcast_to, tf.ones([1]), [2 ** 40, 2 ** 30]).raises(E, r"BroadcastTo: .*too many elements"),
    ]


def _cast():
    return _named("Cast", BadCall(op("Cast"), _x(), dtype=14), BadCall(op("Cast"), _x(), dtype=5), BadCall(op("Cast"), _x()))


def _strided_slice():
    X, ss = _x(), op("StridedSlice")
    return _named(
        "StridedSlice",
        # the op fed directly
        BadCall(ss, X, begin=[0, 0], end=[2, 3], strides=[1, 1]), BadCall(ss, X, **dict(SS, strides=[1, 0, 1])),
        BadCall(ss, X, **dict(SS, begin=[0, 4, 0])), BadCall(ss, X, **dict(SS, end=[2, 3, 5])),
        BadCall(ss, X, **dict(SS, begin=[-1, 0, 0])), BadCall(ss, X, **dict(SS, begin=[2, 0, 0], strides=[-1, 1, 1])),
        BadCall(ss, X, **dict(SS, end=[-2, 3, 4], strides=[-1, 1, 1])), BadCall(ss, X, begin=[0, 0, 0]),
        BadCall(ss, X, **SS, shrink_axis_mask=1), BadCall(ss, X, **SS, shrink_axis_mask=8),
        BadCall(ss, X, **SS, shrink_axis_mask=-1),
        # through __getitem__
        BadCall(operator.getitem, X, 2), BadCall(operator.getitem, X, (0, 0, -5)),
        BadCall(operator.getitem, X, (0, 0, 0, 0)), BadCall(operator.getitem, X, (..., 0, ...)),
        BadCall(operator.getitem, X, slice(None, None, 0)), BadCall(operator.getitem, X, ([0, 2],)),
        BadCall(operator.getitem, tf.constant(1.0), 0)) + [
        BadCall(operator.getitem, X, key).raises(TypeError, "valid indices")
        for key in [1.5, "a", (0, [0], [1]), [[0.5]], tf.constant(1.0)]] + [
        BadCall(operator.getitem, X, 5).raises(ValueError),  # InvalidArgumentError is a ValueError, as TF's
    ]


def _strided_slice_grad():
    X, grad = _x(), op("StridedSliceGrad")
    return _named("StridedSliceGrad", BadCall(grad, X, shape=[2, 3, 4], begin=[0, 0, 0], end=[1, 3, 4],
                                              strides=[1, 1, 1]),
                  BadCall(grad, X, shape=[2, -3, 4], **SS), BadCall(grad, X, shape=[2, 3], **SS))


def _slice():
    X = _x()
    return _named("Slice", BadCall(tf.slice, X, [0, 0, 0], [3, 1, 1]), BadCall(tf.slice, X, [0, 0], [1, 1]),
                  BadCall(tf.slice, X, [0, -1, 0], [1, 1, 1]))


def _boolean_mask():
    X = _x()
    return _named("BooleanMask", BadCall(tf.boolean_mask, X, [True, False, True]),
                  BadCall(tf.boolean_mask, X, [1, 0]), BadCall(tf.boolean_mask, X, True))


def _concat():
    X = _x()
    return _named("ConcatV2", BadCall(op("ConcatV2"), axis=0),
                  BadCall(tf.concat, [tf.constant(1.0), tf.constant(2.0)], 0), BadCall(tf.concat, [X, X[0]], 0),
                  BadCall(tf.concat, [X, X[:, :, :1]], 1), BadCall(tf.concat, [X, tf.cast(X, tf.float32)], 0),
                  BadCall(tf.concat, [X, X], 3)) + [
        # a Python float beside an integer tensor: TF's TypeError "Cannot convert 1.5 to EagerTensor of dtype int32"
        BadCall(tf.concat, [tf.constant([1, 2]), [1.5]], 0).raises(TypeError, "Cannot convert")]


def _split():
    X = _x()
    return _named("Split", BadCall(tf.split, X, 4, axis=1), BadCall(tf.split, X, 0),
                  BadCall(tf.split, X, 2, axis=-4)) + \
        _named("SplitV", BadCall(tf.split, X, [1, 1], axis=1), BadCall(tf.split, X, [-1, -1, 4], axis=2),
               BadCall(tf.split, X, [5, -1], axis=2))


def _pad():
    X = _x()
    return _named("Pad", BadCall(tf.pad, X, [[1, 1], [1, 1]]), BadCall(tf.pad, X, [[1, 1], [0, -1], [0, 0]]),
                  BadCall(tf.pad, X, [[1, 1], [0, 0], [0, 0]], mode="WRAP"))


def _mirror_pad():
    X = _x()
    return _named("MirrorPad", BadCall(tf.pad, X, [[2, 0], [0, 0], [0, 0]], mode="REFLECT"),
                  BadCall(tf.pad, X, [[0, 0], [0, 4], [0, 0]], mode="SYMMETRIC"),
                  BadCall(tf.pad, X, [[0, 0]], mode="SYMMETRIC"))


def _tile():
    return _named("Tile", BadCall(tf.tile, _x(), [1, 2]), BadCall(tf.tile, _x(), [1, -2, 1])) + [
        BadCall(tf.tile, tf.zeros([2, 2]), [2 ** 62, 2 ** 62]).raises(E),  # too large: raised, not wrapped
        BadCall(tf.tile, tf.ones([2, 2]), [2 ** 31, 2 ** 31]).raises(E, r"Tile: .*too many elements"),
        BadCall(op("Tile"), tf.ones([2]), multiples=[2 ** 70]).raises(TypeError),  # the binding cannot cast it
    ]


def _gather():
    X, IDX = _x(), _idx()
    return _named("GatherV2", BadCall(tf.gather, X, [0, 2]), BadCall(tf.gather, X, [-1]),
                  BadCall(tf.gather, X, [[0], [4]], axis=2), BadCall(tf.gather, X, [0.0]),
                  BadCall(tf.gather, X, IDX, axis=3), BadCall(tf.gather, X, IDX, axis=-4),
                  BadCall(tf.gather, tf.constant(1.0), IDX), BadCall(tf.gather, X, IDX, axis=1, batch_dims=2),
                  BadCall(tf.gather, X, IDX, axis=0, batch_dims=1),
                  BadCall(tf.gather, X, [[0, 1, 2]], axis=1, batch_dims=1),
                  BadCall(tf.gather, X, IDX, axis=1, batch_dims=-3), BadCall(tf.gather, tf.zeros([0, 2]), [0]))


def _unsorted_segment_sum():
    X, seg = _x(), tf.math.unsorted_segment_sum
    return _named("UnsortedSegmentSum", BadCall(seg, X, [0, 3], 3), BadCall(seg, X, [0, 1, 0], 3),
                  BadCall(seg, X, [[0, 1]], 3), BadCall(seg, X, [0.0, 1.0], 3), BadCall(seg, X, [0, 1], -1),
                  BadCall(op("UnsortedSegmentSum"), X, _idx()),
                  BadCall(seg, tf.constant([True, False]), [0, 1], 2))


def _one_hot():
    return _named("OneHot", BadCall(tf.one_hot, [1.0], 3), BadCall(tf.one_hot, [1], -1),
                  BadCall(tf.one_hot, [1], 3, axis=2), BadCall(tf.one_hot, [1], 3, axis=-2),
                  BadCall(op("OneHot"), _idx(), depth=3, dtype=14), BadCall(op("OneHot"), _idx(), depth=3, dtype=5))


def _broadcast_like():
    return [BadCall(op("BroadcastLike"), tf.zeros([3]), tf.zeros([2, 4])).raises(E, "BroadcastLike.*cannot broadcast")]


ERROR_INPUTS = {
    "Reshape": _reshape, "Transpose": _transpose, "BroadcastTo": _broadcast_to, "BroadcastLike": _broadcast_like,
    "Cast": _cast, "StridedSlice": _strided_slice, "StridedSliceGrad": _strided_slice_grad, "slice": _slice,
    "boolean_mask": _boolean_mask, "ConcatV2": _concat, "split": _split, "Pad": _pad, "MirrorPad": _mirror_pad,
    "Tile": _tile, "GatherV2": _gather, "UnsortedSegmentSum": _unsorted_segment_sum, "OneHot": _one_hot,
    "stack": lambda: _named("Pack", BadCall(tf.stack, [_x(), _x()[0]]), BadCall(tf.stack, [])),
    "unstack": lambda: _named("Unpack", BadCall(tf.unstack, _x(), num=3), BadCall(tf.unstack, _x(), axis=3)),
}
