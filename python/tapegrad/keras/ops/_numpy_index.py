"""keras.ops.numpy's sorting, indexing, selection and product ops over tapegrad's ops."""
import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, promote, to_float
from tapegrad.keras.ops._numpy_shape import _moveaxis, _positive, _rank


def _flat_or(x, axis):
    x = as_tensor(x)
    return (tf.reshape(x, [-1]), -1) if axis is None else (x, axis)


def _sort(x, axis=-1):
    x = as_tensor(x)
    if x.dtype == tf.bool:
        return tf.cast(tf.sort(tf.cast(x, "int32"), axis=axis), "bool")
    return tf.sort(x, axis=axis)


def _argsort(x, axis=-1):
    x, axis = _flat_or(x, axis)
    x = tf.cast(x, "int32") if x.dtype == tf.bool else x
    return tf.argsort(x, axis=axis, stable=True)


def _take(x, indices, axis=None):
    x, axis = _flat_or(x, axis)
    indices = as_tensor(indices)
    size = tf.cast(tf.shape(x)[axis], indices.dtype)
    indices = tf.where(tf.less(indices, 0), indices + size, indices)
    return tf.gather(x, indices, axis=axis)


def _take_along_axis(x, indices, axis=None):
    x, axis = _flat_or(x, axis)
    indices = as_tensor(indices)
    axis = _positive(axis, _rank(x))
    x_last, i_last = _moveaxis(x, axis, -1), _moveaxis(indices, axis, -1)
    batch = [max(a, b) for a, b in zip(x_last.shape[:-1], i_last.shape[:-1])]
    x_last = tf.broadcast_to(x_last, batch + [x_last.shape[-1]])
    i_last = tf.broadcast_to(i_last, batch + [i_last.shape[-1]])
    size = tf.cast(tf.shape(x_last)[-1], i_last.dtype)
    i_last = tf.where(tf.less(i_last, 0), i_last + size, i_last)
    return _moveaxis(tf.gather(x_last, i_last, axis=-1, batch_dims=len(batch)), -1, axis)


def _nonzero(x):
    x = as_tensor(x)
    found = tf.where(tf.cast(x, "bool"))
    return tuple(tf.cast(found[:, i], "int32") for i in range(_rank(x)))


def _where(condition, x1=None, x2=None):
    if x1 is None and x2 is None:
        return _nonzero(condition)
    if x1 is None or x2 is None:
        raise ValueError("where: give both x1 and x2, or neither")
    condition = as_tensor(condition, "bool")
    x1, x2 = promote(x1, x2)
    shape = tf.broadcast_dynamic_shape(tf.broadcast_dynamic_shape(tf.shape(condition), tf.shape(x1)), tf.shape(x2))
    return tf.where(tf.broadcast_to(condition, shape), tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape))


def _select(condlist, choicelist, default=0):
    choices = promote(*choicelist, default)
    out = choices[-1]
    for condition, choice in reversed(list(zip(condlist, choices[:-1]))):
        out = _where(condition, choice, out)
    return out


def _searchsorted(sorted_sequence, values, side="left"):
    sequence, values = promote(sorted_sequence, values)
    if _rank(sequence) != 1:
        raise ValueError(f"searchsorted: sorted_sequence must be 1-D, got shape {sequence.shape}")
    flat = tf.reshape(values, [1, -1])
    found = tf.searchsorted(sequence[None, :], flat, side=side)
    return tf.reshape(found, tf.shape(values))


def _digitize(x, bins):
    return _searchsorted(bins, x, side="right")


def _diagonal(x, offset=0, axis1=0, axis2=1):
    x = as_tensor(x)
    rank = _rank(x)
    x = _moveaxis(x, [_positive(axis1, rank), _positive(axis2, rank)], [rank - 2, rank - 1])
    return tf.linalg.diag_part(x[..., max(0, -offset):, max(0, offset):])


def _diag_matrix(v, k):
    """The square matrix with v on diagonal k."""
    square = tf.linalg.diag(v)
    if k == 0:
        return square
    return tf.pad(square, [[0, k], [k, 0]] if k > 0 else [[-k, 0], [0, -k]])


def _diag(x, k=0):
    x = as_tensor(x)
    if _rank(x) == 1:
        return _diag_matrix(x, k)
    if _rank(x) == 2:
        return _diagonal(x, k)
    raise ValueError(f"diag: x must be 1-D or 2-D, got shape {x.shape}")


def _trace(x, offset=0, axis1=0, axis2=1):
    x = as_tensor(x)
    out = tf.reduce_sum(_diagonal(x, offset, axis1, axis2), axis=-1)
    return tf.cast(out, "int32") if out.dtype == tf.bool else out


def _matmul(x1, x2):
    x1, x2 = promote(x1, x2)
    if _rank(x1) == 1 and _rank(x2) == 1:
        return tf.reduce_sum(x1 * x2)
    if _rank(x1) == 1:
        return tf.squeeze(tf.matmul(x1[None, :], x2), -2)
    if _rank(x2) == 1:
        return tf.squeeze(tf.matmul(x1, x2[:, None]), -1)
    return tf.matmul(x1, x2)


def _dot(x1, x2):
    x1, x2 = promote(x1, x2)
    if _rank(x1) == 0 or _rank(x2) == 0:
        return x1 * x2
    if _rank(x2) == 1:
        return tf.tensordot(x1, x2, [[_rank(x1) - 1], [0]])
    return tf.tensordot(x1, x2, [[_rank(x1) - 1], [_rank(x2) - 2]])


