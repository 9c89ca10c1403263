"""keras.applications.inception_v3: InceptionV3 (Szegedy et al., 2015): a convolutional stem and eleven
inception modules ("mixed0".."mixed10") of parallel branches concatenated along channels. Its
convolutions and batch norms take Keras's automatic names (conv2d, batch_normalization, activation, ...)."""
from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils

__all__ = ["InceptionV3", "preprocess_input", "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "inception_v3/inception_v3_weights_tf_dim_ordering_tf_kernels"
_HASHES = ("9a0d58056eeedaa3f26cb7ebd46da564", "bcbd6486424b2319ff4ef7d526e38f63")


def _conv_bn(x, filters, rows, cols, padding="same", strides=(1, 1)):
    """A convolution without bias, a batch norm without scale, and a ReLU."""
    x = layers.Conv2D(filters, (rows, cols), strides=strides, padding=padding, use_bias=False)(x)
    x = layers.BatchNormalization(axis=3, scale=False)(x)
    return layers.Activation("relu")(x)


def _avg_pool_branch(x, filters):
    pooled = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return _conv_bn(pooled, filters, 1, 1)


def _module_35(x, pool_filters, name):
    """A 35x35 module: 1x1, 5x5, double 3x3 and pooled branches."""
    branch1x1 = _conv_bn(x, 64, 1, 1)
    branch5x5 = _conv_bn(_conv_bn(x, 48, 1, 1), 64, 5, 5)
    branch3x3dbl = _conv_bn(_conv_bn(_conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3)
    branch_pool = _avg_pool_branch(x, pool_filters)
    return layers.Concatenate(axis=3, name=name)([branch1x1, branch5x5, branch3x3dbl, branch_pool])


def _module_17(x, filters, name):
    """A 17x17 module: its 7x7 convolutions factored into 1x7 and 7x1."""
    branch1x1 = _conv_bn(x, 192, 1, 1)
    branch7x7 = _conv_bn(_conv_bn(_conv_bn(x, filters, 1, 1), filters, 1, 7), 192, 7, 1)
    branch7x7dbl = _conv_bn(x, filters, 1, 1)
    for f, rows, cols in ((filters, 7, 1), (filters, 1, 7), (filters, 7, 1), (192, 1, 7)):
        branch7x7dbl = _conv_bn(branch7x7dbl, f, rows, cols)
    branch_pool = _avg_pool_branch(x, 192)
    return layers.Concatenate(axis=3, name=name)([branch1x1, branch7x7, branch7x7dbl, branch_pool])


def _module_8(x, index):
    """An 8x8 module: its 3x3 branches end in parallel 1x3 and 3x1 convolutions."""
    branch1x1 = _conv_bn(x, 320, 1, 1)
    branch3x3 = _conv_bn(x, 384, 1, 1)
    branch3x3 = layers.Concatenate(axis=3, name=f"mixed9_{index}")([_conv_bn(branch3x3, 384, 1, 3),
                                                                     _conv_bn(branch3x3, 384, 3, 1)])
    branch3x3dbl = _conv_bn(_conv_bn(x, 448, 1, 1), 384, 3, 3)
    branch3x3dbl = layers.Concatenate(axis=3)([_conv_bn(branch3x3dbl, 384, 1, 3), _conv_bn(branch3x3dbl, 384, 3, 1)])
    branch_pool = _avg_pool_branch(x, 192)
    return layers.Concatenate(axis=3, name=f"mixed{9 + index}")([branch1x1, branch3x3, branch3x3dbl, branch_pool])


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name="inception_v3"):
    """InceptionV3 for RGB images (default 299x299, at least 75x75), inputs as
    ``inception_v3.preprocess_input`` gives them (scaled to [-1, 1])."""
    _common.check_weights(weights, include_top, classes, classifier_activation)
    input_shape = _common.input_shape_of(input_shape, 299, 75, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    _common.bn_axis()
    x = _conv_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = _conv_bn(x, 32, 3, 3, padding="valid")
    x = _conv_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = _conv_bn(x, 80, 1, 1, padding="valid")
    x = _conv_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    for i, pool_filters in enumerate((32, 64, 64)):
        x = _module_35(x, pool_filters, f"mixed{i}")
    branch3x3 = _conv_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = _conv_bn(_conv_bn(_conv_bn(x, 64, 1, 1), 96, 3, 3), 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.Concatenate(axis=3, name="mixed3")([branch3x3, branch3x3dbl, branch_pool])
    for i, filters in enumerate((128, 160, 160, 192)):
        x = _module_17(x, filters, f"mixed{4 + i}")
    branch3x3 = _conv_bn(_conv_bn(x, 192, 1, 1), 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = _conv_bn(x, 192, 1, 1)
    for f, rows, cols in ((192, 1, 7), (192, 7, 1)):
        branch7x7x3 = _conv_bn(branch7x7x3, f, rows, cols)
    branch7x7x3 = _conv_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.Concatenate(axis=3, name="mixed8")([branch3x3, branch7x7x3, branch_pool])
    for i in range(2):
        x = _module_8(x, i)
    x = _common.classify_or_pool(x, include_top, pooling, classes, classifier_activation,
                                 names=("avg_pool", None, None))
    imagenet_file = _common.released_file(_WEIGHTS_URL, include_top, _HASHES)
    return _common.finish(input_tensor, img_input, x, name, weights, imagenet_file)


def preprocess_input(x, data_format=None):
    """Scales pixels in [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
