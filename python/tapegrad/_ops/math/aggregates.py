"""More of tf.math, composed of registered ops so that gradients, forward mode and tracing need no
rules of their own: reciprocal_no_nan, count_nonzero, scalar_mul, accumulate_n, invert_permutation,
the monotonicity tests, xlog1py, zero_fraction, polyval, cumulative_logsumexp and the sorted
segment reductions.

Note [Cumulative logsumexp]: a running logsumexp cannot subtract one maximum for the whole axis
(a prefix far below it would underflow to -inf), so it is a log-space scan by doubling: after the
step with shift s, out[i] = logsumexp(x[i-2s+1 .. i]); each step adds out[i - s] into out[i] with
lse(a, b) = m + log(exp(a - m) + exp(b - m)), m = stop_gradient(max(a, b)) (0 where not finite).
The gradient is then the softmax weights, exact at ties, and ceil(log2(n)) steps suffice.
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import concat, ones_like, zeros_like
from tapegrad._ops._lib.shapes import refuse_varying, segment_op, slice_along
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.math._common import dtype_arg, sorted_segments
from tapegrad._ops.math.elementwise import abs, equal, floordiv, less, less_equal, log, log1p, maximum, not_equal, sign
from tapegrad._ops.math.reduction import reduce_all, reduce_mean, reduce_sum
from tapegrad._tensor.tensor import Tensor, cast, constant, stop_gradient
from tapegrad._ops import _raw

__all__ = [
    "reciprocal_no_nan", "count_nonzero", "scalar_mul", "accumulate_n", "invert_permutation",
    "is_non_decreasing", "is_strictly_increasing", "xlog1py", "zero_fraction", "polyval",
    "cumulative_logsumexp", "segment_sum", "segment_mean",
]

_InvalidArgument = errors.InvalidArgumentError
_exp, _reshape, _segment_sum = _raw.Exp, _raw.Reshape, _raw.UnsortedSegmentSum


def _zero_of(x):
    return constant(False if x.dtype == dtypes.bool else 0, dtype=x.dtype)


@dispatch("x")
def reciprocal_no_nan(x, *, name=None):
    """1 / x, 0 where x == 0; float inputs only (an integer is InvalidArgumentError, as in TF)."""
    if not x.dtype.is_floating:
        raise _InvalidArgument(f"reciprocal_no_nan: x must be float32 or float64, got {x.dtype.name}")
    return _raw.DivNoNan(constant(1, dtype=x.dtype), x)


@dispatch("input, axis:axes=None, keepdims:bool=False, dtype:any='int64'")  # (dtype: see dtype_arg)
def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, *, name=None):
    """The number of non-zero entries (NaN counts) over ``axis``, as ``dtype``."""
    dtype = dtype_arg(dtype, dtypes.int64, "count_nonzero")
    counts = reduce_sum(cast(not_equal(input, _zero_of(input)), dtypes.int64), axis, keepdims=keepdims)
    return cast(counts, dtype)


@dispatch
def scalar_mul(scalar, x, name=None):
    """scalar * x for a 0-d ``scalar`` converted to x's dtype (another dtype's tensor is a ValueError)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"scalar_mul: x must be a Tensor, got {type(x).__name__}")
    if isinstance(scalar, Tensor) and scalar.dtype != x.dtype:
        raise ValueError(f"scalar_mul: scalar has dtype {scalar.dtype.name}, x {x.dtype.name}")
    s = convert_arg(scalar, "tensor", "scalar_mul", "scalar", x.dtype)
    if s.ndim != 0:
        raise ValueError(f"scalar_mul: the input scalar must be a 0-D value, got shape {tuple(s.shape)}")
    return s * x


