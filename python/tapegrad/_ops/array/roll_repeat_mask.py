"""tf.roll, tf.repeat, tf.meshgrid, tf.sequence_mask, tf.linalg.band_part and tf.ensure_shape,
composed of registered ops (slices, concat, gather, broadcast, comparisons, select), so that
gradients, forward mode and tracing need no rules of their own.

Sizes are Python values here, as the result's shape depends on them: an argument that sets a
size (repeats, maxlen, scatter shapes) must be known when tracing; one that only moves values
(roll's shift, band_part's widths) may be a traced tensor and is then read by ops at run time.
"""
import math

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import arange, concat, expand_dims, stack
from tapegrad._ops._lib.shapes import axis_varies, refuse_varying, run_time_size, slice_along
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.array import computed_attrs
from tapegrad._ops.array._common import broadcast_to, is_traced, value_needed
from tapegrad._ops.math.elementwise import ceil, floordiv, floormod, less, less_equal, logical_and, logical_or, maximum
from tapegrad._ops.math.reduction import reduce_max
from tapegrad._tensor.tensor import Tensor, TensorShape, cast, constant
from tapegrad._ops.debugging import checks as _checks

__all__ = ["roll", "repeat", "meshgrid", "sequence_mask", "ensure_shape"]

_InvalidArgument = errors.InvalidArgumentError
_gather, _reshape = _raw.GatherV2, _raw.Reshape


def _integer_tensor(t, fn, arg):
    """The tensor t, refused unless int32 or int64 (TF's attr error, InvalidArgumentError)."""
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise _InvalidArgument(f"{fn}: {arg} must be int32 or int64, got {t.dtype.name}")
    return t


@dispatch("input, shift:tensor_own_dtype, axis:tensor_own_dtype")
def roll(input, shift, axis, name=None):
    """Rolls the elements of ``input`` by ``shift`` along ``axis`` (ints, or equal-length lists):
    x[i] moves to x[(i + shift) % n]; shifts of the same axis add up. A traced ``shift`` is read at
    run time (a gather at (i - shift) % n); a known one makes two slices and a concat."""
    x = input
    shifts = _integer_tensor(shift, "roll", "shift")
    axes = _integer_tensor(axis, "roll", "axis")
    if x.ndim == 0:
        raise _InvalidArgument("roll: input must be 1-D or higher, got a scalar")
    if shifts.ndim > 1:
        raise _InvalidArgument(f"roll: shift must be a scalar or a 1-D vector, got shape {tuple(shifts._shape)}")
    if tuple(shifts._shape) != tuple(axes._shape):
        raise _InvalidArgument(f"roll: shift and axis must have the same shape, got {tuple(shifts._shape)} and "
                               f"{tuple(axes._shape)}")
    value_needed(axes, "roll's axis")
    rank = x.ndim
    axis_list = convert_arg(axes, "ints", "roll", "axis")
    for a in axis_list:
        if not -rank <= a < rank:
            raise _InvalidArgument(f"roll: axis {a} is out of range for input of rank {rank}")
    axis_list = [a % rank for a in axis_list]
    if is_traced(shifts):
        flat = _reshape(shifts, shape=[-1])
        for i, a in enumerate(axis_list):
            if axis_varies(x, a):
                x = _roll_at_run_time(x, a, flat[i])
                continue
            n = x._shape[a]
            if n:
                source = floormod(constant(np.arange(n, dtype=shifts.dtype.as_numpy_dtype)) - flat[i],
                                  constant(np.asarray(n, shifts.dtype.as_numpy_dtype)))
                x = _gather(x, source, axis=a)
        return x
    total = {}
    for a, s in zip(axis_list, convert_arg(shifts, "ints", "roll", "shift")):
        total[a] = total.get(a, 0) + s
    for a, s in total.items():
        if axis_varies(x, a):
            x = _roll_at_run_time(x, a, constant(s, dtypes.int64))
            continue
        n = x._shape[a]
        s = s % n if n else 0
        if s:  # the last s entries move to the front
            x = concat([slice_along(x, a, n - s, n), slice_along(x, a, 0, n - s)], a)
    return x


