"""tf.math's rint, ndtri, erfc, confusion_matrix and bincount, composed of registered ops.

Note [Normal tails]: 1 - erf(x) and erfinv(2p - 1) lose all precision in the tails (erfc(10) is
2e-45; ndtri(1e-30) needs p below float64's spacing near 1). Both use the Mills ratio
R(t) = Q(t) / phi(t) of the standard normal (Q the upper tail), from its continued fraction
R(t) = 1/(t + 1/(t + 2/(t + 3/(t + ...)))), which converges fast for t >= 2:
  erfc(x) = 2 Q(x sqrt2) = 2 phi(x sqrt2) R(x sqrt2) for x >= 2 (and 2 - erfc(-x) for x <= -2);
  ndtri(q) for q < 1e-3 solves log Q(t) = log q by Newton's method in t (d/dt log Q = -1/R),
  started from the erfinv estimate; the last step is taken from a constant t, so the gradient is
  that of one Newton step at the root: exactly 1 / phi(ndtri(q)).
Everything runs in float64 and is cast back.
"""
import math

import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.array.manipulation import reshape, unsorted_segment_sum
from tapegrad._ops.math.elementwise import equal, erf, erfinv, exp, greater, greater_equal, less, less_equal, log, logical_or, maximum, minimum, round, sqrt
from tapegrad._ops.math.divide_where import where
from tapegrad._ops.math.reduction import reduce_max
from tapegrad._tensor.tensor import Tensor, cast, constant, stop_gradient
from tapegrad._ops.debugging import asserts as _asserts

__all__ = ["rint", "ndtri", "erfc", "confusion_matrix", "bincount"]

_InvalidArgument = errors.InvalidArgumentError
_CF_TERMS = 40  # continued-fraction depth: float64-exact for t >= 2


def _float_input(x, fn):
    x = convert_arg(x, "tensor", fn, "x")
    if not x.dtype.is_floating:
        raise _InvalidArgument(f"{fn}: x must be float32 or float64, got {x.dtype.name}")
    return x


@dispatch
def rint(x, name=None):
    """The nearest integer, halves to even (rint(0.5) = 0, rint(1.5) = 2), as a float."""
    return round(_float_input(x, "rint"))


def _mills(t):
    """R(t) = Q(t) / phi(t) for t >= 2 (Note [Normal tails])."""
    d = t
    for k in range(_CF_TERMS, 0, -1):
        d = t + k / d
    return 1.0 / d


@dispatch
def erfc(x, name=None):
    """1 - erf(x), accurate where erf(x) is near 1 (Note [Normal tails])."""
    x = _float_input(x, "erfc")
    x64 = cast(x, dtypes.float64)
    # the tail branch's argument, kept where R converges and below 40, past which erfc is 0 in float64
    # (so that the gradient at +-inf is 0, not inf * 0)
    xc = minimum(maximum(abs(x64), 2.0), 40.0)
    tail = 2.0 / math.sqrt(2.0 * math.pi) * exp(-xc * xc) * _mills(xc * math.sqrt(2.0))  # exp(-x^2): x^2 exact
    near = 1.0 - erf(minimum(maximum(x64, -2.0), 2.0))
    out = where(greater_equal(x64, 2.0), tail, where(less_equal(x64, -2.0), 2.0 - tail, near))
    return cast(out, x.dtype)


def _ndtri_lower(q):
    """ndtri(q) for 0 < q <= 0.5 in float64 (Note [Normal tails])."""
    central = math.sqrt(2.0) * erfinv(2.0 * maximum(q, 1e-3) - 1.0)
    qt = minimum(maximum(q, 1e-300), 1e-3)
    start = math.sqrt(2.0) * erfinv(2.0 * qt - 1.0)
    t = where(less(start, -1e300), sqrt(-2.0 * log(qt)), -start)  # erfinv gives -inf below q ~ 1e-16
    t = stop_gradient(maximum(t, 2.0))
    log_q = log(qt)
    half_log_2pi = 0.5 * math.log(2.0 * math.pi)
    for _ in range(6):
        r = _mills(t)
        t = stop_gradient(t + (-0.5 * t * t - half_log_2pi + log(r) - log_q) * r)
    r = _mills(t)
    tail = -(t + (-0.5 * t * t - half_log_2pi + log(r) - log_q) * r)
    return where(less(q, 1e-3), tail, central)


