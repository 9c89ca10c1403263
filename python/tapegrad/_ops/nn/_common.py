"""Pieces of public ops that the tf.nn modules compose, on tensors already converted: squeezing reduced
axes and clip_by_norm. Each does what the public op does for the arguments the nn ops pass (its own
checks on them included)."""
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import zeros_like
from tapegrad._ops._lib.tensors import safe_sqrt
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.elementwise import maximum
from tapegrad._ops.math.reduction import reduce_sum


def squeeze(x, axes):
    """tf.squeeze(x, axes): the listed axes (negative ones counted from the end) removed, or every
    size-1 axis when axes is None or empty."""
    rank = x.ndim
    if not axes:
        return _raw.Squeeze(x, axis=[d for d, n in enumerate(x._shape) if n == 1])
    return _raw.Squeeze(x, axis=sorted({a + rank if a < 0 else a for a in axes}))


def clip_by_norm(t, clip_norm, axes):
    """tf.clip_by_norm of a tensor: t * c / max(norm(t over axes), c) with c = max(clip_norm, 0)."""
    n = safe_sqrt(reduce_sum(t * t, axes, keepdims=True))
    clip = convert_arg(clip_norm, "tensor", "clip_by_norm", "clip_norm", t.dtype)
    clip = maximum(clip, zeros_like(clip))
    return t * clip / maximum(n, clip)
