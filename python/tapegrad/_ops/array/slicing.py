"""Padding and slicing: tf.pad (constant, reflect and symmetric), tf.slice, tf.strided_slice, tf.reverse
and tf.boolean_mask."""
import builtins

import numpy as np

from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops._lib.shapes import normalized_axis
from tapegrad._ops.array import _common, computed_attrs
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["pad", "slice", "strided_slice", "reverse", "boolean_mask"]

_InvalidArgument = _core.InvalidArgumentError
_gather = _raw.GatherV2
_reshape = _raw.Reshape
_strided_slice = _raw.StridedSlice
_pad = _raw.Pad
_reverse = _raw.ReverseV2


@dispatch("tensor, paddings:any, mode:any='CONSTANT', constant_values:any=0")
def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads with a constant, or mirrors the edges (mode REFLECT without, SYMMETRIC with the edge)."""
    x = tensor
    mode = str(mode).upper()
    if _core._tracing() and mode == "CONSTANT":  # paddings computed inside the tf.function
        if computed_attrs.holds_traced(paddings):
            y = computed_attrs.pad(x, paddings, convert_to_tensor(constant_values, dtype=x.dtype))
            if y is not NotImplemented:
                return y
    flat = _paddings(paddings, x)
    if mode == "CONSTANT":
        # as TF: a Python 0 pads any dtype; another value converts to the tensor's dtype (TypeError for 3 -> bool)
        plain_zero = not isinstance(constant_values, Tensor) and np.ndim(constant_values) == 0 and constant_values == 0
        value = 0.0 if plain_zero else float(convert_to_tensor(constant_values, dtype=x.dtype)._item())
        return _pad(x, paddings=flat, constant_values=value)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise _InvalidArgument(f"Pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}")
    if len(flat) != 2 * x.ndim:
        raise _InvalidArgument(f"MirrorPad: paddings must have shape [{x.ndim}, 2], got {len(flat)} values")
    for axis in range(x.ndim):
        x = _common.mirror_along(x, axis, flat[2 * axis], flat[2 * axis + 1], 1 if mode == "REFLECT" else 0)
    return x


def _paddings(paddings, x):
    """paddings, an integer [rank, 2] tensor or nested list, as a flat list of ints."""
    # No int32 hint: as TF, Python ints past int32 make an int64 tensor (a hint would wrap 2**32 + 1 to 1).
    p = convert_arg(paddings, "tensor", "pad", "paddings")
    if not isinstance(paddings, Tensor) and not p.dtype.is_integer:
        p = convert_arg(paddings, "tensor", "pad", "paddings", dtypes.int32)  # TF's error for Python floats
    if not p.dtype.is_integer or p._size and (p.ndim != 2 or p._shape[1] != 2):
        raise _InvalidArgument(f"pad: paddings must be an integer matrix with 2 columns, got {p.dtype.name}"
                               f"{tuple(p._shape)} for input of shape {tuple(x._shape)}")
    return convert_arg(_reshape(p, shape=[-1]), "ints", "pad", "paddings")


@dispatch("input_, begin:ints, size:ints")
def slice(input_, begin, size, name=None):  # noqa: A001 -- TF's name
    """input_[begin : begin + size] in every dimension; a size of -1 takes the rest."""
    x, b, s = input_, begin, size
    if len(b) != x.ndim or len(s) != x.ndim:
        raise _InvalidArgument(f"Slice: begin {b} and size {s} need one entry per dimension of shape {tuple(x._shape)}")
    e = [n if k == -1 else bb + k for bb, k, n in zip(b, s, x._shape)]
    for bb, ee, n in zip(b, e, x._shape):
        if not 0 <= bb <= ee <= n:
            raise _InvalidArgument(f"Slice: begin {b} and size {s} are out of range for shape {tuple(x._shape)}")
    if _core._varying_dims(x):
        return _common.slice_at_run_time(x, b, s, e)
    return _strided_slice(x, begin=b, end=e, strides=[1] * x.ndim)


@dispatch("input_:any, begin:ints, end:ints, strides:ints=None")
def strided_slice(input_, begin, end, strides=None, name=None):
    """input_[begin_0:end_0:strides_0, ...] with Python slice semantics per dimension (no masks)."""
    strides = [1] * len(begin) if strides is None else strides
    return convert_to_tensor(input_)[tuple(builtins.slice(b, e, s) for b, e, s in zip(begin, end, strides))]


@dispatch("tensor, axis:ints")
def reverse(tensor, axis, name=None):
    """Reverses the listed axes."""
    x = tensor
    axes = [normalized_axis(a, x.ndim, "reverse", "ReverseV2") for a in axis]
    if len(set(axes)) != len(axes):
        raise _InvalidArgument(f"ReverseV2: axis {axes} lists an axis twice")
    return _reverse(x, axis=axes)


@dispatch("tensor, mask:any, axis:int=None")
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of ``tensor`` where ``mask`` is True; ``mask`` covers dimensions axis..axis+mask.ndim."""
    x = tensor
    m = mask if isinstance(mask, Tensor) else convert_to_tensor(np.asarray(mask))
    axis = 0 if axis is None else normalized_axis(axis, x.ndim, "boolean_mask", "BooleanMask")
    return _common.boolean_mask(x, m, axis)
