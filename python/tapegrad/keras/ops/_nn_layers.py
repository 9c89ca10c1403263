"""keras.ops.nn's convolutions, pooling, normalizations, losses and attention over tapegrad's nn ops.

Keras's layouts: data_format "channels_last" (the default, keras.backend.image_data_format()) or
"channels_first"; kernels (spatial..., in, out) as TF's; conv_transpose kernels (spatial..., out, in)."""
import math

import tapegrad as tf
from tapegrad.keras import backend
from tapegrad.keras.ops._dtypes import as_tensor, dtype_name, promote_float, to_float


def _unimplemented(what):
    raise tf.errors.UnimplementedError(None, None, what)


def _channels_first(data_format):
    return (data_format or backend.image_data_format()) == "channels_first"


def _last(x, data_format):  # channels_first -> channels_last
    rank = len(x.shape)
    return tf.transpose(x, [0] + list(range(2, rank)) + [1]) if _channels_first(data_format) else x


def _back(x, data_format):
    rank = len(x.shape)
    return tf.transpose(x, [0, rank - 1] + list(range(1, rank - 1))) if _channels_first(data_format) else x


def _tuple(value, n):
    return [value] * n if isinstance(value, int) else list(value)


def _conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    x, kernel = promote_float(inputs, kernel)
    n = len(x.shape) - 2
    out = tf.nn.convolution(_last(x, data_format), kernel, strides=_tuple(strides, n), padding=padding.upper(),
                            dilations=_tuple(dilation_rate, n))
    return _back(out, data_format)


def _run_2d(name, fn, inputs, kernels, strides, padding, data_format, dilation_rate):
    """A 2-D op on 1-D inputs as well (an axis of size 1 added)."""
    x = _last(to_float(inputs), data_format)
    kernels = [tf.cast(as_tensor(k), x.dtype) for k in kernels]
    one = len(x.shape) == 3
    if len(x.shape) not in (3, 4):
        _unimplemented(f"keras.ops.{name} on {len(x.shape) - 2}-D inputs (tapegrad: 1-D and 2-D)")
    if one:
        x, kernels = tf.expand_dims(x, 1), [tf.expand_dims(k, 0) for k in kernels]
    s, d = _tuple(strides, 1 if one else 2), _tuple(dilation_rate, 1 if one else 2)
    s, d = ([1] + s if one else s), ([1] + d if one else d)
    out = fn(x, *kernels, [1] + s + [1], padding.upper(), dilations=d)
    return _back(tf.squeeze(out, 1) if one else out, data_format)


def _depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    return _run_2d("depthwise_conv", tf.nn.depthwise_conv2d, inputs, [kernel], strides, padding, data_format,
                   dilation_rate)


def _separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None,
                    dilation_rate=1):
    return _run_2d("separable_conv", tf.nn.separable_conv2d, inputs, [depthwise_kernel, pointwise_kernel], strides,
                   padding, data_format, dilation_rate)


def _conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None,
                    dilation_rate=1):
    if output_padding is not None:
        _unimplemented("keras.ops.conv_transpose: output_padding (tapegrad: None only)")
    x, kernel = promote_float(inputs, kernel)
    x = _last(x, data_format)
    n = len(x.shape) - 2
    s, d = _tuple(strides, n), _tuple(dilation_rate, n)
    sizes = []
    for size, k, stride, rate in zip(x.shape[1:-1], kernel.shape[:-2], s, d):
        span = rate * (k - 1) + 1
        sizes.append(size * stride if padding.lower() == "same" else (size - 1) * stride + span)
    shape = tf.stack([tf.shape(x)[0]] + sizes + [kernel.shape[-2]])
    out = tf.nn.conv_transpose(x, kernel, shape, strides=s, padding=padding.upper(), dilations=d)
    return _back(out, data_format)


def _pool(fn):
    def op(inputs, pool_size, strides=None, padding="valid", data_format=None):
        x = _last(to_float(inputs), data_format)
        n = len(x.shape) - 2
        size = _tuple(pool_size, n)
        out = fn(x, size, size if strides is None else _tuple(strides, n), padding.upper())
        return _back(out, data_format)
    return op


def _blocks(fn):
    def op(x, block_size, data_format="channels_last"):
        x = as_tensor(x)
        return _back(fn(_last(x, data_format), block_size), data_format)
    return op


def _axis_shape(x, axis):  # a shape that puts a 1-D tensor along ``axis`` of x
    shape = [1] * len(x.shape)
    shape[axis] = -1
    return shape


def _batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    x = to_float(x)
    shape = _axis_shape(x, axis)

    def along_axis(v):
        return None if v is None else tf.reshape(tf.cast(as_tensor(v), x.dtype), shape)
    mean, variance, offset, scale = along_axis(mean), along_axis(variance), along_axis(offset), along_axis(scale)
    return tf.nn.batch_normalization(x, mean, variance, offset, scale, epsilon)


def _moments(x, axes, keepdims=False, synchronized=False):
    if synchronized:
        _unimplemented("keras.ops.moments: synchronized=True (tapegrad runs on one device)")
    x = to_float(x)
    return tf.nn.moments(x, list(axes) if isinstance(axes, (list, tuple)) else [axes], keepdims=keepdims)