@dispatch
def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of a non-empty list of tensors of one dtype and shape (tf.math.add_n with checks on
    the optional ``shape`` and ``tensor_dtype``)."""
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("accumulate_n: inputs must be a list of at least one Tensor with the same dtype and shape")
    ts = [convert_arg(t, "tensor", "accumulate_n", "inputs") for t in inputs]
    if any(t.dtype != ts[0].dtype for t in ts):
        raise ValueError("accumulate_n: inputs must be a list of at least one Tensor with the same dtype and shape")
    want = None if shape is None else _shape_list(shape)
    for t in ts:
        got = list(t.shape)
        if want is not None and (len(want) != len(got) or any(w not in (None, g) for w, g in zip(want, got))):
            raise ValueError(f"accumulate_n: shapes {tuple(want)} and {tuple(got)} are not compatible")
        want = got
    if tensor_dtype is not None and convert_arg(tensor_dtype, "dtype", "accumulate_n", "tensor_dtype") != ts[0].dtype:
        raise TypeError(f"accumulate_n: tensor_dtype is {tensor_dtype!r}, but the inputs are {ts[0].dtype.name}")
    total = ts[0]
    for t in ts[1:]:
        total = total + t
    return total


def _shape_list(shape):
    if not isinstance(shape, (list, tuple)) and not hasattr(shape, "as_list"):
        raise TypeError(f"accumulate_n: shape must be a list of dimensions, got {shape!r}")
    return [None if d is None else convert_arg(d, "int", "accumulate_n", "shape") for d in list(shape)]


@dispatch("x")
def invert_permutation(x, *, name=None):
    """y with y[x[i]] = i for a permutation x of 0..n-1 (int32 or int64, 1-D): its argsort. Eager
    inputs are checked to be permutations (InvalidArgumentError); a traced one cannot be."""
    if x.dtype not in (dtypes.int32, dtypes.int64):
        raise _InvalidArgument(f"invert_permutation: x must be int32 or int64, got {x.dtype.name}")
    if x.ndim != 1:
        raise _InvalidArgument(f"invert_permutation: x must be a 1-D vector, got shape {tuple(x.shape)}")
    if not (_core._tracing() and _core._is_traced(x)):
        values = x.numpy()
        n = len(values)
        if ((values < 0) | (values >= n)).any() or len(np.unique(values)) != n:
            raise _InvalidArgument(f"invert_permutation: x is not a permutation of 0..{n - 1}: {values.tolist()}")
    return cast(_raw.ArgSort(x, axis=-1, descending=False), x.dtype)


def _steps(x, fn):
    """x flattened and its consecutive differences, as TF computes them (so integer overflow agrees)."""
    if x.dtype == dtypes.bool:
        raise TypeError(f"{fn}: expected x to be numeric, got bool")
    flat = _reshape(x, shape=[-1])
    n = int(np.prod(x.shape, dtype=np.int64))
    return slice_along(flat, 0, min(n, 1), n) - slice_along(flat, 0, 0, max(n - 1, 0))


@dispatch("x")
def is_non_decreasing(x, *, name=None):
    """True if x (flattened) never decreases; a NaN makes it False; fewer than 2 entries: True."""
    d = _steps(x, "is_non_decreasing")
    return reduce_all(less_equal(_zero_of(d), d))


@dispatch("x")
def is_strictly_increasing(x, *, name=None):
    """True if x (flattened) always increases; a NaN makes it False; fewer than 2 entries: True."""
    d = _steps(x, "is_strictly_increasing")
    return reduce_all(less(_zero_of(d), d))


@dispatch("x, y")
def xlog1py(x, y, *, name=None):
    """x * log1p(y), 0 where x == 0 (even for a NaN y); the gradients there are 0 too, as TF's."""
    if x.dtype != y.dtype:
        raise _InvalidArgument(f"xlog1py: x and y must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    zero = equal(x, _zero_of(x))
    safe_y = select(zero, _zero_of(y), y)  # a NaN/-1 y where x == 0 reaches neither value nor gradient
    return select(zero, _zero_of(x), x * log1p(safe_y))


@dispatch("value")
def zero_fraction(value, *, name=None):
    """The fraction of entries equal to zero, as a float32 scalar (NaN for an empty tensor)."""
    return reduce_mean(cast(equal(value, _zero_of(value)), dtypes.float32))


# coeffs: a list whose entries keep their own dtypes (not x's)
@dispatch("coeffs:any, x")
def polyval(coeffs, x, *, name=None):
    """coeffs[0] * x^(n-1) + ... + coeffs[n-1] by Horner's rule; ``coeffs`` is a list (zeros like x if
    empty); each coefficient broadcasts against x."""
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"polyval: argument coeffs must be list type, got {type(coeffs).__name__}")
    if not coeffs:
        return zeros_like(x)
    cs = [convert_arg(c, "tensor", "polyval", "coeffs") for c in coeffs]
    p = cs[0]
    for c in cs[1:]:
        p = c + p * x
    return p


