"""Public ops given, inside a tf.function, a tensor computed there where the op takes a shape or count
(Note [Attributes computed in a trace] in cpp/bindings/ops.cpp): each is built from ops that read the
value at every call, so one trace serves every value, as in TF. Each fallback returns NotImplemented
for arguments it does not cover (the op's TypeError then stands)."""
from tapegrad import _core
from tapegrad._creation import _computed_dims
from tapegrad._ops.array import _gather, broadcast_to, reshape
from tapegrad._tensor import Tensor, cast, convert_to_tensor, shape

_dynamic_reshape = _core.op("DynamicReshape")
_dynamic_broadcast_to = _core.op("DynamicBroadcastTo")


def _shape_arg(value, fn, arg):
    try:
        return _computed_dims(value, fn, arg)
    except TypeError:
        return None


def _reshape(tensor, shape, name=None):
    dims = _shape_arg(shape, "reshape", "shape")
    return NotImplemented if dims is None else _dynamic_reshape(convert_to_tensor(tensor), dims)


def _broadcast_to(input, shape, name=None):
    dims = _shape_arg(shape, "broadcast_to", "shape")
    return NotImplemented if dims is None else _dynamic_broadcast_to(convert_to_tensor(input), dims)


def tile(input, multiples):
    """tile with computed multiples (called by tf.tile while tracing): each axis d repeated
    multiples[d] times, a gather of positions i mod n for i < n * multiples[d]."""
    from tapegrad._creation import range as range_
    from tapegrad._ops.elementwise import floormod
    m = _shape_arg(multiples, "tile", "multiples")
    x = convert_to_tensor(input)
    if m is None or tuple(m._shape) != (x.ndim,):
        return NotImplemented
    for d in range(x.ndim):
        n = cast(shape(x)[d], m.dtype)
        x = _gather(x, floormod(range_(n * m[d]), n), axis=d)
    return x


reshape.traced_fallback = _reshape
broadcast_to.traced_fallback = _broadcast_to
