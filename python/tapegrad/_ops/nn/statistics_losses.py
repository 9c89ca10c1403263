"""More of tf.nn, composed of registered ops (so gradients, forward mode and tracing come with them):
moments from sufficient statistics, weighted moments, the distributed-loss scaling helpers, the
Poisson and weighted sigmoid cross-entropy losses, crelu, space_to_depth / depth_to_space (NHWC)
and local response normalization.

A single replica runs every step here, so the loss-scaling helpers divide by one replica.
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._ops._lib.arrays import concat, expand_dims, zeros_like
from tapegrad._ops._lib.tensors import select
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.elementwise import abs, exp, less_equal, log, log1p, logical_and, pow, reciprocal, square, squared_difference
from tapegrad._ops.math.reduction import reduce_sum
from tapegrad._ops._lib.tensors import divide_no_nan, sum_of
from tapegrad._ops.nn._common import squeeze
from tapegrad._tensor.tensor import Tensor, cast, constant
from tapegrad._ops import _raw

__all__ = [
    "normalize_moments", "sufficient_statistics", "weighted_moments", "compute_average_loss",
    "scale_regularization_loss", "log_poisson_loss", "weighted_cross_entropy_with_logits", "crelu",
    "space_to_depth", "depth_to_space", "local_response_normalization", "lrn",
]

_InvalidArgument = errors.InvalidArgumentError
_relu, _reshape, _matmul = _raw.Relu, _raw.Reshape, _raw.MatMul
_NUM_REPLICAS = 1


@dispatch("counts, mean_ss:any, variance_ss:any, shift:any")
def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics: mean_ss / counts (+ shift), and
    variance_ss / counts - (mean_ss / counts)^2."""
    divisor = reciprocal(counts)  # the others take its dtype below (declared, they would lend counts theirs)
    shifted_mean = convert_arg(mean_ss, "tensor", "normalize_moments", "mean_ss", divisor.dtype) * divisor
    if shift is not None:
        shift = convert_arg(shift, "tensor", "normalize_moments", "shift", shifted_mean.dtype)
    mean = shifted_mean if shift is None else shifted_mean + shift
    variance_ss = convert_arg(variance_ss, "tensor", "normalize_moments", "variance_ss", divisor.dtype)
    return mean, variance_ss * divisor - square(shifted_mean)


def _axis_list(axes, rank, fn):
    """The listed axes, each once; like TF, ``axes`` must be a list (TypeError)."""
    if not isinstance(axes, (list, tuple, Tensor)):
        raise TypeError(f"{fn}: axes must be a list of ints, got {axes!r}")
    axes = convert_arg(axes, "axes", fn, "axes")
    for a in axes:
        if not -rank <= a < rank:  # TF's IndexError; the error contract wants an op error here
            raise _InvalidArgument(f"{fn}: axis {a} is out of range for a tensor of rank {rank}")
    return sorted({a % rank for a in axes})


def _int_attr(value, fn, arg):
    """An integer attribute; a finite float is truncated, as TF's attribute conversion does."""
    if isinstance(value, float) and np.isfinite(value):
        return int(value)
    return convert_arg(value, "int", fn, arg)


@dispatch("x, axes:any, shift:tensor_own_dtype=None, keepdims:bool=False")
def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """(count, sum(x - shift), sum((x - shift)^2), shift) over ``axes``; the count has x's dtype and
    the shift is returned as given (a tensor, or None)."""
    if x.dtype == dtypes.bool:
        raise TypeError("sufficient_statistics: x must be numeric, got bool")
    axes = _axis_list(axes, x.ndim, "sufficient_statistics")
    count = constant(int(np.prod([x.shape[a] for a in axes], dtype=np.int64)), dtype=x.dtype)
    if shift is None:
        m_ss, v_ss = x, square(x)
    else:
        m_ss, v_ss = x - shift, squared_difference(x, shift)
    return count, reduce_sum(m_ss, axes, keepdims=keepdims), reduce_sum(v_ss, axes, keepdims=keepdims), shift


