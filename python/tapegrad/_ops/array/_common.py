"""Pieces of the array ops that several array and composite modules run on tensors already converted:
whether an argument is computed in the trace, broadcasting to a computed shape, slices and boolean
masks resolved at run time, and gather_nd and scatter_nd over row-major offsets (Note [Offsets of
index rows] in array/gather_scatter.py)."""
import math

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function.trace_context import traced_value_error
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import arange, concat, zeros_like
from tapegrad._ops._lib.shapes import axis_varies, computed_dims, refuse_varying, run_time_size, slice_along
from tapegrad._ops._lib.tensors import select
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.debugging.checks import check_less_equal
from tapegrad._ops.math.elementwise import greater_equal, less, logical_or, not_equal
from tapegrad._ops.math.reduction import reduce_any, reduce_sum
from tapegrad._tensor.tensor import Tensor, cast, constant

_InvalidArgument = errors.InvalidArgumentError
_gather, _reshape, _segment_sum = _raw.GatherV2, _raw.Reshape, _raw.UnsortedSegmentSum
_INT32_LIMIT = 2 ** 31


def is_traced(t):
    """Whether the tensor t is computed inside the tf.function being traced."""
    return _core._tracing() and _core._is_traced(t)


def value_needed(t, what):
    """Refuses a traced tensor where a Python value is needed (it would be baked into the graph)."""
    if is_traced(t):
        raise traced_value_error(t, what)


def none_refused(fn, arg):
    """The doorway's error for None given to ``arg`` of the public op ``fn``, a declared int attribute whose
    default is not None (the signature passes a given None on to the function, as the doorway's own)."""
    return _InvalidArgument(f"{fn}(): argument '{arg}' must not be None")


def broadcast_to(x, shape):
    """tf.broadcast_to of a tensor to shape, a list of ints or an int tensor (read at every call when
    computed inside the tf.function being traced, as tf.broadcast_to's fallback reads it)."""
    dims = computed_dims(shape, "broadcast_to", "shape") if isinstance(shape, Tensor) else None
    return _raw.BroadcastTo(x, shape=shape) if dims is None else _raw.DynamicBroadcastTo(x, dims)


def slice_at_run_time(x, begin, size, end):
    """tf.slice of a tensor whose sizes change from call to call: each axis cut by a gather, of positions
    known while tracing for an axis of one size, else of range(begin, begin + size) (size -1: to the
    run-time end), so that a later call of another size is cut at its own bounds (one out of range is
    the gather's or the range's error at run time, as TF checks it then)."""
    for axis, (b, k, e) in enumerate(zip(begin, size, end)):
        if axis_varies(x, axis) and (b, k) == (0, -1):
            continue
        if axis_varies(x, axis):
            limit = run_time_size(x, axis) if k == -1 else constant(b + k, dtypes.int64)
            x = _gather(x, _raw.Range(constant(b, dtypes.int64), limit, 1), axis=axis)
        elif (b, e) != (0, x._shape[axis]):
            x = _gather(x, constant(np.arange(b, e, dtype=np.int64)), axis=axis)
    return x


def boolean_mask(x, m, axis):
    """The entries of x where the tensor m is True, m covering axes axis..axis + m.ndim - 1 (axis in
    [0, rank)); a mask that is not bool or does not fit is TF's InvalidArgumentError."""
    k, s, ms = m.ndim, list(x._shape), tuple(m._shape)
    if m.dtype != dtypes.bool or k == 0 or tuple(s[axis:axis + k]) != ms:
        raise _InvalidArgument(f"BooleanMask: mask of {m.dtype.name}{ms} does not match dimensions {axis}.."
                               f"{axis + k - 1} of shape {tuple(s)}")
    flat = _reshape(x, shape=s[:axis] + [-1 if m._size else 0] + s[axis + k:]) if k != 1 else x
    # the positions of the true entries, read at every call inside a tf.function (Where is value-shaped)
    positions = _raw.Where(m if k == 1 else _reshape(m, shape=[-1]))
    return _gather(flat, _reshape(positions, shape=[-1]), axis=axis)


def offsets(rows, dims):
    """(offset, bad) per index row of rows [..., k] into dims (Note [Offsets of index rows])."""
    total = math.prod(dims)
    dt = rows.dtype if total < _INT32_LIMIT else dtypes.int64
    rows = rows if rows.dtype == dt else cast(rows, dt)
    strides = [math.prod(dims[j + 1:]) for j in range(len(dims))]
    offset = reduce_sum(rows * constant(np.asarray(strides, dt.as_numpy_dtype)), axis=-1)
    bad = reduce_any(logical_or(less(rows, constant(np.zeros((), dt.as_numpy_dtype))),
                                greater_equal(rows, constant(np.asarray(dims, dt.as_numpy_dtype)))), axis=-1)
    return offset, bad


def replace_bad(offset, bad, value):
    return select(bad, constant(np.asarray(value, offset.dtype.as_numpy_dtype)), offset)


