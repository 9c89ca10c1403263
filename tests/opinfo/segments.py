"""Rows for the segment reductions beyond the sum (UnsortedSegmentMax / Min and the means)."""
import numpy as np

import tapegrad as tf
from opinfo.core import OpInfo, SampleInput


def _distinct(rng, shape, dtype):
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.37).reshape(shape).astype(dtype)


def _samples(rng, dtype):
    # every segment present (the value of an empty one, the dtype's extreme, is checked against TF by the oracle)
    for shape, ids, n in [((5,), [0, 2, 0, -1, 1], 3), ((4, 3), [1, 1, 0, 2], 3), ((2, 3, 2), [[0, 1, 1], [2, 0, 1]], 3),
                          ((0, 2), np.zeros(0, np.int32), 0)]:
        yield SampleInput([_distinct(rng, shape, dtype), np.asarray(ids, np.int32), n])


def _np_segment(reduce, empty):
    def ref(data, ids, n):
        ids = np.asarray(ids)
        rows = data.reshape((ids.size,) + data.shape[ids.ndim:])
        flat = ids.reshape(-1)
        out = np.full((n,) + rows.shape[1:], empty(data.dtype), data.dtype)
        for s in range(n):
            member = rows[flat == s]
            if len(member):
                out[s] = reduce(member)
        return out
    return ref


rows = [
    OpInfo("UnsortedSegmentMax", tf.math.unsorted_segment_max,
           _np_segment(lambda m: m.max(0), lambda dt: np.finfo(dt).min), samples=_samples, order=2),
    OpInfo("UnsortedSegmentMin", tf.math.unsorted_segment_min,
           _np_segment(lambda m: m.min(0), lambda dt: np.finfo(dt).max), samples=_samples, order=2),
    OpInfo("unsorted_segment_mean", tf.math.unsorted_segment_mean,
           _np_segment(lambda m: m.mean(0), lambda dt: 0), samples=_samples, order=2, op=None),
    OpInfo("unsorted_segment_sqrt_n", tf.math.unsorted_segment_sqrt_n,
           _np_segment(lambda m: m.sum(0) / np.sqrt(len(m)), lambda dt: 0), samples=_samples, order=2, op=None),
]
