"""Rows for cpp/ops/sized_by_values.cpp: the value-shaped Where, Range and Fill, and ReverseV2,
ExpandDims, Squeeze and ReshapeLike, whose result follows their input's shape at run time; and
UnsortedSegmentSumLike (cpp/ops/index.cpp), GatherV2's gradient in such traces."""
import numpy as np

import tapegrad as tf
from opinfo import sized_by_values_edges, sized_by_values_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs, uniform

_op = tf._core.op


def _where_samples(rng, dtype):
    dtype = np.dtype(dtype)
    yield SampleInput([(rng.integers(0, 3, size=(3, 4)) > 1).astype(dtype)])
    yield SampleInput([np.array([0, 1, 0, 2, 0], dtype)])
    yield SampleInput([np.zeros((2, 0, 3), dtype)])
    yield SampleInput([np.ones((2, 1, 2), dtype)])
    if dtype.kind == "f":
        yield SampleInput([np.array([0.0, -0.0, np.nan, np.inf, -1.5], dtype)])  # NaN is true


def _range_samples(rng, dtype):
    dtype = np.dtype(dtype)
    for bounds in [(0, 5, 1), (5, 1, -2), (3, 3, 1), (-4, 7, 3)]:
        yield SampleInput([np.array(b, dtype) for b in bounds])
    if dtype.kind == "f":
        yield SampleInput([np.array(b, dtype) for b in (0.0, 1.0, 0.1)])
        yield SampleInput([np.array(b, dtype) for b in (1e7, 1e7 + 20, 0.3)])


