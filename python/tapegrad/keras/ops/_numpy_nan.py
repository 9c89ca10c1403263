"""keras.ops.numpy's NaN-ignoring variance, deviation, cumulative and arg ops over tapegrad's ops (the
NaN-ignoring sums, products, extrema and means are with the other reductions in _numpy_math.py)."""
import numpy as np

import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, to_float
from tapegrad.keras.ops._numpy_math import NUMPY_MATH


def _axes(axis):
    return list(axis) if isinstance(axis, (list, tuple)) else axis


def _nanvar(x, axis=None, keepdims=False):
    x = to_float(x)
    nan = tf.math.is_nan(x)
    mean = NUMPY_MATH["nanmean"](x, axis=axis, keepdims=True)
    squares = tf.where(nan, tf.zeros_like(x), tf.square(x - mean))
    count = tf.reduce_sum(tf.cast(tf.logical_not(nan), x.dtype), axis=_axes(axis), keepdims=keepdims)
    return tf.reduce_sum(squares, axis=_axes(axis), keepdims=keepdims) / count


def _nanstd(x, axis=None, keepdims=False):
    return tf.sqrt(_nanvar(x, axis, keepdims))


def _nan_cumulative(name, fill):
    def op(x, axis=None, dtype=None):
        x = as_tensor(x)
        if x.dtype.is_floating:
            x = tf.where(tf.math.is_nan(x), tf.fill(tf.shape(x), tf.constant(fill, x.dtype)), x)
        return NUMPY_MATH[name](x, axis=axis, dtype=dtype)
    return op


def _nan_arg(name, fill):
    def op(x, axis=None, keepdims=False):
        x = as_tensor(x)
        if x.dtype.is_floating:
            x = tf.where(tf.math.is_nan(x), tf.fill(tf.shape(x), tf.constant(fill, x.dtype)), x)
        return NUMPY_MATH[name](x, axis=axis, keepdims=keepdims)
    return op


NUMPY_NAN = {
    "nanvar": _nanvar, "nanstd": _nanstd,
    "nancumsum": _nan_cumulative("cumsum", 0), "nancumprod": _nan_cumulative("cumprod", 1),
    "nanargmax": _nan_arg("argmax", -np.inf), "nanargmin": _nan_arg("argmin", np.inf),
}
