"""Pieces of public ops that the tf.nn modules compose, on tensors already converted: squeezing reduced
axes and clip_by_norm. Each does what the public op does for the arguments the nn ops pass (its own
checks on them included)."""
from tapegrad import errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import zeros_like
from tapegrad._ops._lib.tensors import safe_sqrt
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.elementwise import maximum
from tapegrad._ops.math.reduction import reduce_sum


def squeeze(x, axes):
    """tf.squeeze(x, axes) of a tensor and a list of ints (or None): the listed axes (negative ones
    counted from the end) removed, or every size-1 axis when axes is None or empty. An axis out of range
    or of a size other than 1 is tf.squeeze's InvalidArgumentError, with its message."""
    shape = list(x._shape)
    if not axes:
        return _raw.Squeeze(x, axis=[d for d, n in enumerate(shape) if n == 1])
    drop = {a + len(shape) if a < 0 else a for a in axes}
    for a in drop:  # tf.squeeze's check, in its order, so the same axis is named
        if not 0 <= a < len(shape) or shape[a] != 1:
            raise errors.InvalidArgumentError(f"Squeeze: cannot squeeze axis {a} of shape {tuple(shape)}")
    return _raw.Squeeze(x, axis=sorted(drop))


def clip_by_norm(t, clip_norm, axes):
    """tf.clip_by_norm of a tensor: t * c / max(norm(t over axes), c) with c = max(clip_norm, 0)."""
    n = safe_sqrt(reduce_sum(t * t, axes, keepdims=True))
    clip = convert_arg(clip_norm, "tensor", "clip_by_norm", "clip_norm", t.dtype)
    clip = maximum(clip, zeros_like(clip))
    return t * clip / maximum(n, clip)