def _roll_at_run_time(x, axis, shift):
    """roll along an axis whose size n changes from call to call of the tf.function being traced: a
    gather at (i - shift) mod n for i in range(n), n read at run time (no positions when n is 0)."""
    n = run_time_size(x, axis)
    shift = cast(shift, dtypes.int64)
    return _gather(x, floormod(arange(n, dtypes.int64) - shift, maximum(n, 1)), axis=axis)


@dispatch("input, repeats:any, axis:any=None")
def repeat(input, repeats, axis=None, name=None):
    """Repeats each slice of ``input`` along ``axis`` (the flattened input when None) ``repeats``
    times: an int, or one count per slice (a negative count is 0, as TF)."""
    x = input
    reps = convert_arg(repeats, "tensor", "repeat", "repeats", dtypes.int32)
    if not reps.dtype.is_integer:
        raise TypeError(f"repeat: argument 'repeats' must be of an integer dtype, got {reps.dtype.name}")
    if reps.ndim > 1:
        raise ValueError(f"repeat: argument 'repeats' must have rank at most 1, got shape {tuple(reps._shape)}")
    if axis is None:
        x, axis = _reshape(x, shape=[-1]), 0
    else:
        if isinstance(axis, float):
            raise TypeError(f"repeat: argument 'axis' must be an int, got {axis!r}")
        axis = convert_arg(axis, "int", "repeat", "axis")
        if x.ndim == 0:
            x = _reshape(x, shape=[1])
        if not -x.ndim <= axis < x.ndim:
            raise ValueError(f"repeat: axis={axis} out of bounds: expected {-x.ndim}<=axis<{x.ndim}")
        axis %= x.ndim
    if is_traced(reps):  # counts computed inside the tf.function: positions found at run time
        return computed_attrs.repeat(x, reps, axis)
    if axis_varies(x, axis):  # an axis whose size changes from call to call: positions found at run time
        if reps.ndim and reps._shape[0] != 1:
            refuse_varying(x, "repeat", "one count per slice would keep the traced number of slices", axis)
        count = convert_arg(reps, "ints", "repeat", "repeats")[0]
        if count < 0:
            raise _InvalidArgument(f"repeat: repeats must be >= 0, got {count}")
        return _gather(x, floordiv(arange(run_time_size(x, axis) * count, dtypes.int64), max(count, 1)), axis=axis)
    n = x._shape[axis]
    counts = convert_arg(reps, "ints", "repeat", "repeats")
    if reps.ndim == 0 or len(counts) == 1:
        if counts[0] < 0:
            raise _InvalidArgument(f"repeat: repeats must be >= 0, got {counts[0]}")
        counts = counts * n
    elif len(counts) != n:
        raise ValueError(f"repeat: repeats has {len(counts)} entries for dimension {axis} of size {n} "
                         f"(shape {tuple(x._shape)})")
    source = np.repeat(np.arange(n, dtype=np.int32), np.maximum(np.asarray(counts, np.int64), 0))
    return _gather(x, constant(source), axis=axis)


