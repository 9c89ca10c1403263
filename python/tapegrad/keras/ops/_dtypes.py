"""Keras 3's dtype rules for keras.ops: how arguments become tensors and which dtype a result takes.

Keras promotes as JAX does: Python scalars are "weak" (an int keeps an int tensor's dtype, a float
turns an int or bool tensor into floatx), bool < int < float, and int64 with float32 gives float32.
tapegrad has bool, int32, int64, float32 and float64 tensors; NumPy's narrower dtypes widen to these
when they are converted, so int8 + uint8 is int32 here where Keras gives int16."""
import numpy as np

import tapegrad as tf
from tapegrad.keras import backend

_RANK = {"bool": 0, "int32": 1, "int64": 2, "float32": 3, "float64": 4}
_WEAK = {bool: "bool", int: "int", float: "float"}


def dtype_name(dtype):
    """The tapegrad dtype name ("float32", ...) of a dtype, NumPy dtype or name; None stays None."""
    if dtype is None:
        return None
    return tf.as_dtype(getattr(dtype, "name", dtype) if not isinstance(dtype, np.dtype) else dtype.name).name


def _strong_dtype(value):
    """The dtype name a value converts to, or None for a Python scalar (weak)."""
    if type(value) in _WEAK:
        return None
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return tf.as_dtype(dtype).name if not isinstance(dtype, np.dtype) else as_tensor(value).dtype.name
    return as_tensor(value).dtype.name


def result_type(*values):
    """The dtype name Keras gives an op of ``values`` (tensors, arrays, Python scalars)."""
    strong = [d for d in (_strong_dtype(v) for v in values if v is not None) if d is not None]
    weak = {_WEAK[type(v)] for v in values if type(v) in _WEAK}
    if not strong:
        return backend.floatx() if "float" in weak else "int32" if "int" in weak else "bool"
    floats = [d for d in strong if d.startswith("float")]
    ints = [d for d in strong if d.startswith("int")]
    if floats:
        return max(floats, key=_RANK.get)
    if "float" in weak:
        return backend.floatx()
    if ints:
        return max(ints, key=_RANK.get)
    return "int32" if "int" in weak else "bool"


def float_type(*values):
    """result_type, with a bool or int result made floatx (ops such as sqrt and mean)."""
    dtype = result_type(*values)
    return dtype if dtype.startswith("float") else backend.floatx()


def as_tensor(value, dtype=None):
    """A tensor of ``value`` as Keras converts it: Python floats to floatx, Python ints to int32."""
    if isinstance(value, tf.Variable):
        value = value.value()
    if tf.is_tensor(value):
        return value if dtype is None or value.dtype.name == dtype_name(dtype) else tf.cast(value, dtype_name(dtype))
    if dtype is not None:
        return tf.cast(tf.convert_to_tensor(value), dtype_name(dtype))
    array = np.asarray(value)
    if array.dtype.kind == "f" and not isinstance(value, np.ndarray) and not isinstance(value, np.generic):
        return tf.constant(array.astype(backend.floatx()))
    if array.dtype.kind in "iu" and not isinstance(value, (np.ndarray, np.generic)):
        fits = array.size == 0 or (array.min() >= -2 ** 31 and array.max() < 2 ** 31)
        return tf.constant(array.astype("int32" if fits else "int64"))
    return tf.convert_to_tensor(array)


def promote(*values):
    """The values as tensors of their common Keras dtype (None stays None)."""
    dtype = result_type(*values)
    return [None if v is None else as_tensor(v, dtype) for v in values]


def promote_float(*values):
    """The values as tensors of their common dtype made floating (divide, arctan2, ...)."""
    dtype = float_type(*values)
    return [as_tensor(v, dtype) for v in values]


def float_type_wide(*values):
    """float_type, but an int64 result becomes float64 (Keras's rule for cbrt, deg2rad, hypot, ...)."""
    dtype = result_type(*values)
    return "float64" if dtype == "int64" else dtype if dtype.startswith("float") else backend.floatx()


def to_float(x):
    """x as a tensor, bool and int values made floatx."""
    return as_tensor(x, float_type(x))
