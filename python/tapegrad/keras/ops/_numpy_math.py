"""keras.ops.numpy's elementwise and reduction ops as one table over tapegrad's ops, with Keras's dtype rules
(_dtypes.py) and argument names."""
import functools
import math

import numpy as np

import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, float_type_wide, promote, promote_float, to_float


def _unary_float(fn):
    return lambda x: fn(to_float(x))


def _unary(fn):
    return lambda x: fn(as_tensor(x))


def _binary(fn):
    return lambda x1, x2: fn(*promote(x1, x2))


def _unary_wide(fn):
    return lambda x: fn(as_tensor(x, float_type_wide(x)))


def _binary_wide(fn):
    def op(x1, x2):
        dtype = float_type_wide(x1, x2)
        return fn(as_tensor(x1, dtype), as_tensor(x2, dtype))
    return op


def _bool_as_int(fn, back_to_bool=True):
    """fn on a bool tensor counted as int32 (its result made bool again if ``back_to_bool``)."""
    @functools.wraps(fn)
    def op(x, *args, **kwargs):
        x = as_tensor(x)
        if x.dtype != tf.bool:
            return fn(x, *args, **kwargs)
        out = fn(tf.cast(x, "int32"), *args, **kwargs)
        return tf.cast(out, "bool") if back_to_bool else out
    return op


def _binary_float(fn):
    return lambda x1, x2: fn(*promote_float(x1, x2))


def _log_base(base):
    return lambda x: tf.math.log(x) / tf.constant(math.log(base), x.dtype)


def _cbrt(x):
    return tf.sign(x) * tf.pow(tf.abs(x), tf.constant(1.0 / 3.0, x.dtype))


def _sinc(x):
    pix = tf.constant(math.pi, x.dtype) * x
    safe = tf.where(tf.equal(x, 0), tf.ones_like(x), pix)
    return tf.where(tf.equal(x, 0), tf.ones_like(x), tf.sin(safe) / safe)


def _round(x, decimals=0):
    x = as_tensor(x)
    if not _is_float(x) and decimals >= 0:
        return x
    if decimals == 0:
        return tf.round(x)
    if not x.dtype.is_floating:
        raise tf.errors.UnimplementedError(None, None, "keras.ops.round: decimals on integer tensors")
    scale = tf.constant(10.0 ** decimals, x.dtype)
    return tf.round(x * scale) / scale


def _is_float(x):
    return x.dtype.is_floating


def _isnan(x):
    x = as_tensor(x)
    return tf.math.is_nan(x) if _is_float(x) else tf.zeros_like(x, dtype="bool")


def _isinf(x):
    x = as_tensor(x)
    return tf.math.is_inf(x) if _is_float(x) else tf.zeros_like(x, dtype="bool")


def _isfinite(x):
    x = as_tensor(x)
    return tf.math.is_finite(x) if _is_float(x) else tf.ones_like(x, dtype="bool")


def _signed_inf(sign):
    def test(x):
        x = as_tensor(x)
        return tf.equal(x, tf.constant(sign * np.inf, x.dtype)) if _is_float(x) else tf.zeros_like(x, dtype="bool")
    return test


def _signbit(x):
    x = as_tensor(x)
    if not _is_float(x):
        return tf.less(x, 0)
    return tf.less(tf.math.atan2(x, tf.constant(-1.0, x.dtype)), 0)  # -0.0 and -x: angle < 0


def _angle(x):
    x = to_float(x)
    return tf.math.atan2(tf.zeros_like(x), x)


def _logical(fn):
    return lambda x1, x2: fn(as_tensor(x1, "bool"), as_tensor(x2, "bool"))


def _nan_pick(pick):  # fmax/fmin: the other argument where one is NaN
    def op(x1, x2):
        x1, x2 = promote(x1, x2)
        out = pick(x1, x2)
        if not _is_float(out):
            return out
        return tf.where(tf.math.is_nan(x1), x2, tf.where(tf.math.is_nan(x2), x1, out))
    return op