def _np_range(start, limit, delta):
    n = max(int(np.ceil(abs((limit - start) / delta))), 0) if delta.dtype.kind == "f" else \
        max(-(-abs(int(limit) - int(start)) // abs(int(delta))), 0)
    return (start + np.arange(n).astype(start.dtype) * delta).astype(start.dtype)


def _fill_samples(rng, dtype):
    for dims in ([2, 3], [], [0, 4], [1], [3]):  # (a list: only the value is an array, so only it is differentiated)
        yield SampleInput([dims, uniform(rng, (), dtype)])


def _reverse_samples(rng, dtype):
    for shape, axis in [((2, 3, 2), [0]), ((2, 3, 2), [1, 2]), ((4,), [0]), ((2, 3), []), ((0, 3), [0, 1]), ((), [])]:
        yield SampleInput([uniform(rng, shape, dtype)], {"axis": axis})


def _expand_samples(rng, dtype):
    for shape, axis in [((2, 3), 0), ((2, 3), 1), ((2, 3), 2), ((), 0), ((0, 2), 1)]:
        yield SampleInput([uniform(rng, shape, dtype)], {"axis": axis})


def _squeeze_samples(rng, dtype):
    for shape, axis in [((1, 3, 1), [0, 2]), ((2, 1), [1]), ((1,), [0]), ((1, 1, 2), [1]), ((2, 3), [])]:
        yield SampleInput([uniform(rng, shape, dtype)], {"axis": axis})


def _np_squeeze(x, axis):
    return np.squeeze(x, tuple(axis)) if axis else x


def _reshape_like_samples(rng, dtype):
    for shape, like in [((2, 3), (3, 2)), ((6,), (1, 2, 3)), ((), (1, 1)), ((0, 4), (2, 0))]:
        yield SampleInput([uniform(rng, shape, dtype), uniform(rng, like, dtype)], grad_args=[0])


def _segment_like_samples(rng, dtype):
    for shape, ids, like, axis in [((5, 2), [0, 2, 2, 1, 0], (2, 4), 1), ((2, 3), [[1, 1, 0], [0, 2, 2]], (3,), 0),
                                   ((3,), [1, -1, 1], (2, 1), 0)]:
        yield SampleInput([uniform(rng, shape, dtype), np.asarray(ids, np.int32), uniform(rng, like, dtype)],
                          {"axis": axis}, grad_args=[0])


def _np_segment_like(data, ids, like, axis):
    out = np.zeros((like.shape[axis],) + data.shape[ids.ndim:], data.dtype)
    keep = ids >= 0
    np.add.at(out, ids[keep], data[keep])
    return out


def _dynamic_reshape_samples(rng, dtype):
    for shape, target in [((2, 3), [3, 2]), ((2, 3), [-1]), ((6,), [2, -1, 3]), ((0, 4), [2, 0, 3]), ((), [1, 1])]:
        yield SampleInput([uniform(rng, shape, dtype), target])


def _dynamic_broadcast_samples(rng, dtype):
    for shape, target in [((3,), [2, 3]), ((2, 1), [2, 4]), ((), [2, 2]), ((1, 3), [2, 1, 3])]:
        yield SampleInput([uniform(rng, shape, dtype), target])


def _segment_n_samples(rng, dtype):
    for shape, ids, n in [((5, 2), [0, 2, 2, 1, 0], 3), ((3,), [1, -1, 0], 2)]:  # (no empty segment: max's
        # value there, the lowest float, would overflow the finite differences)
        yield SampleInput([uniform(rng, shape, dtype), np.asarray(ids, np.int32), n])


def _segment_n(op):
    return lambda d, i, n: _op(op)(d, tf.constant(i), tf.constant(n), num_segments_input=True)


def _np_segment_n(fold, empty):
    def ref(data, ids, n):
        out = [[] for _ in range(n)]
        for row, s in zip(data, ids):
            if s >= 0:
                out[s].append(row)
        return np.stack([fold(np.stack(r), 0) if r else np.full(data.shape[1:], empty, data.dtype) for r in out])
    return ref


def _nms_samples(rng, dtype):
    boxes = np.concatenate([c := rng.uniform(0, 5, size=(12, 2)), c + rng.uniform(0.5, 3, size=(12, 2))], 1)
    for limit, iou, least in [(12, 0.5, -np.inf), (3, 0.2, -np.inf), (12, 0.6, 0.4), (0, 0.5, -np.inf)]:
        yield SampleInput([boxes.astype(dtype), rng.uniform(size=12).astype(dtype), np.int32(limit), np.float32(iou),
                           np.float32(least)])


def _np_nms(boxes, scores, limit, iou_threshold, score_threshold):
    lo, hi = np.minimum(boxes[:, :2], boxes[:, 2:]), np.maximum(boxes[:, :2], boxes[:, 2:])
    area = np.prod(hi - lo, 1)
    kept = []
    for i in sorted(np.flatnonzero(scores > score_threshold), key=lambda i: (-scores[i], i)):
        inter = np.prod(np.clip(np.minimum(hi[i], hi[kept]) - np.maximum(lo[i], lo[kept]), 0, None), 1)
        if len(kept) < limit and not (inter / (area[i] + area[kept] - inter) > iou_threshold).any():
            kept.append(i)
    return np.asarray(kept, np.int32)


rows = [
    OpInfo("Where", lambda c: _op("Where")(c), lambda c: np.argwhere(c).astype(np.int64), samples=_where_samples,
           differentiable=False, dtypes=("float32", "float64", "int32", "int64", "bool")),
    OpInfo("Range", lambda s, l, d: _op("Range")(s, l, d), _np_range, samples=_range_samples, differentiable=False,
           dtypes=("float32", "float64", "int32", "int64"), public=(tf.range,)),
    OpInfo("Fill", lambda d, v: _op("Fill")(tf.constant(d, tf.int32 if len(d) != 1 else tf.int64), v), np.full,
           samples=_fill_samples, order=2),
    OpInfo("ReverseV2", lambda x, axis: _op("ReverseV2")(x, axis=axis),
           lambda x, axis: np.flip(x, tuple(axis)) if axis else x, samples=_reverse_samples, order=2),
    OpInfo("ExpandDims", lambda x, axis: _op("ExpandDims")(x, axis=axis), lambda x, axis: np.expand_dims(x, axis),
           samples=_expand_samples, order=2, public=(tf.expand_dims,)),
    OpInfo("Squeeze", lambda x, axis: _op("Squeeze")(x, axis=axis), _np_squeeze, samples=_squeeze_samples, order=2,
           public=(tf.squeeze,)),
    OpInfo("ReshapeLike", lambda x, like: _op("ReshapeLike")(x, like), lambda x, like: x.reshape(like.shape),
           samples=_reshape_like_samples, order=2),
    OpInfo("UnsortedSegmentSumLike", lambda d, i, like, axis: _op("UnsortedSegmentSumLike")(d, tf.constant(i), like, axis=axis),
           _np_segment_like, samples=_segment_like_samples, order=2),
    OpInfo("DynamicReshape", lambda x, s: _op("DynamicReshape")(x, tf.constant(s, tf.int64)),
           lambda x, s: x.reshape(s), samples=_dynamic_reshape_samples, order=2),
    OpInfo("DynamicBroadcastTo", lambda x, s: _op("DynamicBroadcastTo")(x, tf.constant(s, tf.int32)),
           lambda x, s: np.broadcast_to(x, s), samples=_dynamic_broadcast_samples, order=2),
    # the UnsortedSegment* ops given num_segments as an input (computed in a trace)
    OpInfo("UnsortedSegmentSum_n", _segment_n("UnsortedSegmentSum"), _np_segment_n(np.sum, 0),
           samples=_segment_n_samples, order=2, op="UnsortedSegmentSum"),
    OpInfo("UnsortedSegmentMax_n", _segment_n("UnsortedSegmentMax"), _np_segment_n(np.max, np.finfo(np.float32).min),
           samples=_segment_n_samples, op="UnsortedSegmentMax", dtypes=("float64",)),
    OpInfo("UnsortedSegmentProd_n", _segment_n("UnsortedSegmentProd"), _np_segment_n(np.prod, 1),
           samples=_segment_n_samples, op="UnsortedSegmentProd", dtypes=("float64",)),
    OpInfo("NonMaxSuppressionV3", lambda *a: _op("NonMaxSuppressionV3")(*[tf.constant(v) for v in a]), _np_nms,
           samples=_nms_samples, differentiable=False),
    OpInfo("reverse", tf.reverse, lambda x, axis: np.flip(x, axis), op=None,
           samples=lambda rng, dt: [SampleInput([uniform(rng, (2, 3, 2), dt), a]) for a in ([0], [1, -1], [])]),
]

attach_error_inputs(rows, sized_by_values_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/sized_by_values_errors.py
attach_edge_samples(rows, sized_by_values_edges.EDGE_SAMPLES)  # their edge values, in opinfo/sized_by_values_edges.py
