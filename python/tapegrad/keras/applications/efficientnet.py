"""keras.applications.efficientnet: EfficientNetB0..B3 (Tan and Le, 2019), mobile inverted bottleneck
blocks with squeeze-and-excitation, scaled in width and depth, with Keras's layer names. The models
scale their own input (Rescaling and Normalization layers): they take pixels in [0, 255]."""
import math

from tapegrad.keras import initializers, layers
from tapegrad.keras.applications import _common, imagenet_utils
from tapegrad.keras.applications.mobilenet_v2 import correct_pad

__all__ = ["EfficientNetB0", "EfficientNetB1", "EfficientNetB2", "EfficientNetB3", "preprocess_input",
           "decode_predictions"]

_WEIGHTS_URL = "https://storage.googleapis.com/keras-applications/"
_WEIGHTS_HASHES = {
    "b0": ("902e53a9f72be733fc0bcb005b3ebbac", "50bc09e76180e00e4465e1a485ddc09d"),
    "b1": ("1d254153d4ab51201f1646940f018540", "74c4e6b3e1f6a1eea24c589628592432"),
    "b2": ("b15cce36ff4dcbd00b6dd88e7857a6ad", "111f8e2ac8aa800a7a99e3239f7bfb39"),
    "b3": ("ffd1fdc53d0ce67064dc6a9c7960ede0", "af6d107764bb5b1abb91932881670226"),
}
# (kernel size, repeats, filters in, filters out, expand ratio, strides) of the seven stages; every
# block has id_skip and a squeeze-and-excitation ratio of 0.25
_STAGES = [(3, 1, 32, 16, 1, 1), (3, 2, 16, 24, 6, 2), (5, 2, 24, 40, 6, 2), (3, 3, 40, 80, 6, 2),
           (5, 3, 80, 112, 6, 1), (5, 4, 112, 192, 6, 2), (3, 1, 192, 320, 6, 1)]
_SE_RATIO = 0.25
# (width coefficient, depth coefficient, default image side, dropout rate before the classifier)
_SCALES = {"b0": (1.0, 1.0, 224, 0.2), "b1": (1.0, 1.1, 240, 0.2), "b2": (1.1, 1.2, 260, 0.3),
           "b3": (1.2, 1.4, 300, 0.3)}
_IMAGENET_STDDEV_RGB = (0.229, 0.224, 0.225)


def _conv_init():
    return initializers.VarianceScaling(scale=2.0, mode="fan_out", distribution="truncated_normal")


def _block(inputs, drop_rate, name, filters_in, filters_out, kernel_size, strides, expand_ratio, axis):
    filters = filters_in * expand_ratio
    x = inputs
    if expand_ratio != 1:
        x = layers.Conv2D(filters, 1, padding="same", use_bias=False, kernel_initializer=_conv_init(),
                          name=name + "expand_conv")(x)
        x = layers.BatchNormalization(axis=axis, name=name + "expand_bn")(x)
        x = layers.Activation("swish", name=name + "expand_activation")(x)
    if strides == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x.shape, kernel_size), name=name + "dwconv_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=strides, padding="valid" if strides == 2 else "same",
                               use_bias=False, depthwise_initializer=_conv_init(), name=name + "dwconv")(x)
    x = layers.BatchNormalization(axis=axis, name=name + "bn")(x)
    x = layers.Activation("swish", name=name + "activation")(x)
    filters_se = max(1, int(filters_in * _SE_RATIO))
    se = layers.GlobalAveragePooling2D(name=name + "se_squeeze")(x)
    se = layers.Reshape((1, 1, filters), name=name + "se_reshape")(se)
    se = layers.Conv2D(filters_se, 1, padding="same", activation="swish", kernel_initializer=_conv_init(),
                       name=name + "se_reduce")(se)
    se = layers.Conv2D(filters, 1, padding="same", activation="sigmoid", kernel_initializer=_conv_init(),
                       name=name + "se_expand")(se)
    x = layers.Multiply(name=name + "se_excite")([x, se])
    x = layers.Conv2D(filters_out, 1, padding="same", use_bias=False, kernel_initializer=_conv_init(),
                      name=name + "project_conv")(x)
    x = layers.BatchNormalization(axis=axis, name=name + "project_bn")(x)
    if strides == 1 and filters_in == filters_out:
        if drop_rate > 0:
            x = layers.Dropout(drop_rate, noise_shape=(None, 1, 1, 1), name=name + "drop")(x)
        x = layers.Add(name=name + "add")([x, inputs])
    return x