def _logaddexp(x1, x2):
    x1, x2 = promote_float(x1, x2)
    big = tf.maximum(x1, x2)
    finite = tf.where(tf.math.is_inf(big), tf.zeros_like(big), big)
    return finite + tf.math.log(tf.exp(x1 - finite) + tf.exp(x2 - finite))


def _logaddexp2(x1, x2):
    x1, x2 = promote_float(x1, x2)
    ln2 = tf.constant(math.log(2.0), x1.dtype)
    return _logaddexp(x1 * ln2, x2 * ln2) / ln2


def _heaviside(x1, x2):
    dtype = float_type_wide(x1, x2)
    x1, x2 = as_tensor(x1, dtype), as_tensor(x2, dtype)
    return tf.where(tf.less(x1, 0), tf.zeros_like(x1), tf.where(tf.greater(x1, 0), tf.ones_like(x1), x2 + 0 * x1))


def _ldexp(x1, x2):
    x1 = to_float(x1)
    return x1 * tf.pow(tf.constant(2.0, x1.dtype), tf.cast(as_tensor(x2), x1.dtype))


def _isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    x1, x2 = promote(x1, x2)
    close = tf.less_equal(tf.abs(x1 - x2), tf.cast(atol, x1.dtype) + tf.cast(rtol, x1.dtype) * tf.abs(x2))
    if _is_float(x1):
        close = tf.logical_or(close, tf.equal(x1, x2))  # equal infinities
        if equal_nan:
            close = tf.logical_or(close, tf.logical_and(tf.math.is_nan(x1), tf.math.is_nan(x2)))
    return close


def _allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    return tf.reduce_all(_isclose(x1, x2, rtol, atol, equal_nan))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    x = as_tensor(x)
    if not _is_float(x):
        return x
    info = np.finfo(x.dtype.name)
    x = tf.where(tf.math.is_nan(x), tf.fill(tf.shape(x), tf.constant(nan, x.dtype)), x)
    top = tf.constant(info.max if posinf is None else posinf, x.dtype)
    bottom = tf.constant(info.min if neginf is None else neginf, x.dtype)
    x = tf.where(tf.equal(x, tf.constant(np.inf, x.dtype)), tf.fill(tf.shape(x), top), x)
    return tf.where(tf.equal(x, tf.constant(-np.inf, x.dtype)), tf.fill(tf.shape(x), bottom), x)


def _clip(x, x_min, x_max):
    x = as_tensor(x)
    if x.dtype == tf.bool:
        x = tf.cast(x, "int32")
    x, lo, hi = promote(x, x_min, x_max)
    return tf.minimum(tf.maximum(x, lo), hi)


def _axis(axis):
    return list(axis) if isinstance(axis, (list, tuple)) else axis


def _reduction(fn, make=as_tensor):
    return lambda x, axis=None, keepdims=False: fn(make(x), axis=_axis(axis), keepdims=keepdims)


def _sum_type(x):
    x = as_tensor(x)
    return tf.cast(x, "int32") if x.dtype == tf.bool else x


def _extremum(fn, pick):
    def op(x, axis=None, keepdims=False, initial=None):
        out = fn(as_tensor(x), axis=_axis(axis), keepdims=keepdims)
        return out if initial is None else pick(out, tf.cast(initial, out.dtype))
    return op


def _arg_extremum(fn):
    def op(x, axis=None, keepdims=False):
        x = as_tensor(x)
        if axis is None:
            out = fn(tf.reshape(x, [-1]), axis=0, output_type="int32")
            return tf.reshape(out, [1] * len(x.shape)) if keepdims else out
        out = fn(x, axis=axis, output_type="int32")
        return tf.expand_dims(out, axis) if keepdims else out
    return op


def _count_nonzero(x, axis=None):
    x = as_tensor(x)
    return tf.reduce_sum(tf.cast(tf.not_equal(x, tf.zeros_like(x)), "int32"), axis=_axis(axis))


