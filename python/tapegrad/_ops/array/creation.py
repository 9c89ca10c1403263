"""Tensors made from a shape and a value: zeros, ones, fill, eye, range, linspace.

Shapes, counts and range bounds are checked here, before any buffer is made, with TF's classes:
None is a ValueError, a value of the wrong type (a float, a string, inf) a TypeError, a negative
size or an impossible range an InvalidArgumentError, and a tensor too large for memory a
ResourceExhaustedError from the engine (Note [One set of error classes]). Each message names the op.
"""
import math
import numbers

import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._tensor.string_tensor import string_constant
from tapegrad._tensor.tensor import Tensor, _item, cast as _cast, convert_to_tensor
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import concat as _concat, expand_dims as _expand_dims
from tapegrad._ops._lib.shapes import computed_dims

__all__ = ["zeros", "ones", "zeros_like", "ones_like", "fill", "eye", "range", "linspace"]

_INT64_MAX = 2 ** 63 - 1
_fill = _raw.Fill    # these two read their result's shape from values (cpp/ops/sized_by_values.cpp)
_range_op = _raw.Range
_TF_TYPE = {"float32": "float", "float64": "double"}  # TF's names in an OOM message


@dispatch
def fill(dims, value, name=None):
    v = _tensor_arg(value, "Fill", "value", strings=True)
    computed = computed_dims(dims, "Fill", "dims")
    if computed is not None and v.dtype is not dtypes.string:
        return _fill(computed, v)
    shape = _dims(dims, "Fill", "dims")
    if v._shape:
        raise errors.InvalidArgumentError(f"Fill: value must be a scalar, got shape {tuple(v._shape)}")
    if v.dtype is dtypes.string:
        return string_constant(v.numpy(), shape)
    if v.dtype == dtypes.int64:  # exact beyond 2**53
        return _numpy("Fill", shape, v.dtype, lambda: np.full(shape, v.numpy()))
    if v.dtype.is_floating and (_core.any_tape_recording() or _core.accumulators_active() or _core._tracing()):
        # fill(dims, v) = broadcast_to(v, dims): the gradient of v is the upstream sum, as TF's, and a
        # trace keeps v as a graph value instead of reading it once
        return _raw.BroadcastTo(v, shape=shape)
    return _named("Fill", _core.fill, shape, float(v._item()), v._dtype)


@dispatch
def zeros(shape, dtype=dtypes.float32, name=None):
    if dtype is dtypes.string or dtype == "string":  # empty strings, as TF
        return string_constant(b"", _dims(shape, "zeros", "shape"))
    return _filled(shape, 0.0, dtype, "zeros")


@dispatch
def ones(shape, dtype=dtypes.float32, name=None):
    return _filled(shape, 1.0, dtype, "ones")


def _filled(shape, value, dtype, fn):
    dt = _dtype(fn, dtype)
    computed = computed_dims(shape, fn, "shape")
    if computed is not None:
        return _fill(computed, _core.fill([], value, dt.code))
    return _named("Fill", _core.fill, _dims(shape, fn, "shape"), value, dt.code)


def _run_time_like(t, value, dt):
    """In a traced graph whose sizes vary (tf.unique's result, Note [Sizes in traced rules]): value
    broadcast to t's run-time shape; else None."""
    if isinstance(t, Tensor) and dt is not dtypes.string and _tensor._sizes_vary(t):
        return _raw.BroadcastLike(_core.fill([], value, dt.code), t)
    return None


@dispatch
def zeros_like(input, dtype=None, name=None):
    t = _tensor_arg(input, "zeros_like", "input", strings=True)
    dt = _dtype("zeros_like", dtype or t.dtype)
    out = _run_time_like(t, 0.0, dt)
    return zeros(t._shape, dt) if out is None else out


@dispatch
def ones_like(input, dtype=None, name=None):
    t = _tensor_arg(input, "ones_like", "input")
    dt = _dtype("ones_like", dtype or t.dtype)
    out = _run_time_like(t, 1.0, dt)
    return ones(t._shape, dt) if out is None else out