def _clipped(output):
    eps = backend.epsilon()
    return tf.clip_by_value(output, eps, 1.0 - eps)


def _binary_crossentropy(target, output, from_logits=False):
    target, output = promote_float(target, output)
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _clipped(output)
    return -(target * tf.math.log(output) + (1 - target) * tf.math.log(1 - output))


def _categorical_crossentropy(target, output, from_logits=False, axis=-1):
    target, output = promote_float(target, output)
    if from_logits:
        return -tf.reduce_sum(target * tf.nn.log_softmax(output, axis=axis), axis=axis)
    output = _clipped(output / tf.reduce_sum(output, axis=axis, keepdims=True))
    return -tf.reduce_sum(target * tf.math.log(output), axis=axis)


def _sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    output = to_float(output)
    target = tf.cast(as_tensor(target), "int32")
    if len(target.shape) == len(output.shape) and target.shape[-1] == 1:
        target = tf.squeeze(target, -1)
    labels = tf.one_hot(target, output.shape[axis], axis=axis, dtype=output.dtype)
    return _categorical_crossentropy(labels, output, from_logits, axis)


def _one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        _unimplemented("keras.ops.one_hot: sparse=True (tapegrad has no sparse tensors)")
    return tf.one_hot(tf.cast(as_tensor(x), "int32"), num_classes, axis=axis,
                      dtype=dtype_name(dtype) or backend.floatx())


def _multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    num_classes = kwargs.pop("num_tokens", num_classes)
    x = tf.cast(as_tensor(inputs), "int32")
    hot = _one_hot(x, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    return tf.reduce_max(hot, axis=1 if len(x.shape) > 1 else 0)


def _layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    x = to_float(x)
    mean, variance = tf.nn.moments(x, [axis], keepdims=True)
    eps = backend.epsilon() if epsilon is None else epsilon
    out = (x - mean) * tf.math.rsqrt(variance + tf.cast(eps, x.dtype))
    out = out if gamma is None else out * tf.cast(as_tensor(gamma), x.dtype)
    return out if beta is None else out + tf.cast(as_tensor(beta), x.dtype)


def _rms_normalization(x, scale=None, axis=-1, epsilon=None):
    x = to_float(x)
    eps = backend.epsilon() if epsilon is None else epsilon
    out = x * tf.math.rsqrt(tf.reduce_mean(tf.square(x), axis=axis, keepdims=True) + tf.cast(eps, x.dtype))
    return out if scale is None else out * tf.cast(as_tensor(scale), x.dtype)


def _normalize(x, axis=-1, order=2, epsilon=None):
    x = to_float(x)
    eps = backend.epsilon() if epsilon is None else epsilon
    norm = tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), order), axis=axis, keepdims=True), 1.0 / order)
    return x / tf.maximum(norm, tf.cast(eps, x.dtype))


def _psnr(x1, x2, max_val):
    x1, x2 = promote_float(x1, x2)
    mse = tf.reduce_mean(tf.square(x1 - x2))
    return 20.0 * tf.math.log(tf.cast(max_val, x1.dtype)) / math.log(10.0) - 10.0 * tf.math.log(mse) / math.log(10.0)


def _dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                           flash_attention=None, attn_logits_soft_cap=None):
    if flash_attention or attn_logits_soft_cap is not None:
        _unimplemented("keras.ops.dot_product_attention: flash_attention and attn_logits_soft_cap")
    query, key, value = promote_float(query, key, value)
    if query.shape[-2] != key.shape[-2]:
        _unimplemented("keras.ops.dot_product_attention: grouped key/value heads")
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    logits = tf.einsum("btnh,bsnh->bnts", query, key) * tf.cast(scale, query.dtype)
    if bias is not None:
        logits = logits + tf.cast(as_tensor(bias), logits.dtype)
    keep = None if mask is None else tf.cast(as_tensor(mask), "bool")
    if is_causal:
        t, s = query.shape[1], key.shape[1]
        causal = tf.greater_equal(tf.range(t)[:, None], tf.range(s)[None, :])
        keep = causal if keep is None else tf.logical_and(keep, causal)
    if keep is not None:
        logits = tf.where(keep, logits, tf.fill(tf.shape(logits), tf.constant(-0.7 * 3.4e38, logits.dtype)))
    weights = tf.nn.softmax(logits, axis=-1)
    return tf.einsum("bnts,bsnh->btnh", weights, value)


NN_LAYERS = {
    "conv": _conv, "depthwise_conv": _depthwise_conv, "separable_conv": _separable_conv,
    "conv_transpose": _conv_transpose,
    "max_pool": _pool(tf.nn.max_pool), "average_pool": _pool(tf.nn.avg_pool),
    "depth_to_space": _blocks(tf.nn.depth_to_space), "space_to_depth": _blocks(tf.nn.space_to_depth),
    "batch_normalization": _batch_normalization, "moments": _moments,
    "binary_crossentropy": _binary_crossentropy, "categorical_crossentropy": _categorical_crossentropy,
    "sparse_categorical_crossentropy": _sparse_categorical_crossentropy,
    "one_hot": _one_hot, "multi_hot": _multi_hot, "layer_normalization": _layer_normalization,
    "rms_normalization": _rms_normalization, "normalize": _normalize, "psnr": _psnr,
    "dot_product_attention": _dot_product_attention,
}
