"""keras.backend's math helpers (``K.mean``, ``K.clip``, ``K.binary_crossentropy``, ...): each a thin call of
public tapegrad ops with the argument names of Keras's legacy tf.keras.backend; keras.backend re-exports them."""
import tapegrad as tf
from tapegrad.keras import backend

__all__ = [
    "abs", "all", "any", "arange", "argmax", "argmin", "batch_flatten", "bias_add", "binary_crossentropy",
    "cast", "categorical_crossentropy", "clip", "concatenate", "cos", "cumsum", "dot", "dtype", "elu", "equal",
    "exp", "expand_dims", "flatten", "gather", "greater", "greater_equal", "hard_sigmoid", "int_shape",
    "is_float_dtype", "is_int_dtype", "l2_normalize", "less", "less_equal", "log", "max", "maximum", "mean",
    "min", "minimum", "ndim", "not_equal", "one_hot", "permute_dimensions", "pow", "prod", "random_normal",
    "random_uniform", "relu", "repeat", "repeat_elements", "reshape", "reverse", "round", "shape", "sigmoid",
    "sign", "sin", "softmax", "softplus", "softsign", "sparse_categorical_crossentropy", "sqrt", "square",
    "squeeze", "stack", "standardize_dtype", "std", "stop_gradient", "sum", "switch", "tanh", "tile",
    "transpose", "var",
]


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


def _elementwise(op, arity):
    """A K.<name>(x) or K.<name>(x, y) with Keras's argument names over the public op."""
    fn = (lambda x: op(x)) if arity == 1 else (lambda x, y: op(x, y))
    fn.__name__ = fn.__qualname__ = op.__name__
    fn.__doc__ = f"``tf.{op.__name__}`` with Keras's argument names."
    return fn


square, sqrt, abs, exp, log = (_elementwise(op, 1) for op in  # noqa: A001
                               (tf.square, tf.sqrt, tf.abs, tf.exp, tf.math.log))
sign, round, sin, cos, tanh = (_elementwise(op, 1) for op in (tf.sign, tf.round, tf.sin, tf.cos, tf.tanh))  # noqa: A001
sigmoid, softplus = _elementwise(tf.sigmoid, 1), _elementwise(tf.nn.softplus, 1)
maximum, minimum, equal, not_equal = (_elementwise(op, 2) for op in
                                      (tf.maximum, tf.minimum, tf.equal, tf.not_equal))
greater, greater_equal, less, less_equal = (_elementwise(op, 2) for op in
                                            (tf.greater, tf.greater_equal, tf.less, tf.less_equal))


def stop_gradient(variables):
    """``tf.stop_gradient`` of a tensor, or of each tensor in a list."""
    if isinstance(variables, (list, tuple)):
        return [tf.stop_gradient(v) for v in variables]
    return tf.stop_gradient(variables)


def softsign(x):
    x = tf.convert_to_tensor(x)
    return x / (1.0 + tf.abs(x))


def hard_sigmoid(x):
    """Piecewise-linear sigmoid: clip(0.2 x + 0.5, 0, 1)."""
    return tf.clip_by_value(0.2 * tf.convert_to_tensor(x) + 0.5, 0.0, 1.0)


def l2_normalize(x, axis=None):
    x = tf.convert_to_tensor(x)
    return x * tf.math.rsqrt(tf.maximum(tf.reduce_sum(tf.square(x), axis=axis, keepdims=True), 1e-12))


def switch(condition, then_expression, else_expression):
    """then_expression where condition holds, else else_expression (callables are called first)."""
    then_value = then_expression() if callable(then_expression) else then_expression
    else_value = else_expression() if callable(else_expression) else else_expression
    return tf.where(condition, then_value, else_value)


def arange(start, stop=None, step=1, dtype="int32"):
    return tf.range(start, stop, step, dtype=dtype)


def reverse(x, axes):
    x = tf.convert_to_tensor(x)
    axes = [axes] if isinstance(axes, int) else list(axes)
    index = [slice(None, None, -1) if i in axes or i - x.ndim in axes else slice(None) for i in range(x.ndim)]
    return x[tuple(index)]


def repeat_elements(x, rep, axis):
    """Each entry along ``axis`` repeated ``rep`` times ([1, 2] -> [1, 1, 2, 2])."""
    x = tf.convert_to_tensor(x)
    axis = axis % x.ndim
    tiled = tf.tile(tf.expand_dims(x, axis + 1), [1] * (axis + 1) + [rep] + [1] * (x.ndim - axis - 1))
    shape = list(x.shape)
    shape[axis] *= rep
    return tf.reshape(tiled, shape)


def repeat(x, n):
    """A 2-d (batch, dim) tensor as (batch, n, dim)."""
    return tf.tile(tf.expand_dims(x, 1), [1, n, 1])


def bias_add(x, bias, data_format=None):
    data_format = data_format or backend.image_data_format()
    x, bias = tf.convert_to_tensor(x), tf.convert_to_tensor(bias)
    if data_format == "channels_first" and x.ndim > 2:
        bias = tf.reshape(bias, [-1] + [1] * (x.ndim - 2))
    return x + bias


def is_float_dtype(dtype):
    return tf.as_dtype(dtype).is_floating


def is_int_dtype(dtype):
    return tf.as_dtype(dtype).is_integer


def standardize_dtype(dtype):
    """A dtype's name ('float32'); None gives floatx()."""
    return backend.floatx() if dtype is None else tf.as_dtype(dtype).name




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
    p = tf.clip_by_value(output, backend.epsilon(), 1.0 - backend.epsilon())
    return -(target * tf.math.log(p + backend.epsilon()) + (1.0 - target) * tf.math.log(1.0 - p + backend.epsilon()))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """-sum(t log p) over ``axis`` with p the output normalized to sum to 1 and clipped to [eps, 1 - eps]."""
    target = tf.convert_to_tensor(target)
    if from_logits:
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    p = output / tf.reduce_sum(output, axis=axis, keepdims=True)
    p = tf.clip_by_value(p, backend.epsilon(), 1.0 - backend.epsilon())
    return -tf.reduce_sum(target * tf.math.log(p), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    """categorical_crossentropy of the one-hot labels; entries labelled ``ignore_class`` lose 0."""
    output = tf.convert_to_tensor(output)
    labels = tf.cast(target, tf.int32)
    keep = None
    if ignore_class is not None:
        keep = tf.not_equal(labels, ignore_class)
        labels = tf.where(keep, labels, tf.zeros_like(labels))
    loss = categorical_crossentropy(tf.one_hot(labels, output.shape[axis], dtype=output.dtype), output,
                                    from_logits=from_logits, axis=axis)
    return loss if keep is None else tf.where(keep, loss, tf.zeros_like(loss))


# ---- random
def random_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return tf.random.normal(shape, mean, stddev, dtype=backend._float_default(dtype), seed=seed)


def random_uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return tf.random.uniform(shape, minval, maxval, dtype=backend._float_default(dtype), seed=seed)