def _tensordot(x1, x2, axes=2):
    x1, x2 = promote(x1, x2)
    return tf.tensordot(x1, x2, axes)


def _outer(x1, x2):
    x1, x2 = promote(x1, x2)
    return tf.reshape(x1, [-1, 1]) * tf.reshape(x2, [1, -1])


def _inner(x1, x2):
    x1, x2 = promote(x1, x2)
    if _rank(x1) == 0 or _rank(x2) == 0:
        return x1 * x2
    return tf.tensordot(x1, x2, [[_rank(x1) - 1], [_rank(x2) - 1]])


def _vdot(x1, x2):
    x1, x2 = promote(x1, x2)
    return tf.reduce_sum(tf.reshape(x1, [-1]) * tf.reshape(x2, [-1]))


def _kron(x1, x2):
    x1, x2 = promote(x1, x2)
    rank = max(_rank(x1), _rank(x2))
    x1 = tf.reshape(x1, [1] * (rank - _rank(x1)) + list(x1.shape))
    x2 = tf.reshape(x2, [1] * (rank - _rank(x2)) + list(x2.shape))
    a = tf.reshape(x1, [d for n in x1.shape for d in (n, 1)])
    b = tf.reshape(x2, [d for n in x2.shape for d in (1, n)])
    return tf.reshape(a * b, [m * n for m, n in zip(x1.shape, x2.shape)])


def _cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote(x1, x2)
    a, b = _moveaxis(a, axisa, -1), _moveaxis(b, axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise tf.errors.UnimplementedError(None, None, "keras.ops.cross: tapegrad crosses 3-vectors only")
    shape = tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(b))
    out = tf.linalg.cross(tf.broadcast_to(a, shape), tf.broadcast_to(b, shape))
    return _moveaxis(out, -1, axisc)


def _isin(x1, x2, assume_unique=False, invert=False):
    x1, x2 = promote(x1, x2)
    found = tf.reduce_any(tf.equal(x1[..., None], tf.reshape(x2, [-1])), axis=-1)
    return tf.logical_not(found) if invert else found


def _unravel_index(indices, shape):
    indices = as_tensor(indices)
    rows = tf.unravel_index(tf.reshape(indices, [-1]), tf.cast(list(shape), indices.dtype))
    return tuple(tf.reshape(rows[i], tf.shape(indices)) for i in range(len(shape)))


def _bincount(x, weights=None, minlength=0, sparse=False):
    if sparse:
        raise tf.errors.UnimplementedError(None, None, "keras.ops.bincount: sparse=True (tapegrad: dense only)")
    x = as_tensor(x)
    dtype = "int32" if weights is None else as_tensor(weights).dtype
    return tf.math.bincount(x, weights=weights, minlength=minlength, dtype=dtype, axis=-1 if _rank(x) == 2 else None)


def _corrcoef(x):
    x = to_float(x)
    x = x[None, :] if _rank(x) == 1 else x
    centred = x - tf.reduce_mean(x, axis=1, keepdims=True)
    cov = tf.matmul(centred, centred, transpose_b=True)
    scale = tf.sqrt(tf.linalg.diag_part(cov))
    out = tf.clip_by_value(cov / scale[:, None] / scale[None, :], -1.0, 1.0)
    return out[0, 0] if out.shape[0] == 1 else out


def _histogram(x, bins=10, range=None):  # noqa: A002 -- Keras's name
    x = as_tensor(x)
    if not isinstance(bins, int):
        raise tf.errors.UnimplementedError(None, None, "keras.ops.histogram: bins as edges (tapegrad: a count)")
    if _rank(x) != 1:
        raise ValueError(f"histogram: x must be 1-D, got shape {tuple(x.shape)}")
    low, high = (tf.reduce_min(x), tf.reduce_max(x)) if range is None else (range[0], range[1])
    floats = x.dtype if x.dtype.is_floating else tf.float32
    low, high = tf.cast(low, floats), tf.cast(high, floats)
    values = tf.cast(x, floats)
    inside = tf.logical_and(tf.greater_equal(values, low), tf.less_equal(values, high))
    counts = tf.histogram_fixed_width(tf.boolean_mask(values, inside), tf.stack([low, high]), nbins=bins)
    return tf.cast(counts, floats), tf.linspace(low, high, bins + 1)  # float counts, as Keras gives them


def _slogdet(x):
    sign, logabsdet = tf.linalg.slogdet(to_float(x))
    return sign, logabsdet


NUMPY_INDEX = {
    "sort": _sort, "argsort": _argsort, "take": _take, "take_along_axis": _take_along_axis, "where": _where,
    "nonzero": _nonzero, "select": _select, "searchsorted": _searchsorted, "digitize": _digitize,
    "diagonal": _diagonal, "diag": _diag, "diagflat": lambda x, k=0: _diag_matrix(tf.reshape(as_tensor(x), [-1]), k),
    "trace": _trace, "matmul": _matmul, "dot": _dot, "tensordot": _tensordot, "outer": _outer, "inner": _inner,
    "vdot": _vdot, "kron": _kron, "cross": _cross, "isin": _isin, "unravel_index": _unravel_index,
    "bincount": _bincount, "slogdet": _slogdet, "corrcoef": _corrcoef, "histogram": _histogram,
    "einsum": lambda subscripts, *operands, **kwargs: tf.einsum(subscripts, *promote(*operands)),
}
