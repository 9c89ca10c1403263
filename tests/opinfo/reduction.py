"""Rows for reductions (Sum, Mean, Max, Min, Prod, Any, All, ArgMax, ArgMin, Cumsum) and their composites."""
import numpy as np

import tapegrad as tf
from opinfo import reduction_edges, reduction_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs

# (shape, kwargs): no axis, one axis, negative axis, several axes, keepdims, empty axis list, scalars
AXIS_CASES = [
    ((2, 3, 4), {}), ((2, 3, 4), {"axis": 1}), ((2, 3, 4), {"axis": -1, "keepdims": True}),
    ((2, 3, 4), {"axis": [0, 2]}), ((2, 3, 4), {"axis": [-1, 0], "keepdims": True}), ((5,), {"axis": 0}),
    ((2, 3), {"axis": []}), ((), {}), ((3, 2), {"keepdims": True}),
]


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _ref(np_fn):
    return lambda x, axis=None, keepdims=False: np.asarray(np_fn(x, axis=_np_axis(axis), keepdims=keepdims))


def _values(rng, shape, dtype, lo=-2.0, hi=2.0):
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _distinct(rng, shape, dtype):
    """Distinct values 0.25 apart (no ties, so max/min/argmax are differentiable and unambiguous)."""
    n = int(np.prod(shape, dtype=np.int64))
    v = (rng.permutation(n) - n // 2) * (1 if np.dtype(dtype).kind in "iu" else 0.25)
    return np.asarray(v, dtype).reshape(shape)


def _axis_samples(rng, dtype, make=_values):
    for shape, kw in AXIS_CASES:
        yield SampleInput([make(rng, shape, dtype)], dict(kw))


def _prod_samples(rng, dtype):
    for shape, kw in AXIS_CASES:
        x = rng.integers(-2, 3, size=shape).astype(dtype) if np.dtype(dtype).kind in "iu" else \
            np.asarray(rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape), dtype)
        yield SampleInput([x], dict(kw))
    # zeros: the gradient is the product of the others, not out / x
    one_zero = np.array([[1.5, 0.0, -2.0], [0.5, 1.2, 0.8]], dtype)
    two_zeros = np.array([[0.0, 1.5, 0.0, 2.0], [1.0, -1.0, 0.7, 0.0]], dtype)
    for x in (one_zero, two_zeros):
        for kw in ({}, {"axis": 1}, {"axis": 0, "keepdims": True}):
            yield SampleInput([x], kw)


def _prod_others_samples(rng, dtype):
    for shape in [(4,), (2, 3), (2, 1, 3), (2, 0)]:
        yield SampleInput([(rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)).astype(dtype)])
    yield SampleInput([np.array([[0.0, 1.5, 2.0], [0.0, 0.0, 3.0], [1.0, 2.0, 0.5]], dtype)])


def _prod_others_ref(x):
    if x.shape[-1] == 0:
        return x.copy()
    return np.stack([np.prod(np.delete(x, i, axis=-1), axis=-1) for i in range(x.shape[-1])], axis=-1)


def _bool_samples(rng, dtype):
    for shape, kw in AXIS_CASES:
        yield SampleInput([rng.uniform(size=shape) > 0.6], dict(kw))
    yield SampleInput([np.zeros((2, 0), bool)], {"axis": 1})


def _arg_samples(rng, dtype):
    for shape, kw in [((5,), {}), ((2, 3, 4), {"axis": 1}), ((2, 3, 4), {"axis": -1}),
                      ((3, 4), {"axis": 0, "output_type": tf.int32})]:
        yield SampleInput([_distinct(rng, shape, dtype)], kw)
    if np.dtype(dtype).kind == "f":   # ties: the first index wins; NaN is skipped (as TF)
        yield SampleInput([np.array([[1.0, 3.0, 3.0], [np.nan, 2.0, np.nan]], dtype)], {"axis": 1})


def _arg_ref(np_fn):
    def ref(x, axis=None, output_type=tf.int64):
        if x.dtype.kind == "f":  # NaN never wins: as the opposite extreme (ties keep the first index)
            x = np.where(np.isnan(x), -np.inf if np_fn is np.argmax else np.inf, x)
        return np_fn(x, axis=0 if axis is None else axis).astype(tf.as_dtype(output_type).as_numpy_dtype)
    return ref