def out_of_range(fn, rows, bad, what, err):
    """The error for the first bad index row; read only on this eager error path, for the message."""
    flags = bad.numpy().reshape(-1)
    if not flags.any():
        return err
    at = int(np.argmax(flags))
    row = rows.numpy().reshape(len(flags), -1)[at].tolist()
    return _InvalidArgument(f"{fn}: indices[{at}] = {row} does not index into {what}")


def gather_nd(params, idx, b, ignore):
    """tf.gather_nd of params at the index rows of idx (an int32 or int64 tensor of rank > b) after b
    batch dimensions, with its checks of the shapes; ignore: bad_indices_policy "IGNORE" (the slice
    of a bad row is zeros) rather than InvalidArgumentError."""
    pshape, ishape = list(params._shape), list(idx._shape)
    k = ishape[-1]
    if len(pshape) <= b:
        raise _InvalidArgument(f"gather_nd: params must be at least a vector after {b} batch dimensions, "
                               f"got shape {tuple(pshape)}")
    if ishape[:b] != pshape[:b]:
        raise _InvalidArgument(f"gather_nd: the batch dimensions of params {tuple(pshape)} and indices "
                               f"{tuple(ishape)} differ")
    if k > len(pshape) - b:
        raise _InvalidArgument(f"gather_nd: index rows have {k} entries, more than the {len(pshape) - b} "
                               f"dimensions of params {tuple(pshape)} after {b} batch dimensions")
    batch, dims, rest, inner = pshape[:b], pshape[b:b + k], pshape[b + k:], ishape[b:-1]
    nb, per_batch, m = math.prod(batch), math.prod(dims), math.prod(inner)
    out_shape = batch + inner + rest
    if _core._varying_dims(idx) == 1 and not b and len(inner) == 1:
        m, out_shape = -1, [-1] + rest  # index rows whose number changes from call to call (tf.where's)
    elif _core._tracing():
        refuse_varying(idx, "gather_nd", "only a list of index rows (batch_dims=0) may vary in length")
        refuse_varying(params, "gather_nd", "the offsets of the index rows would keep the traced sizes")
    rows = _reshape(idx, shape=[-1, k] if m == -1 else [nb, m, k])  # (a varying length leads: traced_shape)
    offset, bad = offsets(rows, dims)
    if nb > 1:  # batch j reads rows j * per_batch ... of the flattened params
        dt = dtypes.int64 if nb * per_batch >= _INT32_LIMIT else offset.dtype
        starts = np.arange(nb, dtype=dt.as_numpy_dtype).reshape(nb, 1) * per_batch
        offset = (offset if offset.dtype == dt else cast(offset, dt)) + constant(starts)
    flat = _reshape(params, shape=[nb * per_batch] + rest)
    if ignore:
        if nb * per_batch * m == 0:  # nothing to read: every row is bad, or there are none
            return constant(np.zeros(out_shape, params.dtype.as_numpy_dtype))
        picked = _gather(flat, replace_bad(offset, bad, 0), axis=0)
        mask = _reshape(bad, shape=([-1] if m == -1 else [nb, m]) + [1] * len(rest))
        zeros = zeros_like(picked) if m == -1 else _zeros_of(picked)  # (neither connected to picked)
        picked = select(mask, zeros, picked)
        return picked if m == -1 else _reshape(picked, shape=out_shape)
    try:
        picked = _gather(flat, replace_bad(offset, bad, nb * per_batch), axis=0)
    except _InvalidArgument as err:
        raise out_of_range("gather_nd", rows, bad, f"params of shape {tuple(pshape)}", err) from None
    return picked if m == -1 else _reshape(picked, shape=out_shape)  # (rows [m, k] give out_shape)


def _zeros_of(x):
    """Zeros with x's shape and dtype (not connected to x: masked-out slices have no gradient)."""
    return constant(np.zeros(x._shape, x.dtype.as_numpy_dtype))


def _static_shape(shape, index_dtype, fn):
    """scatter_nd's ``shape`` as a list of ints: a 1-D integer tensor of the indices' dtype, or a list."""
    s = convert_arg(shape, "tensor", fn, "shape", index_dtype)
    if s.dtype != index_dtype:
        raise _InvalidArgument(f"{fn}: shape must have the dtype of indices ({index_dtype.name}), got {s.dtype.name}")
    if s.ndim != 1:
        raise _InvalidArgument(f"{fn}: shape must be a vector, got shape {tuple(s._shape)}")
    if _core._tracing() and _core._is_traced(s):
        raise traced_value_error(s, f"{fn}'s shape")
    dims = convert_arg(s, "ints", fn, "shape")
    for d in dims:
        if d < 0:
            raise _InvalidArgument(f"{fn}: dimension {d} of shape {dims} must be >= 0")
    return dims