def _ptp(x, axis=None, keepdims=False):
    x = as_tensor(x)
    return tf.reduce_max(x, _axis(axis), keepdims) - tf.reduce_min(x, _axis(axis), keepdims)


def _average(x, axis=None, weights=None):
    if weights is None:
        return tf.reduce_mean(to_float(x), axis=axis)
    x, weights = promote_float(x, weights)
    if axis is not None and len(weights.shape) == 1 and len(x.shape) > 1:
        shape = [1] * len(x.shape)
        shape[axis] = -1
        weights = tf.reshape(weights, shape)
    weights = weights + tf.zeros_like(x)
    return tf.reduce_sum(x * weights, axis=axis) / tf.reduce_sum(weights, axis=axis)


def _nan_reduction(fn, fill):
    def op(x, axis=None, keepdims=False):
        x = as_tensor(x)
        if not _is_float(x):
            return fn(x, axis=_axis(axis), keepdims=keepdims)
        return fn(tf.where(tf.math.is_nan(x), tf.fill(tf.shape(x), tf.constant(fill, x.dtype)), x),
                  axis=_axis(axis), keepdims=keepdims)
    return op


def _nan_extremum(fn, fill):
    reduce = _nan_reduction(fn, fill)

    def op(x, axis=None, keepdims=False):
        x = as_tensor(x)
        out = reduce(x, axis, keepdims)
        if not _is_float(x):
            return out
        all_nan = tf.reduce_all(tf.math.is_nan(x), axis=_axis(axis), keepdims=keepdims)
        return tf.where(all_nan, tf.fill(tf.shape(out), tf.constant(np.nan, out.dtype)), out)
    return op


def _nanmean(x, axis=None, keepdims=False):
    x = to_float(x)
    kept = tf.cast(tf.logical_not(tf.math.is_nan(x)), x.dtype)
    total = tf.reduce_sum(tf.where(tf.math.is_nan(x), tf.zeros_like(x), x), axis=_axis(axis), keepdims=keepdims)
    return total / tf.reduce_sum(kept, axis=_axis(axis), keepdims=keepdims)


def _cumulative(fn):
    def op(x, axis=None, dtype=None):
        x = _sum_type(x) if dtype is None else as_tensor(x, dtype)
        if axis is None:
            return fn(tf.reshape(x, [-1]), axis=0)
        return fn(x, axis=axis)
    return op


