"""Rows for ArgSort and the ops built on it (sort, top_k): the indices are not differentiable, the
sorted values are (a gather), to second order."""
import numpy as np

import tapegrad as tf
from opinfo.core import OpInfo, SampleInput

_argsort_op = tf._core.op("ArgSort")


def _distinct(rng, shape, dtype):
    """Values without ties, so that finite differences do not cross a reordering."""
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.31).reshape(shape).astype(dtype)


def _sort_samples(rng, dtype):
    for shape, kwargs in [((5,), {}), ((3, 4), {"axis": 0}), ((2, 3, 4), {"axis": 1, "direction": "DESCENDING"}),
                          ((2, 0), {})]:
        yield SampleInput([_distinct(rng, shape, dtype)], kwargs)


def _np_sort(x, axis=-1, direction="ASCENDING"):
    s = np.sort(x, axis=axis, kind="stable")
    return np.flip(s, axis) if direction == "DESCENDING" else s


def _argsort_samples(rng, dtype):
    for shape, kwargs in [((5,), {"axis": -1, "descending": False}), ((3, 4), {"axis": 0, "descending": True})]:
        yield SampleInput([_distinct(rng, shape, dtype)], kwargs)
    yield SampleInput([np.array([2, 1, 2, 0, 1], dtype)], {"axis": 0, "descending": True})  # ties keep index order


def _np_argsort(x, axis, descending):
    return np.argsort(-x if descending else x, axis=axis, kind="stable").astype(np.int32)


def _top_k_samples(rng, dtype):
    for shape, k in [((6,), 3), ((3, 5), 2), ((2, 4), 4), ((2, 4), 0)]:
        yield SampleInput([_distinct(rng, shape, dtype), k])


def _np_top_k(x, k):
    return np.flip(np.sort(x, axis=-1, kind="stable"), -1)[..., :k]


_search_op = tf._core.op("SearchSorted")


def _search_samples(rng, dtype):
    s = np.sort(rng.uniform(-2, 2, (3, 6)).astype(dtype), axis=-1)
    yield SampleInput([s, rng.uniform(-2, 2, (3, 4)).astype(dtype)], {"right": False})
    yield SampleInput([s, s[:, ::2].copy()], {"right": True})  # values equal to entries: the side matters


def _np_search(s, v, right):
    side = "right" if right else "left"
    return np.stack([np.searchsorted(a, b, side=side) for a, b in zip(s, v)]).astype(np.int32)


rows = [
    OpInfo("SearchSorted", lambda s, v, **kw: _search_op(s, v, **kw), _np_search, samples=_search_samples,
           differentiable=False),
    OpInfo("ArgSort", lambda x, **kw: _argsort_op(x, **kw), _np_argsort, samples=_argsort_samples, differentiable=False),
    OpInfo("sort", tf.sort, _np_sort, samples=_sort_samples, order=2, op=None),
    OpInfo("top_k", lambda x, k: tf.math.top_k(x, k).values, _np_top_k, samples=_top_k_samples, order=2, op=None),
]
