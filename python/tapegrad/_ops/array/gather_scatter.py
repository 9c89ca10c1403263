"""tf.gather_nd, tf.scatter_nd and tf.tensor_scatter_nd_{add,sub,update}, composed of GatherV2 and
UnsortedSegmentSum over row-major offsets, so that gradients (each op is the other's adjoint),
forward mode and tracing come from those two registered ops.

Note [Offsets of index rows]: an index row (i_0, ..., i_{k-1}) into the leading dimensions
(d_0, ..., d_{k-1}) of a tensor is the offset sum_j i_j * prod(d_{j+1:}) into those dimensions
flattened to one. A row with a component outside [0, d_j) could still land on a valid offset
([0, 5] into [3, 4] is offset 5), so such rows are found per component and their offset replaced:
by the flattened size, which GatherV2 and UnsortedSegmentSum reject (TF's CPU kernels raise), or,
under bad_indices_policy="IGNORE", by a value the ops skip (-1 for the segment sum) or mask out.
Index values are only ever read by ops, so one traced graph serves every index value.
"""
import math

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function.trace_context import traced_value_error
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.array.creation import range as range_, zeros_like
from tapegrad._ops.array.manipulation import _gather, _reshape, _segment_sum
from tapegrad._ops._lib.shapes import refuse_varying
from tapegrad._ops.math.elementwise import greater_equal, less, logical_not, logical_or, not_equal
from tapegrad._ops.math.divide_where import where
from tapegrad._ops.math.reduction import reduce_any, reduce_sum
from tapegrad._tensor.tensor import Tensor, cast, constant, size

__all__ = ["gather_nd", "scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_update"]

_InvalidArgument = errors.InvalidArgumentError
_segment_max = _raw.UnsortedSegmentMax
_INT32_LIMIT = 2 ** 31


def _index_tensor(indices, fn, dtype_hint=None):
    """indices as an int32 or int64 tensor (a float index is TF's InvalidArgumentError, as its attr check)."""
    idx = convert_arg(indices, "tensor", fn, "indices", dtype_hint)
    if idx.dtype not in (dtypes.int32, dtypes.int64):
        raise _InvalidArgument(f"{fn}: indices must be int32 or int64, got {idx.dtype.name}")
    if idx.ndim == 0:
        raise _InvalidArgument(f"{fn}: indices must be at least a vector, got a scalar")
    return idx


def _ignores_bad_indices(policy, fn, unknown_error=_InvalidArgument):
    """True for bad_indices_policy "IGNORE"; "", "DEFAULT" and "ERROR" raise on a bad index."""
    if policy in ("", "DEFAULT", "ERROR"):
        return False
    if policy == "IGNORE":
        return True
    raise unknown_error(f"{fn}: unknown bad_indices_policy {policy!r} (expected '', 'DEFAULT', 'ERROR' or 'IGNORE')")


def _offsets(rows, dims):
    """(offset, bad) per index row of rows [..., k] into dims (Note [Offsets of index rows])."""
    total = math.prod(dims)
    dt = rows.dtype if total < _INT32_LIMIT else dtypes.int64
    rows = rows if rows.dtype == dt else cast(rows, dt)
    strides = [math.prod(dims[j + 1:]) for j in range(len(dims))]
    offset = reduce_sum(rows * constant(np.asarray(strides, dt.as_numpy_dtype)), axis=-1)
    bad = reduce_any(logical_or(less(rows, constant(np.zeros((), dt.as_numpy_dtype))),
                                greater_equal(rows, constant(np.asarray(dims, dt.as_numpy_dtype)))), axis=-1)
    return offset, bad


def _replace_bad(offset, bad, value):
    return where(bad, constant(np.asarray(value, offset.dtype.as_numpy_dtype)), offset)


def _out_of_range(fn, rows, bad, what, err):
    """The error for the first bad index row; read only on this eager error path, for the message."""
    flags = bad.numpy().reshape(-1)
    if not flags.any():
        return err
    at = int(np.argmax(flags))
    row = rows.numpy().reshape(len(flags), -1)[at].tolist()
    return _InvalidArgument(f"{fn}: indices[{at}] = {row} does not index into {what}")


