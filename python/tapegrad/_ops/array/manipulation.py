"""Shape ops: reshape, transpose, broadcast_to, expand_dims, squeeze, concat, stack, unstack, split, tile,
gather and the segment sum; pad and slicing are in slicing.py, one_hot in one_hot.py."""
import builtins

import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._wrap import convert_arg, public_op
from tapegrad._ops.array.creation import _computed_dims
from tapegrad._tensor.tensor import Tensor, cast, constant, convert_to_tensor, shape
from tapegrad._ops import _raw

__all__ = ["reshape", "transpose", "broadcast_to", "expand_dims", "squeeze", "concat", "stack", "unstack",
           "split", "tile", "gather", "newaxis"]

newaxis = None
_InvalidArgument = _core.InvalidArgumentError
_reshape = _raw.Reshape
_transpose = _raw.Transpose
_strided_slice = _raw.StridedSlice
_concat = _raw.ConcatV2
_tile = _raw.Tile
_gather = _raw.GatherV2
_expand_dims = _raw.ExpandDims
_squeeze = _raw.Squeeze
_segment_sum = _raw.UnsortedSegmentSum


def _tensor_list(values, op, arg):
    """values (a list, tuple or other iterable of tensors) as a list; anything else is a TypeError naming op."""
    if values is None or isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{op}: {arg} must be a list of tensors, got {type(values).__name__} {values!r}")
    return list(values)


