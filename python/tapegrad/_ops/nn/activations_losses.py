"""Neural-network ops of tf.nn: activations, softmax, dropout and the cross-entropy losses."""
import numpy as np

from tapegrad import _core
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops import _raw
from tapegrad._ops._wrap import convert_arg, export, unary
from tapegrad._ops.math.elementwise import sigmoid, softplus  # noqa: F401
from tapegrad._ops.nn._common import squeeze
from tapegrad._ops.math.reduction import reduce_mean, reduce_sum
from tapegrad._tensor.tensor import cast, convert_to_tensor
from tapegrad._tensor import tensor as _tensor

_UNARY = {"relu": "Relu", "relu6": "Relu6", "elu": "Elu", "selu": "Selu"}
__all__ = export(globals(), _UNARY, lambda op, py_name: unary(op, py_name, arg="features")) + [
    "leaky_relu", "gelu", "silu", "swish", "sigmoid", "softplus", "softmax", "log_softmax", "dropout",
    "l2_loss", "sparse_softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
    "sigmoid_cross_entropy_with_logits", "moments", "softsign", "l2_normalize",
]
softsign = unary("Softsign", "softsign", "softsign(features, name=None): features / (1 + |features|).", arg="features")

_ops = {n: _core.op(n) for n in (
    "Rsqrt", "Maximum", "LeakyRelu", "Gelu", "GeluTanh", "Silu", "Softmax", "LogSoftmax",
    "SparseSoftmaxCrossEntropyWithLogits", "SigmoidCrossEntropyWithLogits")}


@dispatch
def leaky_relu(features, alpha=0.2, name=None):
    """``x`` for ``x > 0``, else ``alpha * x``; alpha is a float32 attribute, as in TF (so a float64
    input is scaled by 0.2000000029... for alpha=0.2)."""
    return _ops["LeakyRelu"](features, alpha=float(np.float32(alpha)))


@dispatch
def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit.

    Formula:
    ```
    exact:       x * (1 + erf(x / sqrt(2))) / 2
    approximate: x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2
    ```
    """
    return _ops["GeluTanh" if approximate else "Gelu"](features)


@dispatch
def silu(features, beta=1.0):
    """Sigmoid linear unit (swish): ``x * sigmoid(beta * x)``."""
    if beta == 1.0:
        return _ops["Silu"](features)
    x = convert_to_tensor(features)
    return x * sigmoid(x * beta)


swish = silu


@dispatch("logits, axis:int=None")
def softmax(logits, axis=None, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (default -1), computed from ``x - max(x)``.

    >>> tf.nn.softmax([1000., 0.]).numpy()
    array([1., 0.], dtype=float32)
    """
    return _ops["Softmax"](logits, axis=-1 if axis is None else axis)


@dispatch("logits, axis:int=None")
def log_softmax(logits, axis=None, name=None):
    """``x - log(sum(exp(x)))`` along ``axis`` (default -1); finite for any finite logits."""
    return _ops["LogSoftmax"](logits, axis=-1 if axis is None else axis)


@dispatch
def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes each entry with probability ``rate`` and scales the kept ones by ``1 / (1 - rate)``.

    Args:
      x: a float tensor.
      rate: the drop probability, ``0 <= rate < 1``.
      noise_shape: shape of the keep/drop mask, broadcast against ``x`` (``None`` entries take
        ``x``'s dimension).
      seed: makes the mask reproducible.
    """
    from tapegrad import random  # the random module imports the package; import it lazily

    x = convert_to_tensor(x)
    try:
        rate = float(rate.numpy()) if hasattr(rate, "numpy") else float(rate)
    except (TypeError, ValueError):
        raise TypeError(f"dropout: rate must be a number in [0, 1), got {rate!r}") from None
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout: rate must be a scalar in [0, 1), got {rate}")
    if not x.dtype.is_floating:
        raise ValueError(f"dropout: x must be a float tensor, got {x.dtype.name}")
    if rate == 0.0:
        return x
    shape = list(x.shape)
    if noise_shape is None and _core._tracing() and _core._is_traced(x):
        # tf.shape: a run-time value in a graph that serves several sizes, so the mask takes x's shape
        shape = _tensor.shape(x)
    if noise_shape is not None:
        noise_shape = [int(d) if d is not None else None for d in _as_list(noise_shape)]
        if len(noise_shape) != len(shape) or any(n not in (None, 1, s) for n, s in zip(noise_shape, shape)):
            raise _core.InvalidArgumentError(
                f"dropout: noise_shape {noise_shape} does not broadcast to x of shape {tuple(shape)}")
        shape = [s if n is None else n for n, s in zip(noise_shape, shape)]
    keep = random.uniform(shape, dtype=x.dtype, seed=seed) >= rate
    return x * (cast(keep, x.dtype) * (1.0 / (1.0 - rate)))


def _as_list(v):
    if hasattr(v, "numpy"):
        return v.numpy().reshape(-1).tolist()
    return list(v)


@dispatch("t")
def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    if not t.dtype.is_floating:
        raise _core.InvalidArgumentError(f"l2_loss: t must be a float32 or float64 tensor, got {t.dtype.name}"
                                         f"{tuple(t.shape)}")
    return reduce_sum(t * t) * 0.5


@dispatch("labels:tensor_own_dtype, logits")
def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Per-example ``logsumexp(logits) - logits[label]`` for integer class ``labels``.

    ``labels`` has the shape of ``logits`` without its last axis; each label must be in
    ``[0, num_classes)`` (otherwise ``InvalidArgumentError``). The gradient with respect to
    ``logits`` is ``softmax(logits) - one_hot(labels)``.
    """
    return _ops["SparseSoftmaxCrossEntropyWithLogits"](logits, labels)


@dispatch("labels:any, logits, axis:int=-1")
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """``-sum(labels * log_softmax(logits), axis)``; differentiable in both arguments.

    ``axis=None`` is the last axis, as in TF.
    """
    axis = -1 if axis is None else axis
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)  # a preference, as TF's: not the binder's hint
    if tuple(labels._shape) != tuple(logits._shape):
        return _broadcast_cross_entropy(labels, logits, axis)
    return -reduce_sum(labels * log_softmax(logits, axis=axis), axis=axis)


