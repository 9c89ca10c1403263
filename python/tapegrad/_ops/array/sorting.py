"""Sorting: tf.sort, tf.argsort, tf.math.top_k and tf.math.in_top_k, on the ArgSort op (cpp/ops/sort.cpp).

The indices come from ArgSort along the last axis (another axis is moved there and back); the sorted
values are a gather of the input with those indices, so their gradient is the gather's (each value's
gradient goes back to where it came from) and differentiates again. The order is stable, and NaN is
larger than every number (Note [Sort order] in cpp/ops/sort.cpp).
"""
import collections

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import zeros
from tapegrad._ops._lib.shapes import batched_gather_at_run_time
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.array._common import none_refused
from tapegrad._ops.math.elementwise import logical_and
from tapegrad._ops.math.reduction import reduce_all, reduce_sum
from tapegrad._tensor.tensor import Tensor, cast, convert_to_tensor, identity, shape
from tapegrad._ops.debugging import checks as _checks

__all__ = ["sort", "argsort", "top_k", "in_top_k", "searchsorted"]

_argsort = _raw.ArgSort
_search = _raw.SearchSorted
_transpose = _raw.Transpose

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


def _direction(direction, fn):
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{fn}: Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    return direction == "DESCENDING"


def _sortable(values, fn, arg):
    t = values if isinstance(values, Tensor) else convert_to_tensor(values)
    if t.dtype == dtypes.bool or t.dtype == dtypes.string:
        raise errors.InvalidArgumentError(None, None, f"{fn}: argument '{arg}' must be a numeric tensor, got {t.dtype.name}")
    if t.ndim == 0:
        raise errors.InvalidArgumentError(None, None, f"{fn}: argument '{arg}' must be at least 1-D, got shape ()")
    return t


def _last_axis_first(t, ax, fn):
    """(perm moving `ax` to the end, or None when it is already there)."""
    rank = t.ndim
    if ax is None:
        raise none_refused(fn, "axis")
    if not -rank <= ax < rank:
        raise errors.InvalidArgumentError(None, None, f"{fn}: axis {ax} is out of range for a tensor of shape {t.shape}")
    ax %= rank
    if ax == rank - 1:
        return None
    perm = list(range(rank))
    perm[ax], perm[-1] = perm[-1], perm[ax]
    return perm


def _batched_gather(params, indices, axis, batch_dims):
    """tf.gather with batch_dims, its sizes read at run time when params' change from call to call."""
    if batch_dims and _core._varying_dims(params):
        return batched_gather_at_run_time(params, indices, axis, batch_dims)
    return _raw.GatherV2(params, indices, axis=axis, batch_dims=batch_dims)


def _take_last(t, indices):
    """t[..., indices[..., j]]: the values at `indices` along the last axis."""
    rank = t.ndim
    return _batched_gather(t, indices, rank - 1, rank - 1)


@dispatch("values:any, axis:int=-1, direction:any='ASCENDING', stable:bool=False")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices (int32) that sort ``values`` along ``axis``; equal values keep their order (always stable)."""
    descending = _direction(direction, "argsort")
    t = _sortable(values, "argsort", "values")
    if axis is None:
        raise none_refused("argsort", "axis")
    return _argsort(t, axis=axis, descending=descending)


@dispatch("values:any, axis:int=-1, direction:any='ASCENDING'")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis``; differentiable (the gradient goes back to each value's place)."""
    descending = _direction(direction, "sort")
    t = _sortable(values, "sort", "values")
    perm = _last_axis_first(t, axis, "sort")
    if perm is not None:
        t = _transpose(t, perm=perm)
    if t._is_variable:  # read densely: a sort's gradient is a dense tensor, as TF's (not a gather's IndexedSlices)
        t = identity(t)
    out = _take_last(t, _argsort(t, axis=-1, descending=descending))
    return out if perm is None else _transpose(out, perm=perm)


