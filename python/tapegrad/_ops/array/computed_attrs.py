"""Public ops given, inside a tf.function, a tensor computed there where the op takes a shape or count
(Note [Attributes computed in a trace] in tapegrad/_ops/_dispatch.py): each is built from ops that read the
value at every call, so one trace serves every value, as in TF. Each fallback returns NotImplemented
for arguments it does not cover (the op's TypeError then stands)."""
from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._ops.array.creation import ones, range as range_
from tapegrad._ops._lib.shapes import computed_dims
from tapegrad._ops.array.manipulation import _gather, broadcast_to, concat, reshape, stack
from tapegrad._ops.array.sorting import searchsorted
from tapegrad._ops.math.elementwise import equal, floormod, maximum
from tapegrad._ops.math.reduction import cumsum, reduce_sum
from tapegrad._tensor.tensor import Tensor, cast, convert_to_tensor, shape
from tapegrad._ops.debugging import asserts as _asserts


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
        x = _gather(x, floormod(range_(n * m[d]), n), axis=d)
    return x


def traced(v):
    return isinstance(v, Tensor) and _core._tracing() and (_core._is_traced(v) or v._is_variable)


def holds_traced(value):
    """Whether value, a tensor or a nested list/tuple, holds a tensor computed inside the tf.function."""
    if isinstance(value, (list, tuple)):
        return any(holds_traced(v) for v in value)
    return traced(value)


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
            return stack([build(e) for e in v])
        t = v if isinstance(v, Tensor) else convert_to_tensor(v, dtype=dt)
        if t.dtype != dt:
            raise TypeError(f"convert_to_tensor: cannot pack a {t.dtype.name} tensor with {dt.name} elements")
        return t

    return build(value)


def pad(x, paddings, value):
    """pad(mode="CONSTANT") with paddings computed inside the tf.function: along each axis, blocks of
    ``value`` (Fill of a run-time shape) concatenated before and after."""
    p = cast(paddings if isinstance(paddings, Tensor) else pack(paddings), dtypes.int64)
    if tuple(p._shape) != (x.ndim, 2):
        return NotImplemented
    _asserts.assert_non_negative(p, message="Pad: paddings must be non-negative")
    for d in range(x.ndim):
        pieces = []
        for before, side in ((True, p[d, 0]), (False, p[d, 1])):
            dims = concat([shape(x, out_type=dtypes.int64)[:d], reshape(side, [1]),
                           shape(x, out_type=dtypes.int64)[d + 1:]], 0)
            pieces.append(_fill(dims, value))
        x = concat([pieces[0], x, pieces[1]], d)
    return x


def eye(rows, cols, dt):
    """eye with a row or column count computed inside the tf.function (a Range per axis, compared)."""
    r, c = (cast(convert_to_tensor(v), dtypes.int64) for v in (rows, cols))
    return cast(equal(reshape(range_(r), [-1, 1]), reshape(range_(c), [1, -1])), dt)


def repeat(x, counts, axis):
    """repeat with counts computed inside the tf.function: output row j takes input row i where i is the
    number of cumulative counts <= j (a searchsorted over them)."""
    n = shape(x, out_type=dtypes.int64)[axis]
    c = cast(counts, dtypes.int64)
    if c.ndim == 0:  # one count for every row: TF's tile refuses a negative one
        _asserts.assert_non_negative(c, message="repeat: repeats must not be negative")
        c = c * _ones_like_rows(n)
    else:  # one count per row, or one for all (TF broadcasts them to the rows, at run time here)
        c = maximum(broadcast_to(c, stack([n])), 0)  # (a negative count among several is 0, as TF)
    ends = cumsum(c)
    total = reduce_sum(c)  # (not ends[-1]: the axis may have no rows at a later call)
    return _gather(x, searchsorted(ends, range_(total), side="right"), axis=axis)


def _ones_like_rows(n):
    return ones([n], dtypes.int64)


_fill = _raw.Fill