def scatter_rows(fn, idx, updates, shape, ignore):
    """(rows, bad, offsets [N], updates [N, *rest], number of slots, rest) for scattering updates into
    shape, after TF's checks of the three shapes."""
    ishape, ushape = list(idx._shape), list(updates._shape)
    k, outer = ishape[-1], ishape[:-1]
    if updates.ndim == 0:
        raise _InvalidArgument(f"{fn}: updates must have rank at least one, got a scalar")
    if idx.ndim == 1:  # TF's kernels take no 1-D indices here (gather_nd does: one row)
        raise _InvalidArgument(f"{fn}: indices must be a list of index rows (rank 2 or more), got shape "
                               f"{tuple(ishape)}")
    if math.prod(shape) == 0 and math.prod(ishape) > 0:
        raise _InvalidArgument(f"{fn}: indices and updates given for the empty output shape {shape}")
    if not 1 <= k <= len(shape):
        raise _InvalidArgument(f"{fn}: index rows must have between 1 and {len(shape)} entries for shape "
                               f"{shape}, got {k}")
    if ushape != outer + shape[k:]:
        raise _InvalidArgument(f"{fn}: updates must have shape {outer + shape[k:]} (indices.shape[:-1] + "
                               f"shape[{k}:]) for indices of shape {tuple(ishape)} and shape {shape}, got "
                               f"{tuple(ushape)}")
    dims, rest = shape[:k], shape[k:]
    n, slots = math.prod(outer), math.prod(dims)
    if _core._varying_dims(idx):  # index rows whose number changes from call to call: counted at run time
        refuse_varying(idx, fn, "the length of its index rows would be the traced one", idx.ndim - 1)
        if math.prod(rest) == 0:
            refuse_varying(idx, fn, "the number of its rows cannot be inferred from empty updates")
        n = -1
    rows = _reshape(idx, shape=[n, k])
    offset, bad = offsets(rows, dims)
    offset = replace_bad(offset, bad, -1 if ignore else slots)  # -1: skipped by the segment sum
    return rows, bad, offset, _reshape(updates, shape=[n] + rest), slots, rest


def summed(fn, rows, bad, offset, updates, slots, shape):
    """The segment sum of the updates into their slots, reshaped to ``shape`` (a bool sum is an or)."""
    values = cast(updates, dtypes.int32) if updates.dtype == dtypes.bool else updates
    try:
        out = _segment_sum(values, offset, num_segments=slots)
    except _InvalidArgument as err:
        raise out_of_range(fn, rows, bad, f"shape {shape}", err) from None
    if updates.dtype == dtypes.bool:
        out = not_equal(out, constant(np.int32(0)))
    return _reshape(out, shape=shape)


def scatter_nd(idx, updates, shape, ignore):
    """tf.scatter_nd of the tensor updates at the index rows of idx (an int32 or int64 tensor of rank
    >= 1) into ``shape`` (checked as TF checks it); ignore: bad_indices_policy "IGNORE"."""
    dims = _static_shape(shape, idx.dtype, "scatter_nd")
    rows, bad, offset, flat, slots, _ = scatter_rows("scatter_nd", idx, updates, dims, ignore)
    return summed("scatter_nd", rows, bad, offset, flat, slots, dims)


def mirror_along(x, axis, before, after, edge):
    """x padded on one axis by before and after entries mirrored about its ends: tf.pad's SYMMETRIC
    (edge 0, the end entry repeated) or REFLECT (edge 1, without it)."""
    if axis_varies(x, axis):
        return _mirror_at_run_time(x, axis, before, after, edge)
    n = x._shape[axis]
    if min(before, after) < 0 or max(before, after) > n - edge:
        raise _core.InvalidArgumentError(f"MirrorPad: paddings ({before}, {after}) must be in [0, {n - edge}] for dimension "
                               f"{axis} of shape {tuple(x._shape)}")
    parts = [x]
    if before:  # x[before - 1 + edge], ..., x[edge]
        parts.insert(0, slice_along(x, axis, before - 1 + edge, edge - 1, -1))
    if after:   # x[n - 1 - edge], ..., x[n - edge - after]
        parts.append(slice_along(x, axis, n - 1 - edge, n - 1 - edge - after, -1))
    return concat(parts, axis)


def _mirror_at_run_time(x, axis, before, after, edge):
    """mirror_along along an axis whose size n changes from call to call: one gather of the positions
    before-1+edge .. edge, 0 .. n-1, n-1-edge .. n-edge-after, those after the axis computed from n at
    run time; paddings beyond n - edge are refused at run time, as TF's MirrorPad refuses them."""
    if min(before, after) < 0:
        raise _core.InvalidArgumentError(f"MirrorPad: paddings ({before}, {after}) must not be negative")
    n = run_time_size(x, axis)
    check_less_equal(constant(max(before, after), dtypes.int64), n - edge,
                     f"MirrorPad: paddings ({before}, {after}) must be at most the size of dimension {axis}"
                     + (" less one (REFLECT)" if edge else ""))
    head = np.arange(before - 1 + edge, edge - 1, -1, dtype=np.int64)
    parts = [constant(head), arange(n, dtypes.int64)]
    if after:
        parts.append(n - 1 - edge - constant(np.arange(after, dtype=np.int64)))
    positions = concat(parts, 0)
    return _raw.GatherV2(x, positions, axis=axis, batch_dims=0)