NUMPY_MATH = {
    **{name: _unary_float(fn) for name, fn in {
        "arccos": tf.math.acos, "arccosh": tf.math.acosh, "arcsin": tf.math.asin, "arcsinh": tf.math.asinh,
        "arctan": tf.math.atan, "arctanh": tf.math.atanh, "cos": tf.cos, "cosh": tf.cosh, "sin": tf.sin,
        "sinh": tf.sinh, "tan": tf.tan, "tanh": tf.tanh, "exp": tf.exp, "expm1": tf.math.expm1, "log": tf.math.log,
        "log1p": tf.math.log1p, "log2": _log_base(2), "log10": _log_base(10), "sqrt": tf.sqrt,
        "exp2": lambda x: tf.pow(tf.constant(2.0, x.dtype), x), "floor": tf.floor, "ceil": tf.math.ceil,
        "sinc": _sinc, "reciprocal": tf.math.reciprocal}.items()},
    **{name: _unary_wide(fn) for name, fn in {
        "cbrt": _cbrt, "deg2rad": lambda x: x * tf.constant(math.pi / 180, x.dtype),
        "rad2deg": lambda x: x * tf.constant(180 / math.pi, x.dtype)}.items()},
    **{name: _unary(fn) for name, fn in {
        "abs": _bool_as_int(tf.abs), "absolute": _bool_as_int(tf.abs), "negative": tf.negative,
        "square": lambda x: tf.square(tf.cast(x, "int32") if x.dtype == tf.bool else x), "sign": tf.sign,
        "trunc": lambda x: tf.cast(tf.cast(x, "int64"), x.dtype) if _is_float(x) else x,
        "logical_not": lambda x: tf.logical_not(tf.cast(x, "bool")), "copy": tf.identity,
        "conj": tf.identity, "conjugate": tf.identity, "real": tf.identity, "imag": tf.zeros_like,
        "isreal": lambda x: tf.ones_like(x, dtype="bool")}.items()},
    "fabs": lambda x: tf.abs(to_float(x)), "angle": _angle, "round": _round, "isnan": _isnan, "isinf": _isinf,
    "isfinite": _isfinite, "isposinf": _signed_inf(1), "isneginf": _signed_inf(-1), "signbit": _signbit,
    **{name: _binary(fn) for name, fn in {
        "add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "maximum": tf.maximum,
        "minimum": tf.minimum, "power": tf.pow, "mod": tf.math.floormod, "floor_divide": tf.math.floordiv,
        "fmod": tf.truncatemod, "equal": tf.equal, "not_equal": tf.not_equal, "greater": tf.greater,
        "greater_equal": tf.greater_equal, "less": tf.less, "less_equal": tf.less_equal}.items()},
    **{name: _binary_float(fn) for name, fn in {
        "divide": tf.math.truediv, "true_divide": tf.math.truediv, "arctan2": tf.math.atan2,
        "divide_no_nan": tf.math.divide_no_nan, "nextafter": tf.math.nextafter}.items()},
    "hypot": _binary_wide(lambda a, b: tf.sqrt(a * a + b * b)),
    **{name: _logical(fn) for name, fn in {
        "logical_and": tf.logical_and, "logical_or": tf.logical_or, "logical_xor": tf.math.logical_xor}.items()},
    "fmax": _nan_pick(tf.maximum), "fmin": _nan_pick(tf.minimum), "logaddexp": _logaddexp,
    "logaddexp2": _logaddexp2,
    "heaviside": _heaviside, "ldexp": _ldexp, "isclose": _isclose, "allclose": _allclose,
    "nan_to_num": _nan_to_num, "clip": _clip,
    "sum": _reduction(tf.reduce_sum, _sum_type), "mean": _reduction(tf.reduce_mean, to_float),
    "var": _reduction(tf.math.reduce_variance, to_float), "std": _reduction(tf.math.reduce_std, to_float),
    "all": _reduction(tf.reduce_all, lambda x: as_tensor(x, "bool")),
    "any": _reduction(tf.reduce_any, lambda x: as_tensor(x, "bool")),
    "max": _bool_as_int(_extremum(tf.reduce_max, tf.maximum)),
    "min": _bool_as_int(_extremum(tf.reduce_min, tf.minimum)),
    "amax": _bool_as_int(_reduction(tf.reduce_max)), "amin": _bool_as_int(_reduction(tf.reduce_min)),
    "argmax": _bool_as_int(_arg_extremum(tf.argmax), False),
    "argmin": _bool_as_int(_arg_extremum(tf.argmin), False),
    "count_nonzero": _count_nonzero, "ptp": _ptp, "average": _average,
    "nansum": _nan_reduction(tf.reduce_sum, 0), "nanprod": _nan_reduction(tf.reduce_prod, 1),
    "nanmax": _bool_as_int(_nan_extremum(tf.reduce_max, -np.inf)),
    "nanmin": _bool_as_int(_nan_extremum(tf.reduce_min, np.inf)),
    "nanmean": _nanmean,
    "cumsum": _cumulative(tf.cumsum), "cumprod": _cumulative(tf.math.cumprod),
}


def _prod(x, axis=None, keepdims=False, dtype=None):
    x = _sum_type(x) if dtype is None else as_tensor(x, dtype)
    return tf.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)


def _logsumexp(x, axis=None, keepdims=False):
    return tf.reduce_logsumexp(to_float(x), axis=_axis(axis), keepdims=keepdims)


NUMPY_MATH.update(prod=_prod, logsumexp=_logsumexp)