@dispatch
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """The slices of ``params`` at the index rows of ``indices`` ([..., k]): the result has shape
    indices.shape[:-1] + params.shape[batch_dims + k:]. The first ``batch_dims`` dimensions are
    batch dimensions shared by params and indices. An index outside params raises
    InvalidArgumentError (under bad_indices_policy="IGNORE" its slice is zeros)."""
    params = convert_arg(params, "tensor", "gather_nd", "params")
    idx = _index_tensor(indices, "gather_nd")
    b = convert_arg(batch_dims, "int", "gather_nd", "batch_dims")
    ignore = _ignores_bad_indices(bad_indices_policy, "gather_nd", errors.NotFoundError)
    if b < 0:
        raise ValueError(f"gather_nd: batch_dims must not be negative, got {b}")
    if b >= idx.ndim:
        raise ValueError(f"gather_nd: batch_dims ({b}) must be less than the rank of indices ({idx.ndim})")
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
    offset, bad = _offsets(rows, dims)
    if nb > 1:  # batch j reads rows j * per_batch ... of the flattened params
        dt = dtypes.int64 if nb * per_batch >= _INT32_LIMIT else offset.dtype
        starts = np.arange(nb, dtype=dt.as_numpy_dtype).reshape(nb, 1) * per_batch
        offset = (offset if offset.dtype == dt else cast(offset, dt)) + constant(starts)
    flat = _reshape(params, shape=[nb * per_batch] + rest)
    if ignore:
        if nb * per_batch * m == 0:  # nothing to read: every row is bad, or there are none
            return constant(np.zeros(out_shape, params.dtype.as_numpy_dtype))
        picked = _gather(flat, _replace_bad(offset, bad, 0), axis=0)
        mask = _reshape(bad, shape=([-1] if m == -1 else [nb, m]) + [1] * len(rest))
        zeros = zeros_like(picked) if m == -1 else _zeros_of(picked)  # (neither connected to picked)
        picked = where(mask, zeros, picked)
        return picked if m == -1 else _reshape(picked, shape=out_shape)
    try:
        picked = _gather(flat, _replace_bad(offset, bad, nb * per_batch), axis=0)
    except _InvalidArgument as err:
        raise _out_of_range("gather_nd", rows, bad, f"params of shape {tuple(pshape)}", err) from None
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


def _scatter_rows(fn, idx, updates, shape, ignore):
    """(offsets [N], updates [N, *rest], number of slots, rest) for scattering updates into shape,
    after TF's checks of the three shapes."""
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
    offset, bad = _offsets(rows, dims)
    offset = _replace_bad(offset, bad, -1 if ignore else slots)  # -1: skipped by the segment sum
    return rows, bad, offset, _reshape(updates, shape=[n] + rest), slots, rest


def _summed(fn, rows, bad, offset, updates, slots, shape):
    """The segment sum of the updates into their slots, reshaped to ``shape`` (a bool sum is an or)."""
    values = cast(updates, dtypes.int32) if updates.dtype == dtypes.bool else updates
    try:
        out = _segment_sum(values, offset, num_segments=slots)
    except _InvalidArgument as err:
        raise _out_of_range(fn, rows, bad, f"shape {shape}", err) from None
    if updates.dtype == dtypes.bool:
        out = not_equal(out, constant(np.int32(0)))
    return _reshape(out, shape=shape)


@dispatch
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A tensor of ``shape``, zero except for ``updates`` added at the index rows of ``indices``
    ([..., k]); updates at the same index add up (bool ones or together). An index outside
    ``shape`` raises InvalidArgumentError (is skipped under bad_indices_policy="IGNORE")."""
    # indices given as a list take the dtype of a shape given as an integer tensor, as TF infers one index type
    hint = shape.dtype if isinstance(shape, Tensor) and shape.dtype in (dtypes.int32, dtypes.int64) else None
    idx = _index_tensor(indices, "scatter_nd", hint)
    upd = convert_arg(updates, "tensor", "scatter_nd", "updates")
    ignore = _ignores_bad_indices(bad_indices_policy, "scatter_nd")
    dims = _static_shape(shape, idx.dtype, "scatter_nd")
    rows, bad, offset, flat, slots, _ = _scatter_rows("scatter_nd", idx, upd, dims, ignore)
    return _summed("scatter_nd", rows, bad, offset, flat, slots, dims)


def _tensor_and_updates(tensor, updates, fn):
    t = convert_arg(tensor, "tensor", fn, "tensor")
    u = convert_arg(updates, "tensor", fn, "updates", t.dtype)
    if u.dtype != t.dtype:
        raise _InvalidArgument(f"{fn}: updates must have the dtype of tensor ({t.dtype.name}), got {u.dtype.name}")
    return t, u


def _scatter_into(tensor, indices, updates, bad_indices_policy, fn, combine):
    t, u = _tensor_and_updates(tensor, updates, fn)
    idx = _index_tensor(indices, fn)
    if t.dtype == dtypes.bool:  # TF registers no bool kernel for these two
        raise errors.NotFoundError(f"{fn}: no kernel for tensors of dtype bool")
    ignore = _ignores_bad_indices(bad_indices_policy, fn)
    refuse_varying(t, fn, "the offsets of the index rows would be computed from the traced shape")
    shape = list(t._shape)
    rows, bad, offset, flat, slots, _ = _scatter_rows(fn, idx, u, shape, ignore)
    return combine(t, _summed(fn, rows, bad, offset, flat, slots, shape))


@dispatch
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` added at the index rows of ``indices`` (repeated indices add up)."""
    return _scatter_into(tensor, indices, updates, bad_indices_policy, "tensor_scatter_nd_add", lambda t, s: t + s)