def _build(variant, include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation,
           name, drop_connect_rate=0.2, depth_divisor=8):
    width, depth, default_size, dropout_rate = _SCALES[variant]
    _common.check_weights(weights, include_top, classes, classifier_activation)
    input_shape = _common.input_shape_of(input_shape, default_size, 32, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    axis = _common.bn_axis()

    def round_filters(filters):
        filters *= width
        new = max(depth_divisor, int(filters + depth_divisor / 2) // depth_divisor * depth_divisor)
        return new + depth_divisor if new < 0.9 * filters else new

    def round_repeats(repeats):
        return math.ceil(depth * repeats)

    x = layers.Rescaling(1.0 / 255.0)(img_input)
    x = layers.Normalization(axis=axis)(x)
    if weights == "imagenet":
        # the released weights' Normalization holds ImageNet's variances, not their square roots
        x = layers.Rescaling([1.0 / math.sqrt(s) for s in _IMAGENET_STDDEV_RGB])(x)
    x = layers.ZeroPadding2D(padding=correct_pad(x.shape, 3), name="stem_conv_pad")(x)
    x = layers.Conv2D(round_filters(32), 3, strides=2, padding="valid", use_bias=False,
                      kernel_initializer=_conv_init(), name="stem_conv")(x)
    x = layers.BatchNormalization(axis=axis, name="stem_bn")(x)
    x = layers.Activation("swish", name="stem_activation")(x)
    total = float(sum(round_repeats(stage[1]) for stage in _STAGES))
    b = 0
    for i, (kernel_size, repeats, filters_in, filters_out, expand_ratio, strides) in enumerate(_STAGES):
        filters_in, filters_out = round_filters(filters_in), round_filters(filters_out)
        for j in range(round_repeats(repeats)):
            x = _block(x, drop_connect_rate * b / total, f"block{i + 1}{chr(j + 97)}_",
                       filters_out if j > 0 else filters_in, filters_out, kernel_size, 1 if j > 0 else strides,
                       expand_ratio, axis)
            b += 1
    x = layers.Conv2D(round_filters(1280), 1, padding="same", use_bias=False, kernel_initializer=_conv_init(),
                      name="top_conv")(x)
    x = layers.BatchNormalization(axis=axis, name="top_bn")(x)
    x = layers.Activation("swish", name="top_activation")(x)
    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate, name="top_dropout")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions",
                         kernel_initializer=initializers.VarianceScaling(1.0 / 3.0, mode="fan_out",
                                                                         distribution="uniform"))(x)
    else:
        x = _common.classify_or_pool(x, False, pooling, classes, None, names=("avg_pool", "avg_pool", "max_pool"))
    fname = f"efficientnet{variant}" + (".h5" if include_top else "_notop.h5")
    file_hash = _WEIGHTS_HASHES[variant][0 if include_top else 1]
    return _common.finish(input_tensor, img_input, x, name, weights, (fname, _WEIGHTS_URL + fname, file_hash))


def _efficientnet(variant):
    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=f"efficientnet{variant}"):
        return _build(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                      classifier_activation, name)
    builder.__name__ = builder.__qualname__ = f"EfficientNet{variant.upper()}"
    builder.__doc__ = f"""EfficientNet{variant.upper()} for RGB images of pixels in [0, 255] (default side
    {_SCALES[variant][2]})."""
    return builder


EfficientNetB0 = _efficientnet("b0")
EfficientNetB1 = _efficientnet("b1")
EfficientNetB2 = _efficientnet("b2")
EfficientNetB3 = _efficientnet("b3")
preprocess_input = _common.pass_through
decode_predictions = imagenet_utils.decode_predictions