@dispatch
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    if _core._tracing() and batch_shape is None:  # a count computed inside the tf.function
        if _computed_attrs.holds_traced([num_rows, num_columns]):
            return _computed_attrs.eye(num_rows, num_rows if num_columns is None else num_columns, _dtype("eye", dtype))
    rows = _count(num_rows, "eye", "num_rows")
    cols = rows if num_columns is None else _count(num_columns, "eye", "num_columns")
    batch = [] if batch_shape is None else _dims(batch_shape, "eye", "batch_shape")
    dt = _dtype("eye", dtype)

    def make():
        m = np.eye(rows, cols, dtype=dt.as_numpy_dtype)
        return np.broadcast_to(m, tuple(batch) + m.shape) if batch else m
    return _numpy("MatrixDiagV3", batch + [rows, cols], dt, make)


@dispatch
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 -- TF's name
    if limit is None:
        start, limit = 0, start
    if any(isinstance(v, Tensor) for v in (start, limit, delta)):
        return _range_of_tensors(start, limit, delta, dtype)
    vals = [_bound(v, arg) for v, arg in zip((start, limit, delta), ("start", "limit", "delta"))]
    dt = _dtype("Range", dtype) if dtype is not None else dtypes.float32 if any(isinstance(v, float) for v in vals) \
        else dtypes.int32 if all(-2 ** 31 <= v < 2 ** 31 for v in vals) else dtypes.int64  # as TF converts the bounds
    if dt.is_integer:  # TF converts each bound to dtype: a Python float is refused, 2.0 included
        for v in vals:
            if isinstance(v, float):
                raise TypeError(f"Range: Cannot convert {v!r} to EagerTensor of dtype {dt.name}")
    n = _range_size(*vals)
    return _numpy("Range", [n], dt, lambda: np.arange(*vals, dtype=dt.as_numpy_dtype))


_RANGE_DTYPES = (dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64)  # TF's order of promotion


def _range_of_tensors(start, limit, delta, dtype):
    """range with a tensor bound: one Range node, whose length a tf.function reads at every call. The
    bounds take dtype, else the widest of theirs (Python ints are int32, floats float32), as TF."""
    bounds = []
    for v, arg in zip((start, limit, delta), ("start", "limit", "delta")):
        if v is None:
            raise ValueError(f"Range: {arg} is None; expected a number")
        t = _tensor_arg(v, "Range", arg)
        if t.dtype not in _RANGE_DTYPES:
            raise TypeError(f"Range: {arg} must be a number, got a tensor of {t.dtype.name}")
        bounds.append(t)
    dt = _dtype("Range", dtype) if dtype is not None else max((t.dtype for t in bounds), key=_RANGE_DTYPES.index)
    if dt not in _RANGE_DTYPES:
        raise TypeError(f"Range: dtype must be int32, int64, float32 or float64, got {dt.name}")
    return _range_op(*[t if t.dtype == dt else _cast(t, dt) for t in bounds])


@dispatch
def linspace(start, stop, num, name=None, axis=0):
    s, e = _tensor_arg(start, "LinSpace", "start"), _tensor_arg(stop, "LinSpace", "stop")
    if isinstance(num, Tensor) and _core._tracing() and _core._is_traced(num) and not s._shape and not e._shape:
        return _linspace_computed(s, e, num)
    n = _count(num, "LinSpace", "num")
    dt = s.dtype if s.dtype.is_floating else dtypes.float32
    shape = list(_named("LinSpace", np.broadcast_shapes, tuple(s._shape), tuple(e._shape), arg="start and stop"))
    axis = _int(axis, "LinSpace", "axis")
    if not -len(shape) - 1 <= axis <= len(shape):
        raise errors.InvalidArgumentError(f"LinSpace: axis {axis} is out of range for a result of rank {len(shape) + 1}")
    at = axis if axis >= 0 else axis + len(shape) + 1
    shape.insert(at, n)
    if s.dtype.is_floating and (_core.any_tape_recording() or _core.accumulators_active() or _core._tracing()):
        return _linspace_ops(s, e, n, at, len(shape))
    return _numpy("LinSpace", shape, dt,
                  lambda: np.linspace(s.numpy(), e.numpy(), n, axis=axis).astype(dt.as_numpy_dtype))