@dispatch
def ndtri(x, name=None):
    """The inverse of the standard normal CDF: -inf at 0, inf at 1, NaN outside [0, 1]."""
    x = _float_input(x, "ndtri")
    p = cast(x, dtypes.float64)
    upper = greater(p, 0.5)
    q = where(upper, 1.0 - p, p)  # exact: 1 - p for p in [0.5, 1]
    low = _ndtri_lower(minimum(maximum(q, 1e-300), 0.5))
    out = where(upper, -low, low)
    out = where(equal(p, 0.0), -np.inf, where(equal(p, 1.0), np.inf, out))
    out = where(logical_or(less(p, 0.0), greater(p, 1.0)), np.nan, out)
    return cast(out, x.dtype)


def _known(t):
    """True if t's values are known now (eager, or a constant inside a trace)."""
    return not (_core._tracing() and (_core._is_traced(t) or t._is_variable))


def _as_int64(x, fn, arg):
    x = convert_arg(x, "tensor", fn, arg)
    return x if x.dtype == dtypes.int64 else cast(x, dtypes.int64)


@dispatch
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, name=None):
    """m[i, j] = the number (or total ``weights``) of entries with label i predicted as j; the size is
    ``num_classes``, or the largest label or prediction + 1 (which needs their values: eager only)."""
    fn = "confusion_matrix"
    dtype = convert_arg(dtype, "dtype", fn, "dtype")
    labels, predictions = _as_int64(labels, fn, "labels"), _as_int64(predictions, fn, "predictions")
    if tuple(labels.shape) != tuple(predictions.shape):
        raise _InvalidArgument(f"{fn}: labels and predictions must have the same shape, got "
                               f"{tuple(labels.shape)} and {tuple(predictions.shape)}")
    known = _known(labels) and _known(predictions)
    if known:
        for arg, t in (("labels", labels), ("predictions", predictions)):
            if (t.numpy() < 0).any():
                raise _InvalidArgument(f"{fn}: `{arg}` contains negative values: {t.numpy().tolist()}")
    if num_classes is None and not known:  # counted at every call of the tf.function
        if labels.shape.num_elements() == 0:
            raise _InvalidArgument(f"{fn}: num_classes=None needs at least one label")
        _asserts.assert_non_negative(labels, message=f"{fn}: `labels` contains negative values")
        _asserts.assert_non_negative(predictions, message=f"{fn}: `predictions` contains negative values")
        n = maximum(reduce_max(labels), reduce_max(predictions)) + 1
    elif num_classes is None:
        if labels.shape.num_elements() == 0:
            raise _InvalidArgument(f"{fn}: num_classes=None needs at least one label")
        n = int(max(labels.numpy().max(), predictions.numpy().max())) + 1
    else:
        n = int(num_classes)
        if known:
            for arg, t in (("labels", labels), ("predictions", predictions)):
                if t.shape.num_elements() and int(t.numpy().max()) >= n:
                    raise _InvalidArgument(f"{fn}: `{arg}` out of bound: values must be < num_classes={n}, "
                                           f"got {t.numpy().tolist()}")
        n = max(n, 0)
    flat_l, flat_p = reshape(labels, [-1]), reshape(predictions, [-1])
    if weights is None:
        values = cast(equal(flat_l, flat_l), dtypes.int64)
    else:
        w = convert_arg(weights, "tensor", fn, "weights")
        if tuple(w.shape) != tuple(labels.shape):
            raise ValueError(f"{fn}: Shapes {tuple(labels.shape)} and {tuple(w.shape)} are incompatible (weights)")
        values = reshape(cast(w, dtype), [-1])  # TF casts weights to dtype before summing
        if dtype == dtypes.bool:
            values = cast(values, dtypes.int64)
    counts = unsorted_segment_sum(values, flat_l * n + flat_p, n * n)
    return cast(reshape(counts, [n, n]), dtype)


