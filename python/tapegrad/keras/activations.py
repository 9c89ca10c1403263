"""keras.activations: activation functions, looked up by name with ``get``."""
import tapegrad as tf

__all__ = ["linear", "relu", "relu6", "elu", "selu", "sigmoid", "tanh", "softplus", "softsign", "exponential",
           "leaky_relu", "gelu", "silu", "swish", "softmax", "log_softmax", "hard_sigmoid", "get", "serialize"]


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return tf.nn.relu(x)
    x = tf.convert_to_tensor(x)
    out = tf.where(x > threshold, x, negative_slope * (x - threshold))
    return out if max_value is None else tf.minimum(out, max_value)


def relu6(x):
    return tf.nn.relu6(x)


def elu(x, alpha=1.0):
    return tf.nn.elu(x) if alpha == 1.0 else tf.where(tf.convert_to_tensor(x) > 0, x, alpha * tf.nn.elu(x))


def selu(x):
    return tf.nn.selu(x)


def sigmoid(x):
    return tf.sigmoid(x)


def tanh(x):
    return tf.tanh(x)


def softplus(x):
    return tf.nn.softplus(x)


def softsign(x):
    return x / (1.0 + tf.abs(x))


def exponential(x):
    return tf.exp(x)


def leaky_relu(x, negative_slope=0.2):
    return tf.nn.leaky_relu(x, alpha=negative_slope)


def gelu(x, approximate=False):
    return tf.nn.gelu(x, approximate=approximate)


def silu(x):
    return tf.nn.silu(x)


swish = silu


def hard_sigmoid(x):
    return tf.clip_by_value(x / 6.0 + 0.5, 0.0, 1.0)


def log_softmax(x, axis=-1):
    return tf.nn.log_softmax(x, axis=axis)


def softmax(x, axis=-1):
    return tf.nn.softmax(x, axis=axis)


_BY_NAME = {f.__name__: f for f in [linear, relu, relu6, elu, selu, sigmoid, tanh, softplus, softsign,
                                    exponential, leaky_relu, gelu, silu, hard_sigmoid, softmax, log_softmax]}
_BY_NAME["swish"] = silu


def get(identifier):
    """An activation function from a name, a function, or None (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier]
        except KeyError:
            raise ValueError(f"Unknown activation function: '{identifier}'; known: {sorted(_BY_NAME)}") from None
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier!r}")


def serialize(activation):
    return getattr(activation, "__name__", repr(activation))
