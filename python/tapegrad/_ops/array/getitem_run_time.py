"""x[key] inside a tf.function for a tensor whose sizes change from call to call (it comes from a
value-shaped op: tf.unique, tf.where, tf.boolean_mask, ...; Note [Value-shaped ops]), or for a key
whose slice bounds are computed there (x[:n]).

A StridedSlice holds its bounds as numbers resolved at the trace, so it would keep the traced sizes
(a silently short or failing slice at a later call). Here every bound is resolved in the graph from
the run-time shape, as Python's slice.indices(n) resolves it: an index or a slice of an axis becomes
a gather of positions computed from tf.shape (a Range for a slice), so the gradient is the gather's;
':' reads nothing, None inserts an axis (ExpandDims), `...` stands for the axes not named.
"""
import builtins

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.shapes import axis_varies, run_time_size
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.math.elementwise import greater, less, maximum, minimum
from tapegrad._tensor.tensor import Tensor, cast, constant

_expand_dims, _gather = _raw.ExpandDims, _raw.GatherV2
_WHOLE, _FLIPPED = builtins.slice(None), builtins.slice(None, None, -1)


def getitem_at_run_time(x, key):
    """x[key] for a key of ints, int scalar tensors, slices of ints, None and one `...`; None for
    another key (index lists, masks), which the caller refuses."""
    key = key if isinstance(key, tuple) else (key,)
    named = [k for k in key if k is not None and k is not Ellipsis]
    if sum(k is Ellipsis for k in key) > 1 or len(named) > x.ndim or not all(map(_supported, named)):
        return None
    if not any(k is Ellipsis for k in key):  # (identity: == on a tensor entry would compare values)
        key = key + (Ellipsis,)
    at = next(i for i, k in enumerate(key) if k is Ellipsis)
    key = key[:at] + (_WHOLE,) * (x.ndim - len(named)) + key[at + 1:]
    y, d = x, 0  # d: the axis of y that key's next entry indexes
    for k in key:
        if k is None:
            y = _expand_dims(y, axis=d)
            d += 1
        elif isinstance(k, builtins.slice):
            if _is(k, _FLIPPED):
                y = _raw.ReverseV2(y, axis=[d])
            elif not axis_varies(y, d) and all(v is None or _plain_int(v) for v in (k.start, k.stop)) and not _int_scalar(k.step):
                # an axis of one size at every call, sliced by numbers: positions known while tracing
                y = _gather(y, constant(np.arange(*k.indices(y._shape[d])), dtypes.int64), axis=d)
            elif not _is(k, _WHOLE):
                y = _gather(y, _slice_positions(k, run_time_size(y, d)), axis=d)
            d += 1
        elif _plain_int(k) and not axis_varies(y, d):  # checked while tracing, as TF checks a known size
            n = y._shape[d]
            if not -n <= k < n:
                raise errors.InvalidArgumentError(f"strided_slice: index {k} is out of bounds for axis {d} of size {n}")
            y = _gather(y, constant(int(k) % n, dtypes.int64), axis=d)
        else:  # an index: the axis goes (one out of range is the gather's error at run time)
            n = run_time_size(y, d)
            if isinstance(k, Tensor):
                k = cast(k, dtypes.int64)
                y = _gather(y, select(less(k, 0), k + n, k), axis=d)
            else:
                y = _gather(y, n + int(k) if k < 0 else constant(int(k), dtypes.int64), axis=d)
    return y


def _is(k, plain):
    """k == plain for a slice whose bounds may be tensors (== would compare their values)."""
    return all((a is None and b is None) or (_plain_int(a) and a == b) for a, b in
               ((k.start, plain.start), (k.stop, plain.stop), (k.step, plain.step)))


def _supported(k):
    if isinstance(k, builtins.slice):
        return (all(v is None or _plain_int(v) or _int_scalar(v) for v in (k.start, k.stop)) and
                (k.step is None or _int_scalar(k.step) or (_plain_int(k.step) and k.step != 0)))
    return _int_scalar(k) or _plain_int(k)


def _int_scalar(v):
    return isinstance(v, Tensor) and v.ndim == 0 and v.dtype.is_integer


def _plain_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _slice_positions(k, n):
    """The positions slice k takes from an axis of run-time length n (an int64 scalar tensor), as
    slice.indices(n) gives them; an index past the end is clamped, as in Python. An index out of range
    (x[5] on 3 rows) is the gather's error at run time."""
    if _int_scalar(k.step):  # computed in the graph: the direction is known at run time only
        step = cast(k.step, dtypes.int64)
        up = greater(step, 0)
        low, high = select(up, constant(0, dtypes.int64), constant(-1, dtypes.int64)), select(up, n, n - 1)
        pick = lambda a, b: select(up, a, b)  # noqa: E731
    else:
        step = 1 if k.step is None else int(k.step)
        low, high = (0, n) if step > 0 else (-1, n - 1)  # the bounds each end is clamped to
        pick = lambda a, b: a if step > 0 else b  # noqa: E731

    def bound(v, default):
        if v is None:
            return default
        if isinstance(v, Tensor):  # computed in the graph: its sign is known at run time only
            v = cast(v, dtypes.int64)
            at = select(less(v, 0), n + v, v)
        else:
            v = int(v)
            at = n + v if v < 0 else constant(v, dtypes.int64)
        return minimum(maximum(at, low), high)

    start = bound(k.start, pick(low, high))
    stop = bound(k.stop, pick(high, low))
    stop = pick(maximum(stop, start), minimum(stop, start))  # (an empty slice: range's own order)
    return _raw.Range(start, stop, step)  # (a Python start or step takes stop's int64)
