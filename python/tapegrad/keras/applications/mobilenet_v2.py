"""keras.applications.mobilenet_v2: MobileNetV2 (Sandler et al., 2018), inverted residual blocks of a
1x1 expansion, a 3x3 depthwise convolution and a linear 1x1 projection, with Keras's layer names."""
import warnings

from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils

__all__ = ["MobileNetV2", "preprocess_input", "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "mobilenet_v2/"
_ALPHAS = (0.35, 0.50, 0.75, 1.0, 1.3, 1.4)
_SIZES = (96, 128, 160, 192, 224)
# (output filters, stride, expansion) of blocks 0..16
_BLOCKS = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6),
           (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6), (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6),
           (320, 1, 6)]


def make_divisible(v, divisor, min_value=None):
    """v rounded to the nearest multiple of divisor, never below min_value nor under 90% of v."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def correct_pad(shape, kernel_size):
    """The ZeroPadding2D before a stride-2 'valid' convolution that matches TF's 'same' (rows, cols known)."""
    size = shape[1:3]
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    k = kernel_size // 2
    return ((k - adjust[0], k), (k - adjust[1], k))


def _bn(name):
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)


def _inverted_res_block(x, expansion, stride, alpha, filters, block_id):
    in_channels = x.shape[-1]
    pointwise_filters = make_divisible(int(filters * alpha), 8)
    prefix = f"block_{block_id}_" if block_id else "expanded_conv_"
    inputs = x
    if block_id:
        x = layers.Conv2D(expansion * in_channels, 1, padding="same", use_bias=False, activation=None,
                          name=prefix + "expand")(x)
        x = _bn(prefix + "expand_BN")(x)
        x = layers.ReLU(6.0, name=prefix + "expand_relu")(x)
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x.shape, 3), name=prefix + "pad")(x)
    x = layers.DepthwiseConv2D(3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid", name=prefix + "depthwise")(x)
    x = _bn(prefix + "depthwise_BN")(x)
    x = layers.ReLU(6.0, name=prefix + "depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, 1, padding="same", use_bias=False, activation=None,
                      name=prefix + "project")(x)
    x = _bn(prefix + "project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=prefix + "add")([inputs, x])
    return x


def _rows(input_shape, input_tensor, weights):
    """The image side the model is named after and its imagenet weights are chosen by (Keras's rule)."""
    shape = input_shape
    if shape is None and input_tensor is not None:
        shape = tuple(input_tensor.shape[1:])
    if shape is None:
        return 224, None
    if len(shape) != 3:
        raise ValueError("`input_shape` must be a tuple of three integers.")
    rows, cols = shape[0], shape[1]
    if weights == "imagenet" and (rows != cols or rows not in _SIZES):
        warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in [96, 128, 160, 192, 224]. "
                      "Weights for input shape (224, 224) will be loaded as the default.", stacklevel=3)
        return rows, 224
    return rows, rows


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet", input_tensor=None,
                pooling=None, classes=1000, classifier_activation="softmax", name=None):
    """MobileNetV2 for ImageNet-sized RGB images; ``alpha`` widens or narrows every layer."""
    _common.check_weights(weights, include_top, classes, classifier_activation)
    if input_tensor is not None:
        _common.image_input(input_tensor, input_shape)
    rows, default_size = _rows(input_shape, input_tensor, weights)
    if weights == "imagenet" and alpha not in _ALPHAS:
        raise ValueError("If imagenet weights are being loaded, alpha must be one of `0.35`, `0.50`, `0.75`, "
                         f"`1.0`, `1.3` or `1.4` only; Received `alpha={alpha}`")
    if input_shape is None and input_tensor is not None:
        input_shape = tuple(input_tensor.shape[1:])
    input_shape = _common.input_shape_of(input_shape, default_size or 224, 32, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = layers.Conv2D(make_divisible(32 * alpha, 8), 3, strides=(2, 2), padding="same", use_bias=False,
                      name="Conv1")(img_input)
    x = _bn("bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, expansion, stride, alpha, filters, block_id)
    last_filters = make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_filters, 1, use_bias=False, name="Conv_1")(x)
    x = _bn("Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)
    x = _common.classify_or_pool(x, include_top, pooling, classes, classifier_activation)
    name = name or f"mobilenetv2_{alpha:0.2f}_{rows}"
    size = default_size or 224
    fname = f"mobilenet_v2_weights_tf_dim_ordering_tf_kernels_{float(alpha)}_{size}" + \
        (".h5" if include_top else "_no_top.h5")
    return _common.finish(input_tensor, img_input, x, name, weights, (fname, _WEIGHTS_URL + fname, None))


def preprocess_input(x, data_format=None):
    """Scales pixels in [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
