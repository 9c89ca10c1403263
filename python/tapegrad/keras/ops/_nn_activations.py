"""keras.ops.nn's activation functions over tapegrad's ops (int and bool inputs become floatx, as in Keras)."""
import tapegrad as tf
from tapegrad.keras.ops._dtypes import as_tensor, to_float


def _floats(fn):
    return lambda x: fn(to_float(x))


def _scalar(x, value):
    return tf.constant(value, x.dtype)


def _softmax_like(fn, logs):
    def op(x, axis=-1):
        x = to_float(x)
        if isinstance(axis, (list, tuple)):
            shifted = x - tf.reduce_logsumexp(x, axis=list(axis), keepdims=True)
            return shifted if logs else tf.exp(shifted)
        return fn(x, axis=axis)
    return op


def _elu(x, alpha=1.0):
    x = to_float(x)
    return tf.where(tf.greater(x, 0), x, _scalar(x, alpha) * tf.math.expm1(x))


def _celu(x, alpha=1.0):
    x = to_float(x)
    alpha = _scalar(x, alpha)
    return tf.maximum(x, 0) + tf.minimum(_scalar(x, 0), alpha * tf.math.expm1(x / alpha))


def _leaky_relu(x, negative_slope=0.2):
    return tf.nn.leaky_relu(to_float(x), alpha=negative_slope)


def _gelu(x, approximate=True):
    return tf.nn.gelu(to_float(x), approximate=approximate)


def _hard_sigmoid(x):
    return tf.nn.relu6(x + _scalar(x, 3.0)) / _scalar(x, 6.0)


def _glu(x, axis=-1):
    a, b = tf.split(to_float(x), 2, axis=axis)
    return a * tf.sigmoid(b)


def _hard_shrink(x, threshold=0.5):
    x = to_float(x)
    return tf.where(tf.greater(tf.abs(x), threshold), x, tf.zeros_like(x))


def _soft_shrink(x, threshold=0.5):
    x = to_float(x)
    t = _scalar(x, threshold)
    return tf.where(tf.greater(x, t), x - t, tf.where(tf.less(x, -t), x + t, tf.zeros_like(x)))


def _threshold(x, threshold, default_value):
    x = to_float(x)
    return tf.where(tf.greater(x, threshold), x, tf.fill(tf.shape(x), _scalar(x, default_value)))


def _squareplus(x, b=4):
    x = to_float(x)
    return (x + tf.sqrt(tf.square(x) + _scalar(x, b))) / 2


def _sparse_plus(x):
    return tf.where(tf.less_equal(x, -1), tf.zeros_like(x), tf.where(tf.greater_equal(x, 1), x, tf.square(x + 1) / 4))


def _sparse_sigmoid(x):
    return tf.where(tf.less_equal(x, -1), tf.zeros_like(x),
                    tf.where(tf.greater_equal(x, 1), tf.ones_like(x), (x + 1) / 2))


def _sparsemax(x, axis=-1):
    x = to_float(x)
    last = _to_last(x, axis)
    z = tf.sort(last, axis=-1, direction="DESCENDING")
    k = tf.cast(tf.range(1, z.shape[-1] + 1), x.dtype)
    cumulative = tf.cumsum(z, axis=-1)
    support = tf.cast(tf.greater(1 + k * z, cumulative), x.dtype)
    count = tf.reduce_sum(support, axis=-1, keepdims=True)
    tau = (tf.reduce_sum(z * support, axis=-1, keepdims=True) - 1) / count
    return _from_last(tf.maximum(last - tau, 0), axis)


def _order(rank, axis):
    axis = axis % rank
    return [a for a in range(rank) if a != axis] + [axis]


def _to_last(x, axis):
    return tf.transpose(x, _order(len(x.shape), axis))


def _from_last(x, axis):
    order = _order(len(x.shape), axis)
    return tf.transpose(x, [order.index(a) for a in range(len(order))])


NN_ACTIVATIONS = {
    **{name: _floats(fn) for name, fn in {
        "sigmoid": tf.sigmoid, "softplus": tf.nn.softplus,
        "softsign": tf.nn.softsign, "silu": tf.nn.silu, "swish": tf.nn.silu, "log_sigmoid": tf.math.log_sigmoid,
        "selu": tf.nn.selu, "hard_sigmoid": _hard_sigmoid, "hard_silu": lambda x: x * _hard_sigmoid(x),
        "hard_swish": lambda x: x * _hard_sigmoid(x), "hard_tanh": lambda x: tf.clip_by_value(x, -1.0, 1.0),
        "tanh_shrink": lambda x: x - tf.tanh(x), "sparse_plus": _sparse_plus,
        "sparse_sigmoid": _sparse_sigmoid}.items()},
    "relu": lambda x: tf.nn.relu(as_tensor(x)), "relu6": lambda x: tf.nn.relu6(as_tensor(x)),  # ints stay ints
    "softmax": _softmax_like(tf.nn.softmax, False), "log_softmax": _softmax_like(tf.nn.log_softmax, True),
    "elu": _elu, "celu": _celu, "leaky_relu": _leaky_relu, "gelu": _gelu, "glu": _glu,
    "hard_shrink": _hard_shrink, "soft_shrink": _soft_shrink, "threshold": _threshold,
    "squareplus": _squareplus, "sparsemax": _sparsemax,
}
