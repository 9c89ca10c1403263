"""keras.ops.numpy's quantiles (quantile, percentile, median and their NaN-ignoring forms) with NumPy's
"linear" method: sort along the reduced axes, then interpolate between the two neighbouring order statistics."""
import numpy as np

import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, to_float
from tapegrad.keras.ops._numpy_shape import _moveaxis, _positive, _rank


def _quantiles(x, q, axis, keepdims, skip_nan):
    x = to_float(x)
    q = tf.cast(as_tensor(q), x.dtype)
    rank = _rank(x)
    axes = list(range(rank)) if axis is None else [
        _positive(a, rank) for a in (axis if isinstance(axis, (list, tuple)) else [axis])]
    rest = [a for a in range(rank) if a not in axes]
    rows = tf.reshape(tf.transpose(x, rest + axes), [x.shape[a] for a in rest] + [-1])  # [rest..., N]
    nan = tf.math.is_nan(rows)
    if skip_nan:  # NaNs sort last (as +inf) and do not count
        rows = tf.where(nan, tf.fill(tf.shape(rows), tf.constant(np.inf, x.dtype)), rows)
        count = tf.reduce_sum(tf.cast(tf.logical_not(nan), x.dtype), axis=-1, keepdims=True)  # [rest..., 1]
    else:
        count = tf.fill(tf.concat([tf.shape(rows)[:-1], [1]], 0), tf.cast(tf.shape(rows)[-1], x.dtype))
    ordered = tf.sort(rows, axis=-1)
    flat_q = tf.reshape(q, [-1])
    position = tf.maximum(count - 1, 0) * flat_q  # [rest..., Q]
    low = tf.cast(tf.floor(position), "int32")
    high = tf.minimum(low + 1, tf.cast(tf.maximum(count - 1, 0), "int32"))
    frac = position - tf.cast(low, x.dtype)
    batch = _rank(ordered) - 1
    below = tf.gather(ordered, low, axis=-1, batch_dims=batch)
    above = tf.gather(ordered, high, axis=-1, batch_dims=batch)
    out = below + (above - below) * frac
    # NaN where a row has no values left (nan* forms) or holds a NaN (the others), as in NumPy
    undefined = tf.equal(count, 0) if skip_nan else tf.reduce_any(nan, axis=-1, keepdims=True)
    out = tf.where(tf.broadcast_to(undefined, tf.shape(out)), tf.fill(tf.shape(out), tf.constant(np.nan, x.dtype)), out)
    out = tf.reshape(out, [x.shape[a] for a in rest] + list(q.shape))
    out = _moveaxis(out, list(range(len(rest), _rank(out))), list(range(_rank(out) - len(rest))))  # q's axes first
    if keepdims:
        for a in axes:
            out = tf.expand_dims(out, a + _rank(q))
    return out


def _quantile_op(scale, name, skip_nan):
    def op(x, q, axis=None, method="linear", keepdims=False):
        if method != "linear":
            raise tf.errors.UnimplementedError(None, None, f"keras.ops.{name}: method {method!r} (tapegrad: linear)")
        return _quantiles(x, tf.cast(as_tensor(q), "float64") / scale, axis, keepdims, skip_nan)
    return op


def _median_op(skip_nan):
    def op(x, axis=None, keepdims=False):
        return _quantiles(x, 0.5, axis, keepdims, skip_nan)
    return op


NUMPY_QUANTILE = {
    "quantile": _quantile_op(1.0, "quantile", False), "percentile": _quantile_op(100.0, "percentile", False),
    "nanquantile": _quantile_op(1.0, "nanquantile", True), "nanpercentile": _quantile_op(100.0, "nanpercentile", True),
    "median": _median_op(False), "nanmedian": _median_op(True),
}
