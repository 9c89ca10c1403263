"""Shapes and axes for ops composed in Python: axis arguments, sizes read at run time inside a
tf.function (Note [Varying dimensions] in cpp/graph/varying_dims.cpp), reshapes to computed sizes, slices
along one axis, matrix diagonals, batched gathers and the segment ops' num_segments."""
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import Tensor, cast, constant, convert_to_tensor, shape

_InvalidArgument = _core.InvalidArgumentError
_reshape, _transpose, _gather, _strided_slice = _raw.Reshape, _raw.Transpose, _raw.GatherV2, _raw.StridedSlice


def join(parts):
    """1-D tensors of one dtype joined end to end."""
    return parts[0] if len(parts) == 1 else _raw.ConcatV2(*parts, axis=0)


def _read_at_run_time(dims):
    return _core._tracing() and (_core._is_traced(dims) or dims._is_variable)


def dynamic_reshape(x, dims):
    """x reshaped to the int tensor dims: read while tracing when known then, else at every call."""
    return _raw.DynamicReshape(x, dims) if _read_at_run_time(dims) else _reshape(x, shape=dims)


def dynamic_broadcast(x, dims):
    """x broadcast to the int tensor dims: read while tracing when known then, else at every call."""
    return _raw.DynamicBroadcastTo(x, dims) if _read_at_run_time(dims) else _raw.BroadcastTo(x, shape=dims)


def computed_dims(shape, op, arg):
    """A shape computed inside a tf.function (a traced tensor, or a list holding one) as the int tensor a
    Fill node reads at every call; None for a shape whose value is known while tracing."""
    def computed(d):
        return isinstance(d, Tensor) and (_core._is_traced(d) or d._is_variable)

    if not _core._tracing():
        return None
    if isinstance(shape, Tensor):
        if not computed(shape):
            return None
        if not shape.dtype.is_integer:
            raise TypeError(f"{op}: {arg} must be an int32 or int64 tensor, got {shape.dtype.name}")
        if shape.ndim == 0:  # tf.zeros(n): one dimension
            return _raw.Reshape(shape, shape=[1])
        return shape
    if not isinstance(shape, (list, tuple)) or not any(computed(d) for d in shape):
        return None
    parts = []
    for d in shape:
        t = convert_arg(d, "tensor", op, arg)
        if not t.dtype.is_integer or t._shape:
            raise TypeError(f"{op}: each dimension of {arg} must be an int or a scalar int tensor, got {t!r}")
        parts.append(_raw.Reshape(cast(t, dtypes.int64), shape=[1]))
    return join(parts)