@dispatch("x, axes:axes, frequency_weights:tensor_own_dtype, keepdims:bool=False")
def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """(mean, variance) of x over ``axes`` with each entry counted ``frequency_weights`` times (the
    weights broadcast against x and are cast to its dtype); 0 where the weights sum to 0."""
    w = frequency_weights if frequency_weights.dtype == x.dtype else cast(frequency_weights, x.dtype)
    # sums keep their axes, so that they broadcast against x below
    total_weight = reduce_sum(w + zeros_like(x), axes, keepdims=True)
    mean = divide_no_nan(reduce_sum(w * x, axes, keepdims=True), total_weight)
    variance = divide_no_nan(reduce_sum(w * squared_difference(x, mean), axes, keepdims=True), total_weight)
    if not keepdims:
        mean, variance = squeeze(mean, axes), squeeze(variance, axes)
    return mean, variance


@dispatch
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (default: the first dimension times
    the number of replicas); 0 when the batch size is 0. An integer loss gives a float64 mean."""
    loss = convert_arg(per_example_loss, "tensor", "compute_average_loss", "per_example_loss")
    if loss.dtype == dtypes.bool:
        raise TypeError("compute_average_loss: per_example_loss must be numeric, got bool")
    if loss.ndim == 0:
        raise ValueError("compute_average_loss: per_example_loss must have rank at least 1, got a scalar")
    if sample_weight is not None:
        # TF weighs the losses in float32 whatever their dtype, then casts back
        w = cast(convert_arg(sample_weight, "tensor", "compute_average_loss", "sample_weight"), dtypes.float32)
        if w.ndim == loss.ndim + 1 and w.shape[-1] == 1:  # [batch, 1] weights for [batch] losses
            w = _raw.Squeeze(w, axis=[w.ndim - 1])
        elif w.ndim == loss.ndim - 1:  # [batch] weights for [batch, k] losses
            w = expand_dims(w, -1)
        loss = cast(cast(loss, dtypes.float32) * w, loss.dtype)
    if global_batch_size is None:
        batch = constant(loss.shape[0] * _NUM_REPLICAS, dtype=loss.dtype)
    else:
        batch = _batch_size(global_batch_size, loss.dtype)
    return divide_no_nan(reduce_sum(loss), batch)


def _batch_size(value, dtype):
    t = convert_arg(value, "tensor", "compute_average_loss", "global_batch_size")
    if not t.dtype.is_integer:
        raise TypeError(f"compute_average_loss: global_batch_size must be an integer, got {t.dtype.name}")
    if not (_core._tracing() and _core._is_traced(t)) and (t.numpy() < 0).any():
        raise _InvalidArgument(f"compute_average_loss: global_batch_size must be non-negative, got {t.numpy()}")
    return cast(t, dtype)


@dispatch
def scale_regularization_loss(regularization_loss):
    """The sum of the regularization loss (a tensor, or a list of them) divided by the number of replicas."""
    if isinstance(regularization_loss, (list, tuple)):
        if not regularization_loss:
            raise ValueError("scale_regularization_loss: regularization_loss is an empty list")
        regularization_loss = sum_of(regularization_loss)
    loss = convert_arg(regularization_loss, "tensor", "scale_regularization_loss", "regularization_loss")
    return reduce_sum(loss) / _NUM_REPLICAS


def _same_shape(a, b, names, fn):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{fn}: `{names[0]}` and `{names[1]}` must have the same shape, got "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")


@dispatch("targets:tensor_own_dtype, log_input, compute_full_loss:bool=False")
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets, plus with ``compute_full_loss`` the Stirling term
    t log t - t + log(2 pi t) / 2 for targets outside [0, 1]."""
    _same_shape(log_input, targets, ("log_input", "targets"), "log_poisson_loss")
    result = exp(log_input) - log_input * targets
    if not compute_full_loss:
        return result
    zero, one = constant(0, dtype=targets.dtype), constant(1, dtype=targets.dtype)
    stirling = targets * log(targets) - targets + 0.5 * log(2.0 * np.pi * targets)
    in_unit = logical_and(less_equal(zero, targets), less_equal(targets, one))
    return result + select(in_unit, zero, stirling)


