"""Public ops given, inside a tf.function, a tensor computed there where the op takes a shape or count
(Note [Attributes computed in a trace] in tapegrad/_ops/_dispatch.py): each is built from ops that read the
value at every call, so one trace serves every value, as in TF. Each fallback returns NotImplemented
for arguments it does not cover (the op's TypeError then stands)."""
from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import arange, concat, stack
from tapegrad._ops._lib.shapes import computed_dims
from tapegrad._ops.array._common import broadcast_to
from tapegrad._ops.math.elementwise import equal, floormod, maximum
from tapegrad._ops.math.reduction import cumsum, reduce_sum
from tapegrad._tensor.tensor import Tensor, cast, convert_to_tensor, shape
from tapegrad._ops.debugging import checks as _checks

_gather, _reshape, _fill = _raw.GatherV2, _raw.Reshape, _raw.Fill


def _shape_arg(value, fn, arg):
    try:
        return computed_dims(value, fn, arg)
    except TypeError:
        return None


def tile(input, multiples):
    """tile with computed multiples (called by tf.tile while tracing): each axis d repeated
    multiples[d] times, a gather of positions i mod n for i < n * multiples[d]."""
    m = _shape_arg(multiples, "tile", "multiples")
    x = convert_to_tensor(input)
    if m is None or tuple(m._shape) != (x.ndim,):
        return NotImplemented
    for d in range(x.ndim):
        n = cast(shape(x)[d], m.dtype)
        x = _gather(x, floormod(arange(n * m[d], m.dtype), n), axis=d)
    return x


def traced(v):
    return isinstance(v, Tensor) and _core._tracing() and (_core._is_traced(v) or v._is_variable)


def holds_traced(value):
    """Whether value, a tensor or a nested list/tuple, holds a tensor computed inside the tf.function."""
    if isinstance(value, (list, tuple)):
        return any(holds_traced(v) for v in value)
    return traced(value)


def pack_if_traced(value):
    """``pack(value)`` when the list holds a tensor computed inside the tf.function, else None: what an
    op's declared input argument does with a list that does not convert (cpp/bindings/bind.cpp)."""
    return pack(value) if holds_traced(value) else None


def pack(value, dtype=None):
    """A nested list holding tensors computed inside the tf.function as one tensor (TF's auto-packing:
    a Pack node in the graph); elements take the dtype of the first tensor, or ``dtype``."""

    def first_dtype(v):
        if isinstance(v, (list, tuple)):
            return next((d for d in map(first_dtype, v) if d is not None), None)
        return v.dtype if isinstance(v, Tensor) else None

    dt = dtype or first_dtype(value)

    def build(v):
        if isinstance(v, (list, tuple)):
            return _stack([build(e) for e in v])
        t = v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dt)
        if t.dtype != dt:
            raise TypeError(f"convert_to_tensor: cannot pack a {t.dtype.name} tensor with {dt.name} elements")
        return t

    return build(value)


def _stack(tensors):
    """tensors stacked on a new first axis, refused as tf.stack refuses them (TF's Pack errors)."""
    if not tensors:
        raise errors.InvalidArgumentError("Pack: expected at least one tensor to stack")
    for t in tensors:
        if t._shape != tensors[0]._shape:
            raise errors.InvalidArgumentError(f"Pack: shapes of all inputs must match, got {tuple(tensors[0]._shape)} "
                                              f"and {tuple(t._shape)}")
    return stack(tensors)


def pad(x, paddings, value):
    """pad(mode="CONSTANT") with paddings computed inside the tf.function: along each axis, blocks of
    ``value`` (Fill of a run-time shape) concatenated before and after."""
    p = cast(paddings if isinstance(paddings, Tensor) else pack(paddings), dtypes.int64)
    if tuple(p._shape) != (x.ndim, 2):
        return NotImplemented
    _checks.check_non_negative(p, "Pad: paddings must be non-negative")
    for d in range(x.ndim):
        pieces = []
        for before, side in ((True, p[d, 0]), (False, p[d, 1])):
            dims = concat([shape(x, out_type=dtypes.int64)[:d], _reshape(side, shape=[1]),
                           shape(x, out_type=dtypes.int64)[d + 1:]], 0)
            pieces.append(_fill(dims, value))
        x = concat([pieces[0], x, pieces[1]], d)
    return x


def eye(rows, cols, dt):
    """eye with a row or column count computed inside the tf.function (a Range per axis, compared)."""
    r, c = (cast(convert_to_tensor(v), dtypes.int64) for v in (rows, cols))
    return cast(equal(_reshape(arange(r, r.dtype), shape=[-1, 1]), _reshape(arange(c, c.dtype), shape=[1, -1])), dt)


def repeat(x, counts, axis):
    """repeat with counts computed inside the tf.function: output row j takes input row i where i is the
    number of cumulative counts <= j (a searchsorted over them)."""
    n = shape(x, out_type=dtypes.int64)[axis]
    c = cast(counts, dtypes.int64)
    if c.ndim == 0:  # one count for every row: TF's tile refuses a negative one
        _checks.check_non_negative(c, "repeat: repeats must not be negative")
        c = broadcast_to(c, stack([n]))
    else:  # one count per row, or one for all (TF broadcasts them to the rows, at run time here)
        c = maximum(broadcast_to(c, stack([n])), 0)  # (a negative count among several is 0, as TF)
    ends = cumsum(c)
    total = reduce_sum(c)  # (not ends[-1]: the axis may have no rows at a later call)
    rows = _raw.SearchSorted(ends, arange(total, dtypes.int64), right=True, out_type=dtypes.int32.code)
    return _gather(x, rows, axis=axis)
