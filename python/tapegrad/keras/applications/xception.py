"""keras.applications.xception: Xception (Chollet, 2016): depthwise separable convolutions in an entry
flow of downsampling residual blocks, eight middle blocks and an exit flow, with Keras's layer names
(the shortcut convolutions, their batch norms and the additions take Keras's automatic names)."""
from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils

__all__ = ["Xception", "preprocess_input", "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "xception/xception_weights_tf_dim_ordering_tf_kernels"
_HASHES = ("0a58e3b7378bc2990ea3b43d5981f1f6", "b0042744bf5b25fce3cb969f33bebb97")


def _sepconv_bn(x, filters, name):
    x = layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False, name=name)(x)
    return layers.BatchNormalization(axis=-1, name=name + "_bn")(x)


def _relu(x, name):
    return layers.Activation("relu", name=name)(x)


def _downsampling_block(x, filters, block, first_relu=True):
    """Two separable convolutions and a 3x3 max pooling, plus a strided 1x1 convolution of the input."""
    residual = layers.Conv2D(filters[1], (1, 1), strides=(2, 2), padding="same", use_bias=False)(x)
    residual = layers.BatchNormalization(axis=-1)(residual)
    if first_relu:
        x = _relu(x, f"block{block}_sepconv1_act")
    x = _sepconv_bn(x, filters[0], f"block{block}_sepconv1")
    x = _relu(x, f"block{block}_sepconv2_act")
    x = _sepconv_bn(x, filters[1], f"block{block}_sepconv2")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name=f"block{block}_pool")(x)
    return layers.Add()([x, residual])


def Xception(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
             classes=1000, classifier_activation="softmax", name="xception"):
    """Xception for RGB images (default 299x299, at least 71x71), inputs as ``xception.preprocess_input``
    gives them (scaled to [-1, 1])."""
    _common.check_weights(weights, include_top, classes, classifier_activation)
    input_shape = _common.input_shape_of(input_shape, 299, 71, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    _common.bn_axis()
    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = layers.BatchNormalization(axis=-1, name="block1_conv1_bn")(x)
    x = _relu(x, "block1_conv1_act")
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = layers.BatchNormalization(axis=-1, name="block1_conv2_bn")(x)
    x = _relu(x, "block1_conv2_act")
    x = _downsampling_block(x, (128, 128), 2, first_relu=False)
    x = _downsampling_block(x, (256, 256), 3)
    x = _downsampling_block(x, (728, 728), 4)
    for block in range(5, 13):
        residual = x
        for k in (1, 2, 3):
            x = _relu(x, f"block{block}_sepconv{k}_act")
            x = _sepconv_bn(x, 728, f"block{block}_sepconv{k}")
        x = layers.Add()([x, residual])
    x = _downsampling_block(x, (728, 1024), 13)
    x = _relu(_sepconv_bn(x, 1536, "block14_sepconv1"), "block14_sepconv1_act")
    x = _relu(_sepconv_bn(x, 2048, "block14_sepconv2"), "block14_sepconv2_act")
    x = _common.classify_or_pool(x, include_top, pooling, classes, classifier_activation,
                                 names=("avg_pool", None, None))
    imagenet_file = _common.released_file(_WEIGHTS_URL, include_top, _HASHES)
    return _common.finish(input_tensor, img_input, x, name, weights, imagenet_file)


def preprocess_input(x, data_format=None):
    """Scales pixels in [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