def _linspace_ops(start, stop, n, at, rank):
    """linspace in ops, as TF builds it (start, start + i * (stop - start) / (n - 1), stop along the
    axis, cut to num): differentiable in start and stop, and a graph value while tracing."""
    shape = [1] * rank
    shape[at] = -1
    base = list(np.broadcast_shapes(tuple(start._shape), tuple(stop._shape)))
    first, last = (_expand_dims(_raw.BroadcastTo(t, shape=base), at) for t in (start, stop))
    delta = (last - first) / float(max(n - 1, 1))
    steps = np.arange(1, max(n - 1, 1), dtype=start.dtype.as_numpy_dtype)
    index = _raw.Reshape(convert_to_tensor(steps), shape=shape)
    out = _concat([first, first + index * delta, last], at)
    return out if n >= 2 else out[(slice(None),) * at + (slice(0, n),)]  # num 0 or 1: stop is still connected


def _linspace_computed(start, stop, num):
    """linspace of scalars with a count computed inside the tf.function: start, start + i * delta for
    0 < i < num - 1, and stop, cut to num (a Range and a slice read num at run time)."""
    dt = start.dtype if start.dtype.is_floating else dtypes.float32
    first, last = _raw.Reshape(_cast(start, dt), shape=[1]), _raw.Reshape(_cast(stop, dt), shape=[1])
    n = _cast(num, dtypes.int64)
    _checks.check_non_negative(n, "linspace: num must be non-negative")
    delta = (last - first) / _cast(_elementwise.maximum(n - 1, 1), dt)
    inner = _cast(range(_cast(1, dtypes.int64), _elementwise.maximum(n - 1, 1)), dt)
    return _concat([first, first + inner * delta, last], 0)[:n]


def _numpy(op, shape, dt, make):
    """The tensor of make(), a NumPy array of shape and dtype dt; too large for memory is TF's OOM error."""
    itemsize = np.dtype(dt.as_numpy_dtype).itemsize
    if math.prod(shape) * itemsize >= 2 ** 62:
        raise _oom(op, shape, dt, itemsize)
    try:
        return _core.from_numpy(make(), dt.code)
    except MemoryError:
        raise _oom(op, shape, dt, itemsize) from None


def _oom(op, shape, dt, itemsize):
    return errors.ResourceExhaustedError(f"{op}: OOM when allocating tensor with shape[{','.join(map(str, shape))}] "
                                         f"and type {_TF_TYPE.get(dt.name, dt.name)} ({math.prod(shape) * itemsize} bytes)")


def _named(op, fn, *args, arg=None):
    """Calls fn, naming op (and the argument) in an error that does not name it."""
    try:
        return fn(*args)
    except (errors.OpError, TypeError, ValueError) as e:
        if str(e).startswith(op):
            raise
        cls = type(e) if isinstance(e, errors.OpError) else TypeError if isinstance(e, TypeError) else ValueError
        raise cls(f"{op}: {arg + ': ' if arg else ''}{e}") from None


def _tensor_arg(value, op, arg, strings=False):
    if value is None:
        raise ValueError(f"{op}: {arg} is None; expected a tensor")
    t = _named(op, convert_to_tensor, value, arg=arg)
    if not strings and t.dtype is dtypes.string:
        raise errors.InvalidArgumentError(f"{op}(): argument '{arg}' cannot convert a string tensor to a number")
    return t


def _dtype(op, dtype):
    return _named(op, dtypes.as_dtype, dtype, arg="dtype")