def _axis(axis, rank, fn, op):
    """axis (an argument of the Python function fn) in [0, rank); out of range is op's error."""
    axis = convert_arg(axis, "int", fn, "axis")
    if not -rank <= axis < rank:
        raise _InvalidArgument(f"{op}: axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank


def _computed_shape(value, fn):
    try:
        return _computed_dims(value, fn, "shape")
    except TypeError:
        return None


# reshape and broadcast_to to a shape computed inside a tf.function (Note [Attributes computed in a trace])
def _reshape_to_computed(tensor, shape, name=None):
    dims = _computed_shape(shape, "reshape")
    return NotImplemented if dims is None else _raw.DynamicReshape(convert_to_tensor(tensor), dims)


def _broadcast_to_computed(input, shape, name=None):
    dims = _computed_shape(shape, "broadcast_to")
    return NotImplemented if dims is None else _raw.DynamicBroadcastTo(convert_to_tensor(input), dims)


reshape = public_op("Reshape", "reshape", "tensor, shape:ints",
                    "Gives ``tensor``'s values the shape ``shape`` (one entry may be -1); a view, no copy.",
                    traced_fallback=_reshape_to_computed)


@dispatch
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes the axes (reversed if perm is None); a negative entry counts from the end, as TF."""
    if perm is None:
        return _transpose(a)
    a = convert_to_tensor(a)
    nd = a.ndim
    return _transpose(a, perm=[p + nd if -nd <= p < 0 else p for p in convert_arg(perm, "ints", "transpose", "perm")])


broadcast_to = public_op("BroadcastTo", "broadcast_to", "input, shape:ints", "Broadcasts ``input`` to ``shape``.",
                         traced_fallback=_broadcast_to_computed)


@dispatch
def expand_dims(input, axis, name=None):
    t = convert_to_tensor(input)
    s = list(t._shape)
    axis = convert_arg(axis, "int", "expand_dims", "axis")
    if not -len(s) - 1 <= axis <= len(s):
        raise _InvalidArgument(f"ExpandDims: axis {axis} is out of range for a tensor of rank {len(s)}")
    at = axis if axis >= 0 else len(s) + 1 + axis
    if _core._tracing() and _core._size_varies(t):  # no size named: the shape is t's at every call
        return _expand_dims(t, axis=at)
    s.insert(at, 1)
    return _reshape(t, shape=s)


@dispatch
def squeeze(input, axis=None, name=None):
    """Removes size-1 axes: those in ``axis``, or every one when ``axis`` is None or empty (as TF)."""
    t = convert_to_tensor(input)
    s = list(t._shape)
    axis = [] if axis is None else convert_arg(axis, "axes", "squeeze", "axis")
    if not axis:
        keep = [d for d in s if d != 1]
    else:
        axes = {(a + len(s)) if a < 0 else a for a in axis}
        for a in axes:
            if not 0 <= a < len(s) or s[a] != 1:
                raise _InvalidArgument(f"Squeeze: cannot squeeze axis {a} of shape {tuple(s)}")
        keep = [d for i, d in enumerate(s) if i not in axes]
    if _core._tracing() and _core._size_varies(t):  # no size named: the shape is t's at every call
        return _squeeze(t, axis=sorted(axes) if axis else [i for i, d in enumerate(s) if d == 1])
    return _reshape(t, shape=keep)


def _diag_last_two(x):
    """The diagonal of the last two axes, [..., m, n] -> [..., min(m, n)], by a strided slice of
    the flattened matrix (every (n+1)-th entry): entries off the diagonal are never read, so their
    inf or NaN cannot leak in as a masked product (0 * NaN) would let it."""
    if _core._varying_dims(x):
        return _diag_at_run_time(x)
    *batch, m, n = x._shape
    d = min(m, n)
    flat = _reshape(x, shape=batch + [m * n])
    end = (d - 1) * (n + 1) + 1 if d else 0
    return _strided_slice(flat, begin=[0] * (len(batch) + 1), end=batch + [end], strides=[1] * len(batch) + [n + 1])


def _diag_at_run_time(x):
    """_diag_last_two for a tensor whose sizes change from call to call (Note [Varying dimensions] in
    cpp/graph/varying_dims.cpp): the leading min(m, n) rows and columns, read at run time, then the entries
    where row == column picked by a select (not a product: an inf or NaN off the diagonal stays out)
    and summed over the columns, each row holding one picked entry."""
    r = x.ndim
    d = _elementwise.minimum(_run_time_size(x, r - 2), _run_time_size(x, r - 1))
    steps = _creation.range(d)
    square = _gather(_gather(x, steps, axis=r - 2), steps, axis=r - 1)
    on_diagonal = _elementwise.equal(_reshape(steps, shape=[-1, 1]), _reshape(steps, shape=[1, -1]))
    zero = constant(np.zeros((), x.dtype.as_numpy_dtype))
    return _reduction.reduce_sum(_elementwise.where(on_diagonal, square, zero), r - 1)


def _run_time_size(x, axis, dtype=dtypes.int64):
    """x.shape[axis] as a scalar tensor read at every call of the tf.function being traced (a constant
    outside one or for an axis whose size never changes)."""
    return shape(x, out_type=dtype)[axis]


def _size_or_run_time(x, axis):
    """x.shape[axis]: an int, or an int64 scalar tensor read at run time for an axis whose size changes
    from call to call of the tf.function being traced."""
    return _run_time_size(x, axis) if _axis_varies(x, axis) else x._shape[axis]


def _product(sizes):
    """The product of sizes (ints and int64 scalar tensors): an int when all are ints."""
    known = int(np.prod([d for d in sizes if not isinstance(d, Tensor)], dtype=np.int64))
    out = known
    for d in sizes:
        if isinstance(d, Tensor):
            out = d * out
    return out


def _reshape_to(x, dims):
    """x reshaped to dims (ints and int64 scalar tensors): a Reshape when all are ints, else a reshape to
    the dims packed into a tensor at run time."""
    if not any(isinstance(d, Tensor) for d in dims):
        return _reshape(x, shape=[int(d) for d in dims])
    packed = concat([_reshape(d if isinstance(d, Tensor) else constant(d, dtypes.int64), shape=[1]) for d in dims], 0)
    return reshape(x, packed)


def _axis_varies(x, axis):
    """Whether axis ``axis`` of x changes size from call to call of the tf.function being traced
    (Note [Varying dimensions] in cpp/graph/varying_dims.cpp)."""
    varying = _core._varying_dims(x)
    return bool(varying) and (axis >= 64 or bool((varying >> axis) & 1))


def _slice_along(x, axis, begin, end, stride=1):
    """x[..., begin:end:stride, ...] on one axis (bounds already normalised, see Note [Normalised slices]).
    A StridedSlice names every axis's bounds: when other axes of x change size from call to call the
    positions are gathered instead; bounds computed from the traced size of a varying axis itself would
    be wrong at a later call, so callers read such an axis at run time and this refuses it."""
    if _core._varying_dims(x):
        _refuse_varying(x, "slicing", "the bounds would keep the traced size", axis)
        return _gather(x, constant(np.arange(begin, end, stride, dtype=np.int64)), axis=axis)
    s = x._shape
    b = [0] * len(s)
    e = list(s)
    st = [1] * len(s)
    b[axis], e[axis], st[axis] = begin, end, stride
    return _strided_slice(x, begin=b, end=e, strides=st)


@dispatch
def concat(values, axis, name="concat"):
    """Joins tensors along an existing axis; the gradient slices g back into the pieces.

    ``values`` given as one tensor (not a list) is returned as it is, as TF does.
    """
    if isinstance(values, Tensor):
        return values
    values = _tensor_list(values, "concat", "values")
    if len(values) == 1:
        return convert_to_tensor(values[0])
    return _concat(*values, axis=convert_arg(axis, "int", "concat", "axis"))


@dispatch
def stack(values, axis=0, name="stack"):
    """Joins same-shape tensors along a new axis."""
    ts = [convert_to_tensor(v) for v in _tensor_list(values, "stack", "values")]
    axis = convert_arg(axis, "int", "stack", "axis")
    if not ts:
        raise _InvalidArgument("Pack: expected at least one tensor to stack")
    shape = ts[0]._shape
    for t in ts:
        if t._shape != shape:
            raise _InvalidArgument(f"Pack: shapes of all inputs must match, got {tuple(shape)} and {tuple(t._shape)}")
    return concat([expand_dims(t, axis) for t in ts], axis)


@dispatch
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a tensor into a list of tensors along ``axis``, removing it."""
    x = convert_to_tensor(value)
    axis = _axis(axis, x.ndim, "unstack", "Unpack")
    _refuse_varying(x, "unstack", "its number of results would be the traced size", axis)
    n = x._shape[axis]
    if num is not None and convert_arg(num, "int", "unstack", "num") != n:
        raise _InvalidArgument(f"Unpack: num={num} does not match dimension {axis} of shape {tuple(x._shape)}")
    lead = (builtins.slice(None),) * axis
    return [x[lead + (i,)] for i in range(n)]


@dispatch
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits into ``num_or_size_splits`` equal pieces, or pieces of the listed sizes (one may be -1)."""
    x = convert_to_tensor(value)
    axis = _axis(axis, x.ndim, "split", "Split")
    _refuse_varying(x, "split", "its pieces would keep the traced sizes", axis)
    n = x._shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)) or (
            isinstance(num_or_size_splits, Tensor) and num_or_size_splits.ndim == 0):
        k = convert_arg(num_or_size_splits, "int", "split", "num_or_size_splits")
        if k <= 0 or n % k:
            raise _InvalidArgument(f"Split: dimension {axis} of shape {tuple(x._shape)} is not divisible into {k} pieces")
        sizes = [n // k] * k
    else:
        sizes = convert_arg(num_or_size_splits, "ints", "split", "num_or_size_splits")
        if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
            raise _InvalidArgument(f"SplitV: invalid size_splits {sizes}")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise _InvalidArgument(f"SplitV: size_splits {sizes} do not add up to dimension {axis} of shape {tuple(x._shape)}")
    # Other axes of x may change size from call to call: indexing reads them at run time.
    lead = (builtins.slice(None),) * axis
    piece = (lambda a, b: x[lead + (builtins.slice(a, b),)]) if _core._varying_dims(x) else (
        lambda a, b: _slice_along(x, axis, a, b))
    out, at = [], 0
    for s in sizes:
        out.append(piece(at, at + s))
        at += s
    return out


def _refuse_varying(x, fn, why, axis=None):
    """Refuses a tensor whose sizes change from call to call of the tf.function being traced (it comes
    from a value-shaped op such as tf.unique or tf.boolean_mask) where the traced sizes would be kept:
    any of its sizes, or with ``axis`` that axis's (Note [Varying dimensions] in cpp/graph/varying_dims.cpp)."""
    if (_core._varying_dims(x) if axis is None else _axis_varies(x, axis)):
        raise errors.UnimplementedError(
            f"tf.function: {fn} of a tensor ({x.dtype.name}, traced shape {tuple(x._shape)}) whose size changes from "
            f"call to call (it comes from an op such as tf.unique, tf.where or tf.boolean_mask): {why}. Use "
            "tf.gather or tf.boolean_mask with computed indices or masks instead.")


@dispatch
def tile(input, multiples, name=None):
    if _core._tracing():  # multiples computed inside the tf.function
        from tapegrad._ops.array.computed_attrs import tile as tile_computed
        y = tile_computed(input, multiples)
        if y is not NotImplemented:
            return y
    return _tile(input, multiples=convert_arg(multiples, "ints", "tile", "multiples"))


@dispatch
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """params[..., indices, ...] along ``axis`` (default ``batch_dims``); out-of-range indices raise."""
    idx = indices if isinstance(indices, Tensor) else convert_to_tensor(indices, dtype_hint=dtypes.int32)
    batch_dims = convert_arg(batch_dims, "int", "gather", "batch_dims")
    axis = batch_dims if axis is None else convert_arg(axis, "int", "gather", "axis")
    if batch_dims and isinstance(params, Tensor) and _core._varying_dims(params):
        return _batched_gather_at_run_time(params, idx, axis, batch_dims)
    return _gather(params, idx, axis=axis, batch_dims=batch_dims)


def _batched_gather_at_run_time(params, idx, axis, batch_dims):
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
    flat = reshape(moved, concat([constant([-1], dtypes.int64), sizes[bd + 1:]], 0))
    n = sizes[bd]
    i = cast(idx, dtypes.int64)
    starts = _creation.range(_reduction.reduce_prod(sizes[:bd])) * n  # [batch] -> batch... followed by 1s as idx's rank
    starts = reshape(starts, concat([shape(idx, out_type=dtypes.int64)[:bd],
                                     constant([1] * (idx.ndim - bd), dtypes.int64)], 0))
    outside = _elementwise.logical_or(_elementwise.less(i, 0), _elementwise.greater_equal(i, n))
    at = _elementwise.where(outside, constant(-1, dtypes.int64), i + starts)
    out = _gather(flat, at, axis=0)  # [batch..., idx..., pre..., post...]
    if axis == bd:
        return out
    k, pre = idx.ndim - bd, axis - bd  # move idx's axes after pre's
    back = list(range(bd)) + [bd + k + j for j in range(pre)] + [bd + j for j in range(k)] + \
        list(range(bd + k + pre, out.ndim))
    return _transpose(out, perm=back)


@dispatch
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """out[s] = sum of data[i] over segment_ids[i] == s; a negative id drops its row, one of num_segments
    or more raises."""
    n = num_segments_arg(num_segments, "unsorted_segment_sum")
    return segment_op(_segment_sum, data, convert_to_tensor(segment_ids), n)


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


# Imported after the definitions above: these modules import this one (their names are read at call time).
from tapegrad._ops.array import creation as _creation  # noqa: E402
from tapegrad._ops.math import elementwise as _elementwise  # noqa: E402
from tapegrad._ops.math import reduction as _reduction  # noqa: E402
