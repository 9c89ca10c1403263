"""Shape manipulation: reshape, transpose, broadcast_to, expand_dims, squeeze."""
from tapegrad import _core
from tapegrad._tensor import Tensor, convert_to_tensor

__all__ = ["reshape", "transpose", "broadcast_to", "expand_dims", "squeeze"]

_reshape = _core.op("Reshape")
_transpose = _core.op("Transpose")
_broadcast_to = _core.op("BroadcastTo")


def _ints(v):
    if isinstance(v, Tensor):
        return [int(d) for d in v.numpy().reshape(-1)]
    return [int(d) for d in v]


def reshape(tensor, shape, name=None):
    return _reshape(tensor, shape=_ints(shape))


def transpose(a, perm=None, conjugate=False, name="transpose"):
    return _transpose(a) if perm is None else _transpose(a, perm=_ints(perm))


def broadcast_to(input, shape, name=None):
    return _broadcast_to(input, shape=_ints(shape))


def expand_dims(input, axis, name=None):
    t = convert_to_tensor(input)
    s = list(t._shape)
    axis = int(axis)
    if not -len(s) - 1 <= axis <= len(s):
        raise _core.InvalidArgumentError(f"ExpandDims: axis {axis} is out of range for a tensor of rank {len(s)}")
    s.insert(axis if axis >= 0 else len(s) + 1 + axis, 1)
    return _reshape(t, shape=s)


def squeeze(input, axis=None, name=None):
    t = convert_to_tensor(input)
    s = list(t._shape)
    if axis is None:
        keep = [d for d in s if d != 1]
    else:
        axes = {(a + len(s)) if a < 0 else a for a in ([axis] if isinstance(axis, int) else axis)}
        for a in axes:
            if not 0 <= a < len(s) or s[a] != 1:
                raise _core.InvalidArgumentError(f"Squeeze: cannot squeeze axis {a} of shape {tuple(s)}")
        keep = [d for i, d in enumerate(s) if i not in axes]
    return _reshape(t, shape=keep)