@dispatch("labels:tensor_own_dtype, logits, pos_weight:any")
def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross-entropy with the positive term weighted by ``pos_weight``, computed as
    (1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0)) so that it never overflows."""
    _same_shape(logits, labels, ("logits", "labels"), "weighted_cross_entropy_with_logits")
    log_weight = 1 + (pos_weight - 1) * labels
    return (1 - labels) * logits + log_weight * (log1p(exp(-abs(logits))) + _relu(-logits))


@dispatch("features, axis:any=-1")
def crelu(features, axis=-1, name=None):
    """Concatenated ReLU: [relu(x), relu(-x)] joined along ``axis`` (which doubles)."""
    axis = convert_arg(axis, "int", "crelu", "axis")  # None refused (an int kind would pass it on)
    return concat([_relu(features), _relu(-features)], axis)


def _blocks(x, block_size, data_format, fn):
    """The NHWC input and the block size, with TF's errors."""
    b = _int_attr(block_size, fn, "block_size")
    if b < 2:
        raise _InvalidArgument(f"{fn}: block_size must be at least 2, got {block_size}")
    if data_format not in ("NHWC", "NCHW", "NCHW_VECT_C"):
        raise _InvalidArgument(f"{fn}: data_format must be NHWC, NCHW or NCHW_VECT_C, got {data_format!r}")
    if data_format != "NHWC":  # TF's CPU kernels have NHWC only, too
        raise errors.NotFoundError(f"{fn}: data_format {data_format!r} has no CPU kernel; use NHWC")
    if x.ndim != 4:
        raise _InvalidArgument(f"{fn}: input rank should be 4, got shape {tuple(x.shape)}")
    return x, b


@dispatch("input, block_size:any, data_format:any='NHWC'")
def space_to_depth(input, block_size, data_format="NHWC", name=None):
    """Moves each block_size x block_size block of pixels into the channels:
    [n, h, w, c] -> [n, h / b, w / b, b * b * c], channels ordered (block row, block column, c)."""
    x, b = _blocks(input, block_size, data_format, "space_to_depth")
    n, h, w, c = x.shape
    if h % b or w % b:
        raise _InvalidArgument(f"space_to_depth: image width {w} and height {h} should be divisible by "
                               f"block_size {b}")
    y = _raw.Transpose(_reshape(x, shape=[n, h // b, b, w // b, b, c]), perm=[0, 1, 3, 2, 4, 5])
    return _reshape(y, shape=[n, h // b, w // b, b * b * c])


@dispatch("input, block_size:any, data_format:any='NHWC'")
def depth_to_space(input, block_size, data_format="NHWC", name=None):
    """The inverse of space_to_depth: [n, h, w, b * b * c] -> [n, h * b, w * b, c]."""
    x, b = _blocks(input, block_size, data_format, "depth_to_space")
    n, h, w, c = x.shape
    if c % (b * b):
        raise _InvalidArgument(f"depth_to_space: input depth {c} should be divisible by {b * b}")
    y = _raw.Transpose(_reshape(x, shape=[n, h, w, b, b, c // (b * b)]), perm=[0, 1, 3, 2, 4, 5])
    return _reshape(y, shape=[n, h * b, w * b, c // (b * b)])


@dispatch("input, depth_radius:any=5, bias:any=1, alpha:any=1, beta:any=0.5")
def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """x / (bias + alpha * s)^beta, s the sum of x^2 over the channels within ``depth_radius`` of
    each channel (last axis of a 4-D float32 input). The window sum is one matmul with a band matrix."""
    x = input
    if x.dtype != dtypes.float32:
        raise _InvalidArgument(f"local_response_normalization: input must be float32, got {x.dtype.name}")
    if x.ndim != 4:
        raise _InvalidArgument(f"local_response_normalization: input must be 4-dimensional, got {tuple(x.shape)}")
    r = _int_attr(depth_radius, "local_response_normalization", "depth_radius")
    if r < 0:
        raise _InvalidArgument(f"local_response_normalization: depth_radius must be non-negative, got {depth_radius}")
    c = x.shape[-1]
    band = np.abs(np.subtract.outer(np.arange(c), np.arange(c))) <= r
    squares = _reshape(square(x), shape=[-1, c])
    window = _reshape(_matmul(squares, constant(band.astype(np.float32)), transpose_a=False, transpose_b=False),
                      shape=list(x.shape))
    f = lambda v: float(np.float32(v))  # noqa: E731 -- the attributes are float32, as TF's
    return x * pow(window * f(alpha) + f(bias), -f(beta))


lrn = local_response_normalization