def _cumsum_samples(rng, dtype):
    for shape, kw in [((5,), {}), ((2, 3, 4), {"axis": 1}), ((2, 3, 4), {"axis": -1, "exclusive": True}),
                      ((3, 4), {"axis": 0, "reverse": True}), ((3, 4), {"axis": 1, "exclusive": True, "reverse": True}),
                      ((0, 3), {"axis": 0})]:
        yield SampleInput([_values(rng, shape, dtype)], kw)


def _cumsum_ref(x, axis=0, exclusive=False, reverse=False):
    y = np.moveaxis(x, axis, 0)
    if reverse:
        y = y[::-1]
    c = np.cumsum(y, axis=0, dtype=y.dtype)
    if exclusive:
        c = np.concatenate([np.zeros_like(c[:1]), c[:-1]], axis=0)
    if reverse:
        c = c[::-1]
    return np.moveaxis(c, 0, axis)


def _logsumexp_ref(x, axis=None, keepdims=False):
    ax = _np_axis(axis)
    m = np.max(x, axis=ax, keepdims=True)
    return np.log(np.sum(np.exp(x - m), axis=ax, keepdims=keepdims)) + (m if keepdims else np.squeeze(m, axis=ax))


def _logsumexp_samples(rng, dtype):
    for shape, kw in AXIS_CASES[:6]:
        yield SampleInput([_values(rng, shape, dtype)], dict(kw))
    # huge inputs: exp would overflow without the max subtracted; the gradient is softmax
    yield SampleInput([np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1000.5]], dtype)], {"axis": 1})
    yield SampleInput([np.array([88.0, 89.0, 90.0], dtype)], {})


def _spread_samples(rng, dtype):
    for shape, kw in AXIS_CASES[:6]:
        yield SampleInput([_values(rng, shape, dtype)], dict(kw))


def _norm_samples(rng, dtype):
    yield from _spread_samples(rng, dtype)
    # an all-zero slice: the gradient there is 0 (a subgradient), not NaN
    yield SampleInput([np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]], dtype)], {"axis": 1})


_INT = ("float32", "float64", "int32")
rows = [
    OpInfo("Sum", tf.reduce_sum, _ref(np.sum), samples=_axis_samples, order=2, dtypes=_INT),
    OpInfo("Mean", tf.reduce_mean, _ref(np.mean), samples=_axis_samples, order=2),
    OpInfo("Max", tf.reduce_max, _ref(np.max), samples=lambda r, d: _axis_samples(r, d, _distinct), order=2,
           dtypes=_INT),
    OpInfo("Min", tf.reduce_min, _ref(np.min), samples=lambda r, d: _axis_samples(r, d, _distinct), order=2,
           dtypes=_INT),
    OpInfo("Prod", tf.reduce_prod, _ref(np.prod), samples=_prod_samples, order=2, dtypes=_INT),
    OpInfo("ProdOthers", tf._core.op("ProdOthers"), _prod_others_ref, samples=_prod_others_samples, order=2),
    OpInfo("Cumsum", tf.cumsum, _cumsum_ref, samples=_cumsum_samples, order=2, dtypes=_INT),
    # no gradient
    OpInfo("Any", tf.reduce_any, _ref(np.any), samples=_bool_samples, differentiable=False, dtypes=("bool",)),
    OpInfo("All", tf.reduce_all, _ref(np.all), samples=_bool_samples, differentiable=False, dtypes=("bool",)),
    OpInfo("ArgMax", tf.argmax, _arg_ref(np.argmax), samples=_arg_samples, differentiable=False, dtypes=_INT),
    OpInfo("ArgMin", tf.math.argmin, _arg_ref(np.argmin), samples=_arg_samples, differentiable=False, dtypes=_INT),
    # composites
    OpInfo("reduce_logsumexp", tf.reduce_logsumexp, _logsumexp_ref, samples=_logsumexp_samples, order=2, op=None),
    OpInfo("reduce_variance", tf.math.reduce_variance, _ref(np.var), samples=_spread_samples, order=2, op=None),
    OpInfo("reduce_std", tf.math.reduce_std, _ref(np.std), samples=_spread_samples, order=2, op=None),
    OpInfo("reduce_euclidean_norm", tf.math.reduce_euclidean_norm,
           lambda x, axis=None, keepdims=False: np.sqrt(np.sum(x * x, axis=_np_axis(axis), keepdims=keepdims)),
           samples=_norm_samples, op=None),
]

attach_error_inputs(rows, reduction_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/reduction_errors.py
attach_edge_samples(rows, reduction_edges.EDGE_SAMPLES)  # their edge values, in opinfo/reduction_edges.py