def normalized_axis(axis, rank, fn, op):
    """axis (an argument of the Python function fn) in [0, rank); out of range is op's error."""
    axis = convert_arg(axis, "int", fn, "axis")
    if not -rank <= axis < rank:
        raise _InvalidArgument(f"{op}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank

def run_time_size(x, axis, dtype=dtypes.int64):
    """x.shape[axis] as a scalar tensor read at every call of the tf.function being traced (a constant
    outside one or for an axis whose size never changes)."""
    return shape(x, out_type=dtype)[axis]

def size_or_run_time(x, axis):
    """x.shape[axis]: an int, or an int64 scalar tensor read at run time for an axis whose size changes
    from call to call of the tf.function being traced."""
    return run_time_size(x, axis) if axis_varies(x, axis) else x._shape[axis]

def size_product(sizes):
    """The product of sizes (ints and int64 scalar tensors): an int when all are ints."""
    known = int(np.prod([d for d in sizes if not isinstance(d, Tensor)], dtype=np.int64))
    out = known
    for d in sizes:
        if isinstance(d, Tensor):
            out = d * out
    return out

def reshape_to(x, dims):
    """x reshaped to dims (ints and int64 scalar tensors): a Reshape when all are ints, else a reshape to
    the dims packed into a tensor at run time."""
    if not any(isinstance(d, Tensor) for d in dims):
        return _reshape(x, shape=[int(d) for d in dims])
    return dynamic_reshape(x, join([_reshape(d if isinstance(d, Tensor) else constant(d, dtypes.int64), shape=[1]) for d in dims]))

def axis_varies(x, axis):
    """Whether axis ``axis`` of x changes size from call to call of the tf.function being traced
    (Note [Varying dimensions] in cpp/graph/varying_dims.cpp)."""
    varying = _core._varying_dims(x)
    return bool(varying) and (axis >= 64 or bool((varying >> axis) & 1))

def slice_along(x, axis, begin, end, stride=1):
    """x[..., begin:end:stride, ...] on one axis (bounds already normalised, see Note [Normalised slices]).
    A StridedSlice names every axis's bounds: when other axes of x change size from call to call the
    positions are gathered instead; bounds computed from the traced size of a varying axis itself would
    be wrong at a later call, so callers read such an axis at run time and this refuses it."""
    if _core._varying_dims(x):
        refuse_varying(x, "slicing", "the bounds would keep the traced size", axis)
        return _gather(x, constant(np.arange(begin, end, stride, dtype=np.int64)), axis=axis)
    s = x._shape
    b = [0] * len(s)
    e = list(s)
    st = [1] * len(s)
    b[axis], e[axis], st[axis] = begin, end, stride
    return _strided_slice(x, begin=b, end=e, strides=st)

def refuse_varying(x, fn, why, axis=None):
    """Refuses a tensor whose sizes change from call to call of the tf.function being traced (it comes
    from a value-shaped op such as tf.unique or tf.boolean_mask) where the traced sizes would be kept:
    any of its sizes, or with ``axis`` that axis's (Note [Varying dimensions] in cpp/graph/varying_dims.cpp)."""
    if (_core._varying_dims(x) if axis is None else axis_varies(x, axis)):
        raise errors.UnimplementedError(
            f"tf.function: {fn} of a tensor ({x.dtype.name}, traced shape {tuple(x._shape)}) whose size changes from "
            f"call to call (it comes from an op such as tf.unique, tf.where or tf.boolean_mask): {why}. Use "
            "tf.gather or tf.boolean_mask with computed indices or masks instead.")

def diag_last_two(x):
    """The diagonal of the last two axes, [..., m, n] -> [..., min(m, n)], by a strided slice of
    the flattened matrix (every (n+1)-th entry): entries off the diagonal are never read, so their
    inf or NaN cannot leak in as a masked product (0 * NaN) would let it."""
    if _core._varying_dims(x):
        return diag_at_run_time(x)
    *batch, m, n = x._shape
    d = min(m, n)
    flat = _reshape(x, shape=batch + [m * n])
    end = (d - 1) * (n + 1) + 1 if d else 0
    return _strided_slice(flat, begin=[0] * (len(batch) + 1), end=batch + [end], strides=[1] * len(batch) + [n + 1])

def diag_at_run_time(x):
    """diag_last_two for a tensor whose sizes change from call to call (Note [Varying dimensions] in
    cpp/graph/varying_dims.cpp): the leading min(m, n) rows and columns, read at run time, then the entries
    where row == column picked by a select (not a product: an inf or NaN off the diagonal stays out)
    and summed over the columns, each row holding one picked entry."""
    r = x.ndim
    d = _raw.Minimum(run_time_size(x, r - 2), run_time_size(x, r - 1))
    steps = _raw.Range(0, d, 1)
    square = _gather(_gather(x, steps, axis=r - 2), steps, axis=r - 1)
    on_diagonal = _raw.Equal(_reshape(steps, shape=[-1, 1]), _reshape(steps, shape=[1, -1]))
    zero = constant(np.zeros((), x.dtype.as_numpy_dtype))
    return _raw.Sum(_raw.Select(on_diagonal, square, zero), axis=r - 1)

def batched_gather_at_run_time(params, idx, axis, batch_dims):
    """gather with batch_dims > 0 of params whose sizes change from call to call of the tf.function
    being traced: a plain gather (batch_dims 0) from params with the batch axes and the gathered axis
    folded into one, at indices offset by each batch entry's start, all sizes read at run time. (The
    batched gather's own gradient folds the traced sizes into its segment count.) An index out of
    [0, n) is made -1, so that it raises in the gather as TF's does rather than read another row."""
    params = convert_to_tensor(params)
    rank, bd = params.ndim, batch_dims % idx.ndim if batch_dims < 0 else batch_dims
    axis = axis % rank if -rank <= axis < 0 else axis
    if not 0 < bd <= axis < rank or bd > idx.ndim:  # (the op's own errors)
        return _gather(params, idx, axis=axis, batch_dims=batch_dims)
    # [batch..., pre..., n, post...] -> [batch..., n, pre..., post...] -> [batch * n, pre..., post...]
    perm = list(range(bd)) + [axis] + [d for d in range(bd, rank) if d != axis]
    moved = params if axis == bd else _transpose(params, perm=perm)
    sizes = shape(moved, out_type=dtypes.int64)
    flat = dynamic_reshape(moved, join([constant([-1], dtypes.int64), sizes[bd + 1:]]))
    n = sizes[bd]
    i = cast(idx, dtypes.int64)
    starts = _raw.Range(0, _raw.Prod(sizes[:bd], axis=0), 1) * n  # [batch] -> batch... followed by 1s as idx's rank
    starts = dynamic_reshape(starts, join([shape(idx, out_type=dtypes.int64)[:bd],
                                           constant([1] * (idx.ndim - bd), dtypes.int64)]))
    outside = _raw.LogicalOr(_raw.Less(i, 0), _raw.GreaterEqual(i, n))
    at = _raw.Select(outside, constant(-1, dtypes.int64), i + starts)
    out = _gather(flat, at, axis=0)  # [batch..., idx..., pre..., post...]
    if axis == bd:
        return out
    k, pre = idx.ndim - bd, axis - bd  # move idx's axes after pre's
    back = list(range(bd)) + [bd + k + j for j in range(pre)] + [bd + j for j in range(k)] + \
        list(range(bd + k + pre, out.ndim))
    return _transpose(out, perm=back)

def num_segments_arg(value, fn):
    """num_segments as an int, or as the tensor itself when it is computed inside the tf.function being
    traced (the op then reads it at every call: a value-shaped UnsortedSegment* node)."""
    if isinstance(value, Tensor) and _core._tracing() and (_core._is_traced(value) or value._is_variable):
        if not value.dtype.is_integer or value.ndim:
            raise _InvalidArgument(f"{fn}: num_segments must be an integer scalar, got {value!r}")
        return value
    return convert_arg(value, "int", fn, "num_segments")

def segment_op(op, data, ids, n):
    """An UnsortedSegment* op with num_segments n, an int or a tensor (num_segments_arg)."""
    data = convert_to_tensor(data)  # (its own dtype, not the ids')
    if isinstance(n, Tensor):
        return op(data, ids, n, num_segments_input=True)
    return op(data, ids, num_segments=n)