@dispatch
def tensor_scatter_nd_sub(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` subtracted at the index rows of ``indices``."""
    return _scatter_into(tensor, indices, updates, bad_indices_policy, "tensor_scatter_nd_sub", lambda t, s: t - s)


def _last_writers(offset, slots):
    """Per update, whether it is the last one written to its slot (TF's CPU kernel assigns in order,
    so the last of repeated indices wins). The last position per slot is found one bit at a time,
    from the highest: a slot keeps bit b when one of its positions matches its bits found so far and
    has bit b set. That takes log2(N) segment sums instead of a sort or an N x N comparison."""
    n = offset._shape[0]
    dt = offset.dtype
    np_dt = dt.as_numpy_dtype
    position = constant(np.arange(n, dtype=np_dt))
    safe = where(less(offset, constant(np_dt(0))), constant(np_dt(0)), offset)  # skipped rows read slot 0
    best = constant(np.zeros(slots, np_dt))  # per slot: the high bits of its last position found so far
    for bit in reversed(range(max(n - 1, 0).bit_length())):
        high = position // constant(np_dt(2 ** bit))
        wanted = _gather(best, safe, axis=0) * constant(np_dt(2)) + constant(np_dt(1))
        hits = _segment_sum(cast(high == wanted, dt), offset, num_segments=slots)
        best = best * constant(np_dt(2)) + cast(hits > constant(np_dt(0)), dt)
    return position == _gather(best, safe, axis=0)


def _last_writers_at_run_time(offset, slots):
    """_last_writers for a number of updates that changes from call to call (its bits are not known at
    the trace): each slot's last position is the segment max of the positions."""
    dt = offset.dtype
    position = range_(size(offset, out_type=dt), dtype=dt)
    safe = where(less(offset, constant(dt.as_numpy_dtype(0))), constant(dt.as_numpy_dtype(0)), offset)
    last = _segment_max(position, offset, num_segments=slots)
    return position == _gather(last, safe, axis=0)


@dispatch
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the slices at the index rows of ``indices`` replaced by ``updates``; of repeated
    indices the last update wins, as on TF's CPU."""
    fn = "tensor_scatter_nd_update"
    t, u = _tensor_and_updates(tensor, updates, fn)
    idx = _index_tensor(indices, fn)
    refuse_varying(t, fn, "the offsets of the index rows would be computed from the traced shape")
    shape = list(t._shape)
    rows, bad, offset, flat, slots, rest = _scatter_rows(fn, idx, u, shape, False)
    varying = _core._varying_dims(offset) != 0  # (the number of index rows changes from call to call)
    n = offset._shape[0]
    try:
        # the bad rows raise here, before anything reads them
        ones = cast(greater_equal(offset, offset), dtypes.int32) if varying else constant(np.ones(n, np.int32))
        written = _segment_sum(ones, offset, num_segments=slots)
    except _InvalidArgument as err:
        raise _out_of_range(fn, rows, bad, f"shape {shape}", err) from None
    last = _last_writers_at_run_time(offset, slots) if varying else _last_writers(offset, slots) if n > 1 else None
    winners = offset if last is None else _replace_bad(offset, logical_not(last), -1)  # others are skipped
    new = _summed(fn, rows, bad, winners, flat, slots, shape)
    covered = _reshape(written > constant(np.int32(0)), shape=shape[:len(shape) - len(rest)] + [1] * len(rest))
    return where(covered, new, t)