@dispatch
def meshgrid(*args, **kwargs):
    """N-D coordinate grids from N 1-D tensors (each flattened first): ``indexing`` "xy" (the
    default; the first two axes swapped, as for plotting) or "ij" (matrix order); ``name``."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: {next(iter(kwargs))!r} is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: argument 'indexing' must be either 'xy' or 'ij', got {indexing!r}")
    vectors = [_reshape(convert_arg(a, "tensor", "meshgrid", f"args[{i}]"), shape=[-1]) for i, a in enumerate(args)]
    for i, v in enumerate(vectors[1:], 1):
        if v.dtype != vectors[0].dtype:
            raise _InvalidArgument(f"meshgrid: all inputs must have one dtype, got {vectors[0].dtype.name} (args[0]) "
                                   f"and {v.dtype.name} (args[{i}])")
    sizes = [v._shape[0] for v in vectors]
    if any(axis_varies(v, 0) for v in vectors):  # a length that changes from call to call: read at run time
        sizes = [run_time_size(v, 0) for v in vectors]
    position = list(range(len(vectors)))
    if indexing == "xy" and len(vectors) > 1:
        position[0], position[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    if sizes and isinstance(sizes[0], Tensor):
        sizes = stack(sizes)
    for v, at in zip(vectors, position):
        shape = [1] * len(vectors)
        shape[at] = -1
        out.append(broadcast_to(_reshape(v, shape=shape), sizes))
    return out


@dispatch
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """mask[..., j] = j < lengths[...], for j < ``maxlen`` (default: the largest length), as
    ``dtype``. The comparison is in maxlen's dtype (lengths cast to it, as TF)."""
    lengths = convert_arg(lengths, "tensor", "sequence_mask", "lengths")
    dt = convert_arg(dtype, "dtype", "sequence_mask", "dtype")
    if lengths.dtype == dtypes.bool:
        raise _InvalidArgument("sequence_mask: lengths must be numeric, got bool")
    if maxlen is None and _core._varying_dims(lengths):  # (its traced size may be 0 or not at a later call)
        zero = constant(np.zeros([1], lengths.dtype.as_numpy_dtype))
        limit = reduce_max(concat([_reshape(lengths, shape=[-1]), zero], 0))
    elif maxlen is None:
        limit = reduce_max(lengths) if lengths._size else constant(np.zeros((), lengths.dtype.as_numpy_dtype))
    else:
        limit = convert_arg(maxlen, "tensor", "sequence_mask", "maxlen")
        if limit.ndim != 0:
            raise ValueError(f"sequence_mask: argument 'maxlen' must be a scalar, got shape {tuple(limit._shape)}")
    if is_traced(limit):  # the result's length is read at every call (a Range, value-shaped)
        steps = arange(cast(ceil(limit), limit.dtype) if limit.dtype.is_floating else limit, limit.dtype)
        given = lengths if lengths.dtype == limit.dtype else cast(lengths, limit.dtype)
        mask = less(steps, expand_dims(given, -1))
        return mask if dt == dtypes.bool else cast(mask, dt)
    bound = limit._item()
    if not math.isfinite(bound) or maxlen is not None and bound < 0:
        raise _InvalidArgument(f"sequence_mask: maxlen must be finite and >= 0, got {bound}")
    steps = constant(np.arange(max(math.ceil(bound), 0), dtype=limit.dtype.as_numpy_dtype))
    given = lengths if lengths.dtype == limit.dtype else cast(lengths, limit.dtype)
    mask = less(steps, expand_dims(given, -1))
    return mask if dt == dtypes.bool else cast(mask, dt)


