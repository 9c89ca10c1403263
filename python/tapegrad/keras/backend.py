"""keras.backend: the global float type, epsilon and image layout, and the math helpers scripts call
from ``K`` (each a thin call of a public tapegrad op, as Keras's legacy tf.keras.backend).

    from tapegrad.keras import backend as K
    K.set_floatx("float64")   # layers now create float64 weights; fit casts float targets to it
"""
import numpy as np

import tapegrad as tf
from tapegrad import errors

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_FLOAT_TYPES = ("float16", "bfloat16", "float32", "float64")


# ---- global configuration
def backend():
    """The name of the engine whose API this is (scripts test ``K.backend() == "tensorflow"``)."""
    return "tensorflow"


def floatx():
    """The default float type of layers' weights and inputs, metrics and backend variables: 'float32'."""
    return _FLOATX


def set_floatx(value):
    """Sets the default float type ('float32' or 'float64'); layers created afterwards use it."""
    global _FLOATX
    value = str(getattr(value, "name", value))
    if value not in _FLOAT_TYPES:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {set(_FLOAT_TYPES)}")
    if value not in ("float32", "float64"):
        raise errors.UnimplementedError(f"set_floatx: tapegrad has no {value} tensors (float32 and float64 only)")
    _FLOATX = value


def epsilon():
    """The fuzz factor used in numeric expressions (1e-7)."""
    return _EPSILON


def set_epsilon(value):
    global _EPSILON
    _EPSILON = value


def image_data_format():
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format):
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    _IMAGE_DATA_FORMAT = data_format


def clear_session(free_memory=True):
    """Resets Keras's global state: layer names start again from ``dense``, ``dense_1``, ..."""
    from tapegrad.keras.layers import base
    base._NAME_COUNTS.clear()
    _UIDS.clear()


def cast_to_floatx(x):
    if isinstance(x, (tf.Tensor, tf.Variable)):
        return tf.cast(x, _FLOATX)
    return np.asarray(x, dtype=_FLOATX)


# ---- variables and values
def _float_default(dtype):
    return tf.as_dtype(dtype or _FLOATX)


def variable(value, dtype=None, name=None, constraint=None):
    return tf.Variable(value, dtype=_float_default(dtype), name=name, constraint=constraint)


def constant(value, dtype=None, shape=None, name=None):
    return tf.constant(value, dtype=_float_default(dtype), shape=shape)


def zeros(shape, dtype=None, name=None):
    """A Variable of zeros (Keras's legacy backend returns variables here)."""
    return tf.Variable(tf.zeros(shape, _float_default(dtype)), name=name)


def ones(shape, dtype=None, name=None):
    return tf.Variable(tf.ones(shape, _float_default(dtype)), name=name)


def eye(size, dtype=None, name=None):
    return tf.Variable(tf.eye(size, dtype=_float_default(dtype)), name=name)


def zeros_like(x, dtype=None, name=None):
    return tf.zeros_like(x, dtype=dtype)


def ones_like(x, dtype=None, name=None):
    return tf.ones_like(x, dtype=dtype)


def get_value(x):
    return x.numpy() if isinstance(x, tf.Tensor) else np.asarray(x)


def eval(x):  # noqa: A001 -- Keras's name
    return get_value(x)


def batch_get_value(tensors):
    return [get_value(x) for x in tensors]


def set_value(x, value):
    x.assign(np.asarray(value, dtype=x.dtype.as_numpy_dtype))


def batch_set_value(tuples):
    for x, value in tuples:
        set_value(x, value)


def update(x, new_x):
    return x.assign(new_x)


def update_add(x, increment):
    return x.assign_add(increment)


def update_sub(x, decrement):
    return x.assign_sub(decrement)


def count_params(x):
    return int(np.prod(x.shape.as_list()))


_UIDS = {}


def get_uid(prefix=""):
    """1, 2, 3, ... for each prefix (clear_session restarts them)."""
    _UIDS[prefix] = _UIDS.get(prefix, 0) + 1
    return _UIDS[prefix]


from tapegrad.keras._backend_math import *  # noqa: E402,F401,F403  (the K.* math helpers)