def _logaddexp(a, b):
    m = maximum(a, b)
    finite = less(abs(m), float("inf"))
    m = stop_gradient(select(finite, m, _zero_of(m)))
    return log(_exp(a - m) + _exp(b - m)) + m


def _shifted(x, axis, shift, n):
    """x moved ``shift`` places along axis, -inf coming in (logsumexp's identity)."""
    shape = list(x.shape)
    shape[axis] = min(shift, n)
    pad = constant(np.full(shape, -np.inf, x.dtype.as_numpy_dtype))
    return concat([pad, slice_along(x, axis, 0, max(n - shift, 0))], axis)


# axis=None is refused naming the op, after the dtype check (a declared int would let None through)
@dispatch("x, axis:any=0, exclusive:bool=False, reverse:bool=False")
def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, *, name=None):
    """log(cumsum(exp(x))) along ``axis``, without overflow or underflow (Note [Cumulative logsumexp]).

    ``exclusive`` leaves each entry out of its own sum (the first is -inf); ``reverse`` sums from the end.
    """
    if not x.dtype.is_floating:
        raise _InvalidArgument(f"cumulative_logsumexp: x must be float32 or float64, got {x.dtype.name}")
    axis = convert_arg(axis, "int", "cumulative_logsumexp", "axis")
    if not -x.ndim <= axis < x.ndim:
        raise _InvalidArgument(f"cumulative_logsumexp: axis {axis} is out of range for shape {tuple(x.shape)}")
    axis %= x.ndim
    refuse_varying(x, "cumulative_logsumexp", "its steps and padding are sized by the traced shape")
    n = x.shape[axis]
    out = x if not reverse else _reversed(x, axis, n)
    if exclusive:
        out = _shifted(out, axis, 1, n)
    shift = 1
    while shift < n:
        out = _logaddexp(out, _shifted(out, axis, shift, n))
        shift *= 2
    return out if not reverse else _reversed(out, axis, n)


def _reversed(x, axis, n):
    return _raw.ReverseV2(x, axis=[axis]) if n else x


@dispatch("data, segment_ids:tensor_own_dtype")
def segment_sum(data, segment_ids, *, name=None):
    """out[s] = sum of data[i] over segment_ids[i] == s, for sorted non-negative ids; the output has
    segment_ids[-1] + 1 rows (a missing id's row is 0)."""
    data, ids, n = sorted_segments(data, segment_ids, "segment_sum")
    return segment_op(_segment_sum, data, ids, n)


@dispatch("data, segment_ids:tensor_own_dtype")
def segment_mean(data, segment_ids, *, name=None):
    """The mean of each segment (see segment_sum; an empty segment's row is 0). Integer data gives
    the mean rounded toward zero, as TF."""
    data, ids, n = sorted_segments(data, segment_ids, "segment_mean")
    sums = segment_op(_segment_sum, data, ids, n)
    counts = segment_op(_segment_sum, ones_like(ids, data.dtype), ids, n)  # (ids' length read at run time)
    counts = _reshape(maximum(counts, constant(1, dtype=data.dtype)), shape=[-1] + [1] * (data.ndim - 1))
    if data.dtype.is_floating:
        return sums / counts
    return sign(sums) * floordiv(abs(sums), counts)
