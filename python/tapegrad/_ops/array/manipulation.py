"""Shape ops: reshape, transpose, broadcast_to, expand_dims, squeeze, concat, stack, unstack, split, tile,
gather and the segment sum; pad and slicing are in slicing.py, one_hot in one_hot.py."""
import builtins

import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes
from tapegrad._ops._wrap import convert_arg, public_op
from tapegrad._ops._lib.shapes import (batched_gather_at_run_time, computed_dims, normalized_axis, num_segments_arg,
                                        refuse_varying, segment_op, slice_along)
from tapegrad._ops._lib.tensors import tensor_list
from tapegrad._ops.array._common import none_refused
from tapegrad._ops.array.computed_attrs import tile as _tile_computed
from tapegrad._tensor.tensor import Tensor, convert_to_tensor
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


def _computed_shape(value, fn):
    try:
        return computed_dims(value, fn, "shape")
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


@dispatch("a, perm:ints=None, conjugate:bool=False")
def transpose(a, perm=None, conjugate=False, name="transpose"):
    """Permutes the axes (reversed if perm is None); a negative entry counts from the end, as TF."""
    if perm is None:
        return _transpose(a)
    nd = a.ndim
    return _transpose(a, perm=[p + nd if -nd <= p < 0 else p for p in perm])


broadcast_to = public_op("BroadcastTo", "broadcast_to", "input, shape:ints", "Broadcasts ``input`` to ``shape``.",
                         traced_fallback=_broadcast_to_computed)


@dispatch("input, axis:int")
def expand_dims(input, axis, name=None):
    t = input
    s = list(t._shape)
    if not -len(s) - 1 <= axis <= len(s):
        raise _InvalidArgument(f"ExpandDims: axis {axis} is out of range for a tensor of rank {len(s)}")
    at = axis if axis >= 0 else len(s) + 1 + axis
    if _core._tracing() and _core._size_varies(t):  # no size named: the shape is t's at every call
        return _expand_dims(t, axis=at)
    s.insert(at, 1)
    return _reshape(t, shape=s)


@dispatch("input, axis:axes=None")
def squeeze(input, axis=None, name=None):
    """Removes size-1 axes: those in ``axis``, or every one when ``axis`` is None or empty (as TF)."""
    t = input
    s = list(t._shape)
    axis = axis or []
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


@dispatch
def concat(values, axis, name="concat"):
    """Joins tensors along an existing axis; the gradient slices g back into the pieces.

    ``values`` given as one tensor (not a list) is returned as it is, as TF does.
    """
    if isinstance(values, Tensor):
        return values
    if type(values) is list and len(values) > 1 and type(axis) is int and all(isinstance(v, Tensor) for v in values):
        return _concat(*values, axis=axis)  # nothing to convert: what the lines below would do
    values = tensor_list(values, "concat", "values")
    if len(values) == 1:
        return convert_to_tensor(values[0])
    return _concat(*values, axis=convert_arg(axis, "int", "concat", "axis"))


@dispatch("values:any, axis:int=0")
def stack(values, axis=0, name="stack"):
    """Joins same-shape tensors along a new axis."""
    ts = [convert_to_tensor(v) for v in tensor_list(values, "stack", "values")]
    if axis is None:
        raise none_refused("stack", "axis")
    if not ts:
        raise _InvalidArgument("Pack: expected at least one tensor to stack")
    shape = ts[0]._shape
    for t in ts:
        if t._shape != shape:
            raise _InvalidArgument(f"Pack: shapes of all inputs must match, got {tuple(shape)} and {tuple(t._shape)}")
    return concat([expand_dims(t, axis) for t in ts], axis)


@dispatch("value:any, num:int=None, axis:int=0")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits a tensor into a list of tensors along ``axis``, removing it."""
    x = convert_to_tensor(value)  # (a string tensor too)
    axis = normalized_axis(axis, x.ndim, "unstack", "Unpack")
    refuse_varying(x, "unstack", "its number of results would be the traced size", axis)
    n = x._shape[axis]
    if num is not None and num != n:
        raise _InvalidArgument(f"Unpack: num={num} does not match dimension {axis} of shape {tuple(x._shape)}")
    lead = (builtins.slice(None),) * axis
    return [x[lead + (i,)] for i in range(n)]


@dispatch("value, num_or_size_splits:any, axis:int=0, num:any=None")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits into ``num_or_size_splits`` equal pieces, or pieces of the listed sizes (one may be -1)."""
    x = value
    axis = normalized_axis(axis, x.ndim, "split", "Split")
    refuse_varying(x, "split", "its pieces would keep the traced sizes", axis)
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
        lambda a, b: slice_along(x, axis, a, b))
    out, at = [], 0
    for s in sizes:
        out.append(piece(at, at + s))
        at += s
    return out


@dispatch("input, multiples:any")
def tile(input, multiples, name=None):
    if _core._tracing():  # multiples computed inside the tf.function
        y = _tile_computed(input, multiples)
        if y is not NotImplemented:
            return y
    return _tile(input, multiples=convert_arg(multiples, "ints", "tile", "multiples"))


@dispatch("params:any, indices:any, validate_indices:any=None, axis:int=None, batch_dims:int=0")
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """params[..., indices, ...] along ``axis`` (default ``batch_dims``); out-of-range indices raise."""
    if batch_dims is None:
        raise none_refused("gather", "batch_dims")
    idx = indices if isinstance(indices, Tensor) else convert_to_tensor(indices, dtype_hint=dtypes.int32)
    if isinstance(params, (list, tuple, np.ndarray)):  # its own dtype (floats are float32), not the indices' (as TF)
        params = convert_to_tensor(params)
    axis = batch_dims if axis is None else axis
    if batch_dims and isinstance(params, Tensor) and _core._varying_dims(params):
        return batched_gather_at_run_time(params, idx, axis, batch_dims)
    return _gather(params, idx, axis=axis, batch_dims=batch_dims)


@dispatch("data, segment_ids:tensor_own_dtype, num_segments:any")
def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """out[s] = sum of data[i] over segment_ids[i] == s; a negative id drops its row, one of num_segments
    or more raises."""
    n = num_segments_arg(num_segments, "unsorted_segment_sum")
    return segment_op(_segment_sum, data, segment_ids, n)
