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
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import arange
from tapegrad._ops._lib.shapes import refuse_varying
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.array import _common
from tapegrad._ops.array._common import out_of_range, replace_bad, scatter_rows, summed
from tapegrad._ops.math.elementwise import greater_equal, less, logical_not
from tapegrad._tensor.tensor import Tensor, cast, constant, size

__all__ = ["gather_nd", "scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_update"]

_InvalidArgument = errors.InvalidArgumentError
_gather, _reshape = _raw.GatherV2, _raw.Reshape
_segment_sum, _segment_max = _raw.UnsortedSegmentSum, _raw.UnsortedSegmentMax


def _index_tensor(idx, fn):
    """The tensor idx, refused unless int32 or int64 (a float index is TF's InvalidArgumentError, as its
    attr check) and at least a vector."""
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


@dispatch("params, indices:tensor_own_dtype, batch_dims:int=0, *, bad_indices_policy:any=''")
def gather_nd(params, indices, batch_dims=0, name=None, bad_indices_policy=""):
    """The slices of ``params`` at the index rows of ``indices`` ([..., k]): the result has shape
    indices.shape[:-1] + params.shape[batch_dims + k:]. The first ``batch_dims`` dimensions are
    batch dimensions shared by params and indices. An index outside params raises
    InvalidArgumentError (under bad_indices_policy="IGNORE" its slice is zeros)."""
    idx, b = _index_tensor(indices, "gather_nd"), batch_dims
    if b is None:
        raise _common.none_refused("gather_nd", "batch_dims")
    ignore = _ignores_bad_indices(bad_indices_policy, "gather_nd", errors.NotFoundError)
    if b < 0:
        raise ValueError(f"gather_nd: batch_dims must not be negative, got {b}")
    if b >= idx.ndim:
        raise ValueError(f"gather_nd: batch_dims ({b}) must be less than the rank of indices ({idx.ndim})")
    return _common.gather_nd(params, idx, b, ignore)


@dispatch("indices:any, updates, shape:any, bad_indices_policy:any=''")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A tensor of ``shape``, zero except for ``updates`` added at the index rows of ``indices``
    ([..., k]); updates at the same index add up (bool ones or together). An index outside
    ``shape`` raises InvalidArgumentError (is skipped under bad_indices_policy="IGNORE")."""
    # indices given as a list take the dtype of a shape given as an integer tensor, as TF infers one index type
    hint = shape.dtype if isinstance(shape, Tensor) and shape.dtype in (dtypes.int32, dtypes.int64) else None
    idx = _index_tensor(convert_arg(indices, "tensor", "scatter_nd", "indices", hint), "scatter_nd")
    ignore = _ignores_bad_indices(bad_indices_policy, "scatter_nd")
    return _common.scatter_nd(idx, updates, shape, ignore)


def _tensor_and_updates(t, updates, fn):
    u = convert_arg(updates, "tensor", fn, "updates", t.dtype)  # (a Python value takes the tensor's dtype)
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
    rows, bad, offset, flat, slots, _ = scatter_rows(fn, idx, u, shape, ignore)
    return combine(t, summed(fn, rows, bad, offset, flat, slots, shape))


@dispatch("tensor:tensor_own_dtype, indices:tensor_own_dtype, updates:any, bad_indices_policy:any=''")
def tensor_scatter_nd_add(tensor, indices, updates, bad_indices_policy="", name=None):
    """``tensor`` with ``updates`` added at the index rows of ``indices`` (repeated indices add up)."""
    return _scatter_into(tensor, indices, updates, bad_indices_policy, "tensor_scatter_nd_add", lambda t, s: t + s)


@dispatch("tensor:tensor_own_dtype, indices:tensor_own_dtype, updates:any, bad_indices_policy:any=''")
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
    safe = select(less(offset, constant(np_dt(0))), constant(np_dt(0)), offset)  # skipped rows read slot 0
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
    position = arange(size(offset, out_type=dt), dt)
    safe = select(less(offset, constant(dt.as_numpy_dtype(0))), constant(dt.as_numpy_dtype(0)), offset)
    last = _segment_max(position, offset, num_segments=slots)
    return position == _gather(last, safe, axis=0)


@dispatch("tensor:tensor_own_dtype, indices:tensor_own_dtype, updates:any")
def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the slices at the index rows of ``indices`` replaced by ``updates``; of repeated
    indices the last update wins, as on TF's CPU."""
    fn = "tensor_scatter_nd_update"
    t, u = _tensor_and_updates(tensor, updates, fn)
    idx = _index_tensor(indices, fn)
    refuse_varying(t, fn, "the offsets of the index rows would be computed from the traced shape")
    shape = list(t._shape)
    rows, bad, offset, flat, slots, rest = scatter_rows(fn, idx, u, shape, False)
    varying = _core._varying_dims(offset) != 0  # (the number of index rows changes from call to call)
    n = offset._shape[0]
    try:
        # the bad rows raise here, before anything reads them
        ones = cast(greater_equal(offset, offset), dtypes.int32) if varying else constant(np.ones(n, np.int32))
        written = _segment_sum(ones, offset, num_segments=slots)
    except _InvalidArgument as err:
        raise out_of_range(fn, rows, bad, f"shape {shape}", err) from None
    last = _last_writers_at_run_time(offset, slots) if varying else _last_writers(offset, slots) if n > 1 else None
    winners = offset if last is None else replace_bad(offset, logical_not(last), -1)  # others are skipped
    new = summed(fn, rows, bad, winners, flat, slots, shape)
    covered = _reshape(written > constant(np.int32(0)), shape=shape[:len(shape) - len(rest)] + [1] * len(rest))
    return select(covered, new, t)