def _band_width(value, fn, arg):
    """(width, tensor) for num_lower / num_upper: width a Python int, or the tensor itself when it is
    traced (then read at run time); tensor the argument as a tensor (None for a Python int)."""
    if isinstance(value, float):
        raise TypeError(f"{fn}: argument {arg!r} must be an integer, got {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value), None
    t = _integer_tensor(convert_arg(value, "tensor", fn, arg), fn, arg)
    if t.ndim != 0:
        raise _InvalidArgument(f"{fn}: {arg} must be a scalar, got shape {tuple(t._shape)}")
    return (t if is_traced(t) else int(t._item())), t


@dispatch("input, num_lower:any, num_upper:any")
def band_part(input, num_lower, num_upper, name=None):
    """The band of each innermost matrix: entry (i, j) kept where (num_lower < 0 or i - j <= num_lower)
    and (num_upper < 0 or j - i <= num_upper), zero elsewhere (a select: inf or NaN outside the band
    does not leak into the result or the gradient)."""
    x = input
    if x.ndim < 2:
        raise _InvalidArgument(f"band_part: input must be at least 2-D, got shape {tuple(x._shape)}")
    m, n = x._shape[-2:]
    if axis_varies(x, x.ndim - 2) or axis_varies(x, x.ndim - 1):
        m = n = None  # read at run time (a width beyond them is not checked)
    lower, lower_t = _band_width(num_lower, "band_part", "num_lower")
    upper, upper_t = _band_width(num_upper, "band_part", "num_upper")
    if lower_t is not None and upper_t is not None and lower_t.dtype != upper_t.dtype:
        raise _InvalidArgument(f"band_part: num_lower and num_upper must have one dtype, got {lower_t.dtype.name} "
                               f"and {upper_t.dtype.name}")
    if m is None:
        sizes = [run_time_size(x, x.ndim + d) for d in (-2, -1)]
        for width, size, what, whose in ((lower, sizes[0], "num_lower", "rows"),
                                        (upper, sizes[1], "num_upper", "columns")):
            if isinstance(width, int) and width > 0:  # checked at every call, as TF checks it
                _checks.check_less_equal(constant(width, dtypes.int64), size,
                                         f"band_part: {what} must be negative or at most the number of {whose}")
        rows, cols = (arange(n, dtypes.int64) for n in sizes)
        below = _reshape(rows, shape=[-1, 1]) - _reshape(cols, shape=[1, -1])
        keep = logical_and(_within(below, lower), _within(-below, upper))
        return select(keep, x, constant(np.zeros((), x.dtype.as_numpy_dtype)))
    if isinstance(lower, int) and lower > m:
        raise _InvalidArgument(f"band_part: num_lower must be negative or at most the number of rows ({m}), got {lower}")
    if isinstance(upper, int) and upper > n:
        raise _InvalidArgument(f"band_part: num_upper must be negative or at most the number of columns ({n}), "
                               f"got {upper}")
    below = np.subtract.outer(np.arange(m), np.arange(n))  # i - j: how far below the diagonal
    keep = logical_and(_within(below, lower), _within(-below, upper))
    return select(keep, x, constant(np.zeros((), x.dtype.as_numpy_dtype)))


def _within(distance, width):
    """distance <= width, or True everywhere for a negative width (a Python int or a traced tensor);
    distance a NumPy array, or an int64 tensor computed at run time."""
    if isinstance(distance, Tensor):
        if isinstance(width, int):
            return less_equal(distance, constant(width if width >= 0 else np.iinfo(np.int64).max, dtypes.int64))
        w = cast(width, dtypes.int64)
        return logical_or(less(w, constant(0, dtypes.int64)), less_equal(distance, w))
    if isinstance(width, int):
        return constant(np.full(distance.shape, True) if width < 0 else distance <= width)
    d = constant(distance.astype(width.dtype.as_numpy_dtype))
    return logical_or(less(width, constant(np.zeros((), width.dtype.as_numpy_dtype))), less_equal(d, width))


@dispatch("x, shape:any")
def ensure_shape(x, shape, name=None):
    """``x`` after checking that its shape is compatible with ``shape`` (None: any size, or any rank
    for shape=None). A mismatch is InvalidArgumentError, or, while tracing (where TF checks the
    static shape), ValueError."""
    t = x
    want = _expected_shape(shape)
    if want.rank is None:
        return t
    have = list(t._shape)
    if len(have) != want.rank or any(w is not None and w != h for w, h in zip(want.as_list(), have)):
        text = (f"ensure_shape: the shape of x {tuple(have)} is not compatible with the expected shape "
                f"{tuple(want.as_list())}")
        raise ValueError(text) if _core._tracing() else _InvalidArgument(text)
    return t


def _expected_shape(shape):
    """ensure_shape's ``shape`` as a TensorShape: a TensorShape, None, a list of ints and Nones, or a 1-D
    integer tensor; TensorShape's errors (TypeError, ValueError) re-raised naming ensure_shape."""
    if isinstance(shape, TensorShape):
        return shape
    if isinstance(shape, Tensor):
        if not shape.dtype.is_integer or shape.ndim != 1:
            raise TypeError(f"ensure_shape(): argument 'shape' must be a 1-D integer tensor, got "
                            f"{shape.dtype.name}{tuple(shape._shape)}")
        value_needed(shape, "ensure_shape's shape")
        shape = convert_arg(shape, "ints", "ensure_shape", "shape")
    try:
        return TensorShape(shape)
    except (TypeError, ValueError) as err:
        raise type(err)(f"ensure_shape(): argument 'shape': {err}") from None
