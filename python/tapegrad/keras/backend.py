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


# ---- shapes and types
def shape(x):
    return tf.shape(x)


def int_shape(x):
    return tuple(tf.convert_to_tensor(x).shape)


def ndim(x):
    return tf.convert_to_tensor(x).ndim


def dtype(x):
    return tf.convert_to_tensor(x).dtype.name


def cast(x, dtype):
    return tf.cast(x, dtype)


def reshape(x, shape):
    return tf.reshape(x, shape)


def concatenate(tensors, axis=-1):
    return tf.concat(tensors, axis)


def stack(x, axis=0):
    return tf.stack(x, axis)


def expand_dims(x, axis=-1):
    return tf.expand_dims(x, axis)


def squeeze(x, axis):
    return tf.squeeze(x, axis)


def flatten(x):
    return tf.reshape(x, [-1])


def batch_flatten(x):
    return tf.reshape(x, [tf.convert_to_tensor(x).shape[0], -1])


def transpose(x):
    return tf.transpose(x)


def permute_dimensions(x, pattern):
    return tf.transpose(x, perm=pattern)


def tile(x, n):
    return tf.tile(x, [n] if isinstance(n, int) else n)


def gather(reference, indices):
    return tf.gather(reference, indices)


def one_hot(indices, num_classes):
    return tf.one_hot(indices, depth=num_classes)


# ---- math
def _reduction(op):
    def reduce(x, axis=None, keepdims=False):
        return op(x, axis=axis, keepdims=keepdims)
    reduce.__name__ = op.__name__.replace("reduce_", "")
    reduce.__doc__ = f"``tf.{op.__name__}`` with Keras's argument names."
    return reduce


mean = _reduction(tf.reduce_mean)
sum = _reduction(tf.reduce_sum)  # noqa: A001
max = _reduction(tf.reduce_max)  # noqa: A001
min = _reduction(tf.reduce_min)  # noqa: A001
prod = _reduction(tf.reduce_prod)
std = _reduction(tf.math.reduce_std)
var = _reduction(tf.math.reduce_variance)
any = _reduction(tf.reduce_any)  # noqa: A001
all = _reduction(tf.reduce_all)  # noqa: A001


def argmax(x, axis=-1):
    return tf.argmax(x, axis)


def argmin(x, axis=-1):
    return tf.argmin(x, axis)


def cumsum(x, axis=0):
    return tf.cumsum(x, axis=axis)


square, sqrt, abs, exp, log = tf.square, tf.sqrt, tf.abs, tf.exp, tf.math.log  # noqa: A001
sign, round, sin, cos, tanh = tf.sign, tf.round, tf.sin, tf.cos, tf.tanh  # noqa: A001
sigmoid, softplus, stop_gradient = tf.sigmoid, tf.nn.softplus, tf.stop_gradient
maximum, minimum, equal, not_equal = tf.maximum, tf.minimum, tf.equal, tf.not_equal
greater, greater_equal, less, less_equal = tf.greater, tf.greater_equal, tf.less, tf.less_equal


def pow(x, a):  # noqa: A001
    return tf.pow(x, a)


def clip(x, min_value, max_value):
    return tf.clip_by_value(x, min_value, max_value)


def dot(x, y):
    """Matrix product over the last axis of x and the second-to-last of y (tensordot for rank > 2)."""
    x, y = tf.convert_to_tensor(x), tf.convert_to_tensor(y)
    if x.ndim <= 2 and y.ndim <= 2:
        return tf.matmul(x, y)
    return tf.tensordot(x, y, [[x.ndim - 1], [y.ndim - 2 if y.ndim > 1 else 0]])


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    if alpha or threshold or max_value is not None:
        x = tf.convert_to_tensor(x)
        out = tf.where(x > threshold, x, alpha * (x - threshold))
        return out if max_value is None else tf.minimum(out, max_value)
    return tf.nn.relu(x)


def elu(x, alpha=1.0):
    return tf.nn.elu(x) if alpha == 1.0 else tf.where(x > 0, x, alpha * tf.math.expm1(x))


def softmax(x, axis=-1):
    return tf.nn.softmax(x, axis=axis)


# ---- losses (elementwise / per instance, as Keras's legacy backend)
def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy: -(t log p + (1 - t) log(1 - p)), p clipped to [eps, 1 - eps]."""
    target = tf.convert_to_tensor(target)
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    p = tf.clip_by_value(output, _EPSILON, 1.0 - _EPSILON)
    return -(target * tf.math.log(p + _EPSILON) + (1.0 - target) * tf.math.log(1.0 - p + _EPSILON))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """-sum(t log p) over ``axis`` with p the output normalized to sum to 1 and clipped to [eps, 1 - eps]."""
    target = tf.convert_to_tensor(target)
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    p = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    p = tf.clip_by_value(p, _EPSILON, 1.0 - _EPSILON)
    return -tf.reduce_sum(target * tf.math.log(p), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = tf.convert_to_tensor(output)
    depth = output.shape[axis]
    return categorical_crossentropy(tf.one_hot(tf.cast(target, tf.int32), depth, dtype=output.dtype), output,
                                    from_logits=from_logits, axis=axis)


# ---- random
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return tf.random.normal(shape, mean, stddev, dtype=_float_default(dtype), seed=seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return tf.random.uniform(shape, minval, maxval, dtype=_float_default(dtype), seed=seed)
