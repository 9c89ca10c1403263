"""tf.math's rint, ndtri, erfc, confusion_matrix and bincount, composed of registered ops (erfc's and
ndtri's formulas are in math/_common.py, for the ops of random/ too).

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
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.shapes import reshape_to, segment_op
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.math import _common
from tapegrad._ops.math.elementwise import equal, greater, greater_equal, less, maximum, minimum, round
from tapegrad._ops.math.reduction import reduce_max
from tapegrad._ops import _raw
from tapegrad._tensor.tensor import Tensor, cast, constant
from tapegrad._ops.debugging.checks import check_non_negative

__all__ = ["rint", "ndtri", "erfc", "confusion_matrix", "bincount"]

_InvalidArgument = errors.InvalidArgumentError
_reshape, _segment_sum = _raw.Reshape, _raw.UnsortedSegmentSum


def _float_input(x, fn):
    if not x.dtype.is_floating:
        raise _InvalidArgument(f"{fn}: x must be float32 or float64, got {x.dtype.name}")
    return x


@dispatch("x")
def rint(x, *, name=None):
    """The nearest integer, halves to even (rint(0.5) = 0, rint(1.5) = 2), as a float."""
    return round(_float_input(x, "rint"))


@dispatch("x")
def erfc(x, *, name=None):
    """1 - erf(x), accurate where erf(x) is near 1 (Note [Normal tails])."""
    return _common.erfc(_float_input(x, "erfc"))


@dispatch("x")
def ndtri(x, *, name=None):
    """The inverse of the standard normal CDF: -inf at 0, inf at 1, NaN outside [0, 1]."""
    return _common.ndtri(_float_input(x, "ndtri"))


def _known(t):
    """True if t's values are known now (eager, or a constant inside a trace)."""
    return not (_core._tracing() and (_core._is_traced(t) or t._is_variable))


def _as_int64(x):
    return x if x.dtype == dtypes.int64 else cast(x, dtypes.int64)


# Each tensor keeps its own dtype; num_classes is whatever int() takes (a float, a tensor); dtype: see
# _common.dtype_arg.
@dispatch("labels:tensor_own_dtype, predictions:tensor_own_dtype, num_classes:any=None, "
          "weights:tensor_own_dtype=None, dtype:any='int32'")
def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32, *, name=None):
    """m[i, j] = the number (or total ``weights``) of entries with label i predicted as j; the size is
    ``num_classes``, or the largest label or prediction + 1 (which needs their values: eager only)."""
    fn = "confusion_matrix"
    dtype = _common.dtype_arg(dtype, dtypes.int32, fn)
    labels, predictions = _as_int64(labels), _as_int64(predictions)
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
        check_non_negative(labels, f"{fn}: `labels` contains negative values")
        check_non_negative(predictions, f"{fn}: `predictions` contains negative values")
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
    flat_l, flat_p = _reshape(labels, shape=[-1]), _reshape(predictions, shape=[-1])
    if weights is None:
        values = cast(equal(flat_l, flat_l), dtypes.int64)
    else:
        if tuple(weights.shape) != tuple(labels.shape):
            raise ValueError(f"{fn}: Shapes {tuple(labels.shape)} and {tuple(weights.shape)} are incompatible "
                             "(weights)")
        values = _reshape(cast(weights, dtype), shape=[-1])  # TF casts weights to dtype before summing
        if dtype == dtypes.bool:
            values = cast(values, dtypes.int64)
    counts = segment_op(_segment_sum, values, flat_l * n + flat_p, n * n)
    return cast(reshape_to(counts, [n, n]), dtype)  # (n a tensor when computed in a tf.function)


def _bincount_size(arr, minlength, maxlength, fn):
    if not _known(arr) and (minlength is None or maxlength is None or int(minlength) != int(maxlength)):
        # read at every call of the tf.function: the counts are a value-shaped segment sum
        check_non_negative(arr, f"{fn}: Input arr must be non-negative!")
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
    idx = cast(_reshape(arr, shape=[-1]), dtypes.int64)
    idx = select(less(idx, size), idx, -1)  # values past maxlength are dropped (negative ids are)
    if rows is not None:
        row_ids = cast(_reshape(_row_ids(rows, arr.shape[1]), shape=[-1]), dtypes.int64)
        idx = select(less(idx, 0), -1, idx + row_ids * size)
    n = size * (rows if rows is not None else 1)
    if values is None:
        values = cast(greater_equal(idx, idx), dtype)
    counts = segment_op(_segment_sum, _reshape(values, shape=[-1]), idx, n)
    if binary_output:
        counts = cast(greater(counts, 0), dtype)
    if isinstance(size, Tensor):  # (computed in the tf.function: the counts already hold size per row)
        return counts if rows is None else _reshape(counts, shape=[rows, -1])
    return _reshape(counts, shape=[size] if rows is None else [rows, size])


def _row_ids(rows, cols):
    return constant(np.repeat(np.arange(rows, dtype=np.int64), cols))
