"""tf.one_hot: numbers, strings and a depth computed inside a tf.function."""
import numpy as np

from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.arrays import arange, expand_dims
from tapegrad._ops.math.elementwise import equal
from tapegrad._tensor.tensor import Tensor, cast, constant, convert_to_tensor

__all__ = ["one_hot"]

_InvalidArgument = _core.InvalidArgumentError
_one_hot = _raw.OneHot
_select = _raw.Select


@dispatch("indices:tensor_own_dtype, depth:any, on_value:any=None, off_value:any=None, axis:int=None, dtype:any=None")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A tensor with ``on_value`` where the last (or ``axis``) index equals ``indices``, ``off_value`` elsewhere."""
    if dtype is None:
        given = [convert_to_tensor(v).dtype for v in (on_value, off_value) if v is not None]
        dtype = given[0] if given else dtypes.float32
    dt = convert_arg(dtype, "dtype", "one_hot", "dtype")  # (by hand: a DType passes at once)
    if dt == dtypes.string:
        return _one_hot_strings(indices, depth, on_value, off_value, axis)
    on = 1 if on_value is None else convert_to_tensor(on_value)._item()
    off = 0 if off_value is None else convert_to_tensor(off_value)._item()
    if isinstance(depth, Tensor) and _core._tracing() and _core._is_traced(depth):
        return _one_hot_computed_depth(indices, depth, on, off, axis, dt)
    return _one_hot(indices, depth=convert_arg(depth, "int", "one_hot", "depth"), on_value=float(on), off_value=float(off),
                    axis=-1 if axis is None else axis, dtype=dt.code)


def _one_hot_strings(indices, depth, on_value, off_value, axis):
    """one_hot of strings (TF's kernel takes any dtype): both values must be given, as TF's 1 and 0
    defaults convert to no string; the positions come from a boolean one_hot."""
    for what, v in (("on_value", on_value), ("off_value", off_value)):
        if v is None:
            raise TypeError(f"one_hot: Cannot convert {1 if what == 'on_value' else 0} to EagerTensor of dtype string "
                            f"(the default {what}; give both on_value and off_value for strings)")
    on, off = (convert_to_tensor(v) for v in (on_value, off_value))
    if on.dtype != dtypes.string or off.dtype != dtypes.string or on._shape or off._shape:
        raise TypeError(f"one_hot: on_value and off_value must be string scalars of one dtype, got {on!r} and {off!r}")
    hit = one_hot(indices, depth, on_value=True, off_value=False, axis=axis)
    return constant(np.where(hit.numpy(), on.numpy(), off.numpy()).astype(object))


def _one_hot_computed_depth(indices, depth, on, off, axis, dt):
    """one_hot with a depth computed inside the tf.function: the indices compared with range(depth),
    whose length is read at every call (OneHot takes its depth while tracing)."""
    if not indices.dtype.is_integer or not depth.dtype.is_integer or depth._shape:
        raise _InvalidArgument(f"OneHot: indices and depth must be integers and depth a scalar, got {indices!r} "
                               f"and {depth!r}")
    at = indices.ndim if axis is None or axis == -1 else axis
    if not 0 <= at <= indices.ndim:
        raise _InvalidArgument(f"OneHot: axis {axis} is out of range for indices of rank {indices.ndim}")
    along = [1] * (indices.ndim + 1)
    along[at] = -1
    positions = _raw.Reshape(arange(cast(depth, indices.dtype), indices.dtype), shape=along)
    hit = equal(expand_dims(indices, at), positions)
    return _select(hit, constant(on, dt), constant(off, dt))