def _int(value, op, arg):
    """value as a Python int: an int, a NumPy int or a whole float; other types are a TypeError."""
    if isinstance(value, Tensor):
        if value._size != 1:
            raise errors.InvalidArgumentError(f"{op}: {arg} must be a scalar, got a tensor of shape {tuple(value._shape)}")
        value = _item(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{op}: {arg} must be an int, got {type(value).__name__} {value!r}")
    if not isinstance(value, numbers.Integral) and not (math.isfinite(value) and float(value).is_integer()):
        raise TypeError(f"{op}: {arg} must be an int, got {value!r}")
    return int(value)


def _count(value, op, arg):
    if value is None:
        raise ValueError(f"{op}: {arg} is None; expected a non-negative int")
    n = _int(value, op, arg)
    if n < 0:
        raise errors.InvalidArgumentError(f"{op}: {arg} must be >= 0, got {n}")
    return n


def _dims(shape, op, arg):
    """A shape argument as a list of ints >= 0 (as TF's Fill: "Dimension -1 must be >= 0")."""
    if shape is None:
        raise ValueError(f"{op}: {arg} is None; expected a list of ints or an int tensor")
    if isinstance(shape, Tensor):
        if not shape.dtype.is_integer:
            raise TypeError(f"{op}: {arg} must be an int32 or int64 tensor, got {shape.dtype.name}")
        vals = shape.numpy().reshape(-1).tolist()
    elif isinstance(shape, (numbers.Integral, np.integer)) and not isinstance(shape, bool):
        vals = [shape]
    elif isinstance(shape, (list, tuple, np.ndarray)):
        vals = list(np.asarray(shape, dtype=object).reshape(-1)) if isinstance(shape, np.ndarray) else list(shape)
    else:
        raise TypeError(f"{op}: {arg} must be a list of ints or an int tensor, got {type(shape).__name__} {shape!r}")
    dims = [_int(d, op, arg) if d is not None else _unknown_dim(shape, op, arg) for d in vals]
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(f"{op}: Dimension {d} must be >= 0 (shape {dims})")
        if d > _INT64_MAX:
            raise ValueError(f"{op}: dimension {d} of shape {dims} does not fit in int64")
    return dims


def _unknown_dim(shape, op, arg):
    raise ValueError(f"{op}: {arg} {shape!r} has an unknown (None) dimension")


def _bound(value, arg):
    """A bound of range as a Python int or float; inf and NaN pass (TF refuses them by size)."""
    if value is None:
        raise ValueError(f"Range: {arg} is None; expected a number")
    if isinstance(value, Tensor) and value._size != 1:
        raise errors.InvalidArgumentError(f"Range: {arg} must be a scalar, got a tensor {value.dtype.name}{tuple(value.shape)}")
    if isinstance(value, Tensor) and _core._tracing() and (_core._is_traced(value) or value._is_variable):
        raise _trace_context.traced_value_error(value, f"tf.range's {arg}")
    v = _item(value) if isinstance(value, Tensor) else value
    if isinstance(v, (np.integer, np.floating)):
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"Range: {arg} must be a number, got {type(value).__name__} {value!r}")
    return v


def _range_size(start, limit, delta):
    """The element count of range, refused as TF's Range op does."""
    if delta == 0:
        raise errors.InvalidArgumentError(f"Range: Requires delta != 0: {delta}")
    if delta > 0 and not start <= limit:
        raise errors.InvalidArgumentError(f"Range: Requires start <= limit when delta > 0: {start}/{limit}")
    if delta < 0 and not start >= limit:
        raise errors.InvalidArgumentError(f"Range: Requires start >= limit when delta < 0: {start}/{limit}")
    if isinstance(limit - start, float) or isinstance(delta, float):
        size = abs((limit - start) / delta)
        size = math.ceil(size) if math.isfinite(size) else size
    else:
        size = (abs(limit - start) + abs(delta) - 1) // abs(delta)
    if not math.isfinite(size) or size > _INT64_MAX:
        raise errors.InvalidArgumentError(f"Range: Requires ((limit - start) / delta) <= {_INT64_MAX}, "
                                          f"got start={start}, limit={limit}, delta={delta}")
    return int(size)


# Imported after the definitions above: these modules import this one (their names are read at call time).
from tapegrad._function import trace_context as _trace_context  # noqa: E402
from tapegrad._tensor import tensor as _tensor  # noqa: E402
from tapegrad._ops.math import elementwise as _elementwise  # noqa: E402
from tapegrad._ops.array import computed_attrs as _computed_attrs  # noqa: E402
from tapegrad._ops.debugging import checks as _checks  # noqa: E402