def _broadcast_cross_entropy(labels, logits, axis):
    """TF's rule for labels and logits of different shapes: the class axis moved last, each flattened
    to [rows, classes], the two matrices broadcast, and the result shaped as logits without the class axis."""

    def rows(x):
        if x.ndim == 0:
            raise _core.InvalidArgumentError(f"SoftmaxCrossEntropyWithLogits: logits and labels must have rank >= 1, "
                                             f"got shapes {tuple(logits._shape)} and {tuple(labels._shape)}")
        a = axis % x.ndim if -x.ndim <= axis < x.ndim else None
        if a is None:
            raise _core.InvalidArgumentError(f"SoftmaxCrossEntropyWithLogits: axis {axis} is out of range for shape "
                                             f"{tuple(x._shape)}")
        if a != x.ndim - 1:
            x = _raw.Transpose(x, perm=[d for d in range(x.ndim) if d != a] + [a])
        return x, _raw.Reshape(x, shape=[int(np.prod(x._shape[:-1], dtype=np.int64)), x._shape[-1]])

    logits_moved, g = rows(logits)
    _, z = rows(labels)
    size = [max(a, b) for a, b in zip(g._shape, z._shape)]
    batch = list(logits_moved._shape[:-1])
    if any(a != b and 1 not in (a, b) for a, b in zip(g._shape, z._shape)) or size[0] != int(np.prod(batch, dtype=np.int64)):
        raise _core.InvalidArgumentError(
            f"SoftmaxCrossEntropyWithLogits: logits and labels must be broadcastable: logits_size={list(g._shape)} "
            f"labels_size={list(z._shape)} (logits {tuple(logits._shape)}, labels {tuple(labels._shape)}, axis {axis})")
    g, z = _raw.BroadcastTo(g, shape=size), _raw.BroadcastTo(z, shape=size)
    return _raw.Reshape(-reduce_sum(z * log_softmax(g, axis=-1), axis=-1), shape=batch)


@dispatch("labels:any=None, logits=None")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits ``x`` and labels ``z``."""
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits: both labels and logits must be given")
    labels = convert_to_tensor(labels, dtype_hint=logits.dtype)
    if tuple(labels.shape) != tuple(logits.shape):
        raise _core.InvalidArgumentError(
            f"SigmoidCrossEntropyWithLogits: logits and labels must have the same shape, got "
            f"{tuple(logits.shape)} and {tuple(labels.shape)}")
    return _ops["SigmoidCrossEntropyWithLogits"](logits, labels)


@dispatch("x")
def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), finite for any finite x (tf.math only)."""
    return -softplus(-x)


@dispatch("x, axis:axes=None, epsilon:any=1e-12, *, dim:any=None")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x^2, axis), epsilon)) over ``axis`` (all axes if None; ``dim`` is its old name)."""
    if axis is None and dim is not None:  # the old name, read only when axis is not given
        axis = convert_arg(dim, "axes", "l2_normalize", "axis")
    square_sum = reduce_sum(x * x, axis, keepdims=True)
    epsilon = convert_arg(epsilon, "float", "l2_normalize", "epsilon")  # None refused (a float kind passes it on)
    return x * _ops["Rsqrt"](_ops["Maximum"](square_sum, epsilon))


@dispatch("x, axes:any, shift:any=None, keepdims:bool=False")
def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and (biased) variance of ``x`` over ``axes``, as ``(mean, variance)``."""
    axes = None if axes is None else convert_arg(axes, "axes", "moments", "axes")  # None: every axis
    mean = reduce_mean(x, axis=axes, keepdims=True)
    # The mean is not cut out of the variance's tape (as TF does): its first-order contribution
    # is zero, but second derivatives need it.
    d = x - mean
    variance = reduce_mean(d * d, axis=axes, keepdims=True)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance
