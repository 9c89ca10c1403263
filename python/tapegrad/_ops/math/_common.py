"""Pieces of tf.math's ops that other ops run on tensors already converted: erfc and ndtri in the normal
tails (Note [Normal tails] in math/tails_and_counts.py), the NaN and infinity tests and the
checked arguments of the sorted segment reductions."""
import math

import numpy as np

from tapegrad import _core, dtypes
from tapegrad._ops._lib.tensors import select
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.debugging.checks import check_greater_equal, check_non_negative
from tapegrad._ops.math.reduction import reduce_sum
from tapegrad._ops.math.elementwise import (equal, erf, erfinv, exp, greater, greater_equal, less, less_equal, log,
                                             logical_or, maximum, minimum, sqrt)
from tapegrad._tensor.tensor import cast, stop_gradient

_CF_TERMS = 40  # continued-fraction depth: float64-exact for t >= 2
_INF = float("inf")


def _mills(t):
    """R(t) = Q(t) / phi(t) for t >= 2 (Note [Normal tails])."""
    d = t
    for k in range(_CF_TERMS, 0, -1):
        d = t + k / d
    return 1.0 / d


def erfc(x):
    """1 - erf(x) of the float tensor x, accurate where erf(x) is near 1 (Note [Normal tails])."""
    x64 = cast(x, dtypes.float64)
    # the tail branch's argument, kept where R converges and below 40, past which erfc is 0 in float64
    # (so that the gradient at +-inf is 0, not inf * 0)
    xc = minimum(maximum(abs(x64), 2.0), 40.0)
    tail = 2.0 / math.sqrt(2.0 * math.pi) * exp(-xc * xc) * _mills(xc * math.sqrt(2.0))  # exp(-x^2): x^2 exact
    near = 1.0 - erf(minimum(maximum(x64, -2.0), 2.0))
    out = select(greater_equal(x64, 2.0), tail, select(less_equal(x64, -2.0), 2.0 - tail, near))
    return cast(out, x.dtype)


def _ndtri_lower(q):
    """ndtri(q) for 0 < q <= 0.5 in float64 (Note [Normal tails])."""
    central = math.sqrt(2.0) * erfinv(2.0 * maximum(q, 1e-3) - 1.0)
    qt = minimum(maximum(q, 1e-300), 1e-3)
    start = math.sqrt(2.0) * erfinv(2.0 * qt - 1.0)
    t = select(less(start, -1e300), sqrt(-2.0 * log(qt)), -start)  # erfinv gives -inf below q ~ 1e-16
    t = stop_gradient(maximum(t, 2.0))
    log_q = log(qt)
    half_log_2pi = 0.5 * math.log(2.0 * math.pi)
    for _ in range(6):
        r = _mills(t)
        t = stop_gradient(t + (-0.5 * t * t - half_log_2pi + log(r) - log_q) * r)
    r = _mills(t)
    tail = -(t + (-0.5 * t * t - half_log_2pi + log(r) - log_q) * r)
    return select(less(q, 1e-3), tail, central)


def ndtri(x):
    """The inverse of the standard normal CDF at the float tensor x: -inf at 0, inf at 1, NaN outside [0, 1]."""
    p = cast(x, dtypes.float64)
    upper = greater(p, 0.5)
    q = select(upper, 1.0 - p, p)  # exact: 1 - p for p in [0.5, 1]
    low = _ndtri_lower(minimum(maximum(q, 1e-300), 0.5))
    out = select(upper, -low, low)
    out = select(equal(p, 0.0), -np.inf, select(equal(p, 1.0), np.inf, out))
    out = select(logical_or(less(p, 0.0), greater(p, 1.0)), np.nan, out)
    return cast(out, x.dtype)


def is_nan(t):
    """True where the float tensor t is NaN (the only value unequal to itself)."""
    return t != t


def is_inf(t):
    """True where the float tensor t is +inf or -inf."""
    return abs(t) == _INF


def dtype_arg(value, default, fn):
    """An op's `dtype` argument declared `any` with ``default``'s name as its default (so that dtype=None is
    refused naming fn, as a declared dtype would let None through): the default taken as it is, without
    converting its name at every call."""
    if type(value) is str and value == default.name:
        return default
    return convert_arg(value, "dtype", fn, "dtype")


def sorted_segments(data, ids, fn):
    """data, the ids (tensors) and the number of segments, checked as TF's sorted segment kernels check them."""
    if data.dtype == dtypes.bool:
        raise _core.InvalidArgumentError(f"{fn}: data of dtype bool is not supported")
    if ids.dtype not in (dtypes.int32, dtypes.int64):
        raise _core.InvalidArgumentError(f"{fn}: segment_ids must be int32 or int64, got {ids.dtype.name}")
    if data.ndim < 1:
        raise _core.InvalidArgumentError(f"{fn}: data must be at least rank 1, got shape {tuple(data.shape)}")
    if ids.ndim != 1:
        raise _core.InvalidArgumentError(f"{fn}: segment_ids must be a vector, got shape {tuple(ids.shape)}")
    n_ids, n_rows = ids.shape[0], data.shape[0]  # None: computed at each call (the kernel checks them then)
    if n_ids is not None and n_rows is not None and n_ids != n_rows:
        raise _core.InvalidArgumentError(f"{fn}: segment_ids (length {n_ids}) must have the length of data's "
                               f"first dimension ({n_rows})")
    if _core._tracing() and _core._is_traced(ids):  # checked and counted at every call
        if n_ids == 0:
            return data, ids, 0
        check_non_negative(ids[:1], f"{fn}: segment ids must not be negative")
        check_greater_equal(ids[1:], ids[:-1], f"{fn}: segment ids are not increasing")
        return data, ids, reduce_sum(ids[-1:] + 1)  # (0 for ids empty at a call)
    values = ids.numpy()
    if values.size and values[0] < 0:
        raise _core.InvalidArgumentError(f"{fn}: segment id {values[0]} is negative")
    if (np.diff(values) < 0).any():
        raise _core.InvalidArgumentError(f"{fn}: segment ids are not increasing: {values.tolist()}")
    return data, ids, int(values[-1]) + 1 if values.size else 0