def _k(k, n):
    if isinstance(k, Tensor) and (k.ndim != 0 or not k.dtype.is_integer):
        raise errors.InvalidArgumentError(None, None, f"top_k: argument 'k' must be a scalar integer, got {k.dtype.name}{k.shape}")
    if isinstance(k, float):  # TF's TypeError ("Cannot convert 1.5 to EagerTensor of dtype int32")
        raise TypeError(f"top_k: argument 'k' must be an integer, got {k!r}")
    k = convert_arg(k, "int", "top_k", "k")
    if k < 0:
        raise errors.InvalidArgumentError(None, None, f"top_k: Need k >= 0, got {k}")
    if n is not None and n >= 0 and k > n:
        raise errors.InvalidArgumentError(None, None, f"top_k: input must have at least k columns. Had {n}, needed {k}")
    return k


@dispatch
def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):
    """The ``k`` largest entries of the last axis and their indices, largest first (``sorted=False``
    gives the same order: TF leaves it unspecified); equal values come in index order."""
    t = _sortable(input, "top_k", "input")
    index_type = convert_arg(index_type, "dtype", "top_k", "index_type")
    if index_type not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"top_k: index_type must be int32 or int64, got {index_type.name}")
    if isinstance(k, Tensor) and k.ndim == 0 and k.dtype.is_integer and _core._tracing() and _core._is_traced(k):
        indices = _top_k_computed(t, k)
    else:
        k = _k(k, t._shape[-1])
        indices = _argsort(t, axis=-1, descending=True, k=k)  # a partial sort: the first k of each row
    values = _take_last(t, indices)
    return TopKV2(values, indices if index_type == dtypes.int32 else cast(indices, index_type))


def _top_k_computed(t, k):
    """The indices of the k largest of each row for a k computed inside the tf.function: the first k of
    the full order, cut at run time (checked there as TF checks k)."""
    _checks.check_non_negative(k, "top_k: Need k >= 0")
    _checks.check_less_equal(cast(k, dtypes.int64), cast(shape(t)[-1], dtypes.int64),
                             "top_k: input must have at least k columns")
    return _argsort(t, axis=-1, descending=True)[..., :k]


@dispatch("targets:tensor_own_dtype, predictions:tensor_own_dtype, k:int")
def in_top_k(targets, predictions, k, name=None):
    """Whether ``predictions[i, targets[i]]`` is among the ``k`` largest of row i: fewer than k entries
    of the row are larger (ties count in its favour); False for a row holding a non-finite prediction
    or a target outside the row."""
    p, t = predictions, targets
    if p.dtype != dtypes.float32:
        raise errors.InvalidArgumentError(None, None, f"in_top_k: argument 'predictions' must be float32, got {p.dtype.name}")
    if t.dtype not in (dtypes.int32, dtypes.int64):
        raise errors.InvalidArgumentError(None, None, f"in_top_k: argument 'targets' must be int32 or int64, got {t.dtype.name}")
    if p.ndim != 2 or t.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"in_top_k: predictions must be 2-D and targets 1-D, got shapes "
                                                      f"{p.shape} and {t.shape}")
    n = p._shape[1]
    if n == 0:  # no class to be in the top of
        return zeros([p._shape[0]], dtypes.bool) if p._shape[0] is not None else t < 0
    inside = logical_and(t >= 0, t < n)
    safe = select(inside, t, 0)
    target_p = _batched_gather(p, cast(safe, dtypes.int32)[:, None], 1, 1)  # [batch, 1]
    larger = reduce_sum(cast(p > target_p, dtypes.int32), axis=1)
    # TF: a non-finite prediction anywhere makes the row False (|p| < inf is tf.math.is_finite)
    row_finite = reduce_all(abs(p) < float("inf"), axis=1)
    return logical_and(logical_and(inside, row_finite), larger < k)


@dispatch
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Per row, where each value would go to keep ``sorted_sequence`` sorted: before equal entries
    (side="left") or after them ("right"). Both are read as rows of their last axis, as many of each."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'.")
    s = convert_arg(sorted_sequence, "tensor", "searchsorted", "sorted_sequence")
    v = convert_arg(values, "tensor", "searchsorted", "values", s.dtype)
    out = convert_arg(out_type, "dtype", "searchsorted", "out_type")
    return _search(s, v, right=side == "right", out_type=out.code)