def _bincount_size(arr, minlength, maxlength, fn):
    if not _known(arr) and (minlength is None or maxlength is None or int(minlength) != int(maxlength)):
        # read at every call of the tf.function: the counts are a value-shaped segment sum
        _asserts.assert_non_negative(arr, message=f"{fn}: Input arr must be non-negative!")
        size = reduce_max(arr) + 1 if arr.shape.num_elements() else constant(0, arr.dtype)
        if minlength is not None:
            size = maximum(size, int(minlength))
        if maxlength is not None:
            size = minimum(size, int(maxlength))
        return cast(size, dtypes.int64)
    if _known(arr):
        size = int(arr.numpy().max()) + 1 if arr.shape.num_elements() else 0
        if minlength is not None:
            size = max(size, int(minlength))
        if maxlength is not None:
            size = min(size, int(maxlength))
        return size
    if minlength is not None and maxlength is not None and int(minlength) == int(maxlength):
        return int(maxlength)
    raise errors.UnimplementedError(f"{fn}: inside a tf.function the output length must be known: pass "
                                    "minlength == maxlength (the length bincount would read from arr's values)")


@dispatch
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None, axis=None,
             binary_output=False):
    """Counts of each value 0..size-1 in the non-negative integers ``arr`` (or the total of ``weights``
    at them, in weights' dtype); size = max(arr) + 1, at least ``minlength``, at most ``maxlength``
    (larger values are dropped). axis=-1 counts each row of a 2-D arr."""
    fn = "bincount"
    if weights is not None and binary_output:
        raise ValueError(f"{fn}: Arguments `binary_output` and `weights` are mutually exclusive. "
                         "Please specify only one.")
    if axis not in (None, 0, -1):
        raise ValueError(f"{fn}: Unsupported value for argument axis={axis}. Only 0 and -1 are currently supported.")
    arr = convert_arg(arr, "tensor", fn, "arr")
    if arr.dtype not in (dtypes.int32, dtypes.int64):
        arr = cast(arr, dtypes.int32)
    if _known(arr) and (arr.numpy() < 0).any():
        raise _InvalidArgument(f"{fn}: Input arr must be non-negative! Got {arr.numpy().tolist()}")
    if weights is None:
        dtype = convert_arg(dtype, "dtype", fn, "dtype")
        if dtype == dtypes.bool:
            raise _InvalidArgument(f"{fn}: dtype must be int32, int64, float32 or float64, got bool")
        values = None
    else:
        values = convert_arg(weights, "tensor", fn, "weights")
        if values.dtype == dtypes.bool:
            raise _InvalidArgument(f"{fn}: weights must be int32, int64, float32 or float64, got bool")
        if tuple(values.shape) != tuple(arr.shape):
            raise _InvalidArgument(f"{fn}: `weights` must be the same shape as `arr`, got {tuple(values.shape)} "
                                   f"and {tuple(arr.shape)}")
        dtype = values.dtype
    size = _bincount_size(arr, minlength, maxlength, fn)
    rows = arr.shape[0] if axis == -1 and arr.ndim == 2 else None
    idx = cast(reshape(arr, [-1]), dtypes.int64)
    idx = where(less(idx, size), idx, -1)  # values past maxlength are dropped (negative ids are)
    if rows is not None:
        idx = where(less(idx, 0), -1, idx + cast(reshape(_row_ids(rows, arr.shape[1]), [-1]), dtypes.int64) * size)
    n = size * (rows if rows is not None else 1)
    if values is None:
        values = cast(greater_equal(idx, idx), dtype)
    counts = unsorted_segment_sum(reshape(values, [-1]), idx, n)
    if binary_output:
        counts = cast(greater(counts, 0), dtype)
    if isinstance(size, Tensor):  # (computed in the tf.function: the counts already hold size per row)
        return counts if rows is None else reshape(counts, [rows, -1])
    return reshape(counts, [size] if rows is None else [rows, size])


def _row_ids(rows, cols):
    return constant(np.repeat(np.arange(rows, dtype=np.int64), cols))
