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


def _nonzero_samples(rng, dtype):
    for sample in _samples(rng, dtype):
        x = sample.args[0]
        sample.args[0] = (np.sign(x) + (x == 0)) * (0.5 + np.abs(x))  # away from 0: the product's kinks
        yield sample


def _cumprod_samples(rng, dtype):
    for shape, kwargs in [((5,), {}), ((3, 4), {"axis": 1, "exclusive": True}), ((2, 3), {"axis": 0, "reverse": True})]:
        yield SampleInput([(rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1, 1], size=shape)).astype(dtype)], kwargs)


def _np_cumprod(x, axis=0, exclusive=False, reverse=False):
    y = np.flip(x, axis) if reverse else x
    out = np.cumprod(y, axis=axis)
    if exclusive:
        out = np.concatenate([np.ones_like(np.take(out, [0], axis)), np.delete(out, -1, axis)], axis)
    return np.flip(out, axis) if reverse else out


rows = [
    OpInfo("UnsortedSegmentProd", tf.math.unsorted_segment_prod,
           _np_segment(lambda m: m.prod(0), lambda dt: 1), samples=_nonzero_samples, order=2),
    OpInfo("Cumprod", tf.math.cumprod, _np_cumprod, samples=_cumprod_samples, order=2),
    OpInfo("UnsortedSegmentMax", tf.math.unsorted_segment_max,
           _np_segment(lambda m: m.max(0), lambda dt: np.finfo(dt).min), samples=_samples, order=2),
    OpInfo("UnsortedSegmentMin", tf.math.unsorted_segment_min,
           _np_segment(lambda m: m.min(0), lambda dt: np.finfo(dt).max), samples=_samples, order=2),
    OpInfo("unsorted_segment_mean", tf.math.unsorted_segment_mean,
           _np_segment(lambda m: m.mean(0), lambda dt: 0), samples=_samples, order=2, op=None),
    OpInfo("unsorted_segment_sqrt_n", tf.math.unsorted_segment_sqrt_n,
           _np_segment(lambda m: m.sum(0) / np.sqrt(len(m)), lambda dt: 0), samples=_samples, order=2, op=None),
]
