"""keras.applications.densenet: DenseNet121, DenseNet169 and DenseNet201 (Huang et al., 2016): dense
blocks, each layer's 32 new channels concatenated to all before them, joined by halving transitions."""
from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "preprocess_input", "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "densenet/"
# blocks per dense block, and Keras's MD5 of the released files (with the classifier, without it)
_VARIANTS = {
    "densenet121": ((6, 12, 24, 16), "9d60b8095a5708f2dcce2bca79d332c7", "30ee3e1110167f948a6b9946edeeb738"),
    "densenet169": ((6, 12, 32, 32), "d699b8f76981ab1b30698df4c175e90b", "b8c4d4c20dd625c148057b9ff1c1176b"),
    "densenet201": ((6, 12, 48, 32), "1ceb130c1ea1b78c3bf6114dbdfd8807", "c13680b51ded0fb44dff2d8f86ac8bb1"),
}
_GROWTH = 32
_EPSILON = 1.001e-5


def _bn_relu(x, axis, name):
    x = layers.BatchNormalization(axis=axis, epsilon=_EPSILON, name=name + "_bn")(x)
    return layers.Activation("relu", name=name + "_relu")(x)


def _conv_block(x, axis, name):
    y = _bn_relu(x, axis, name + "_0")
    y = layers.Conv2D(4 * _GROWTH, 1, use_bias=False, name=name + "_1_conv")(y)
    y = _bn_relu(y, axis, name + "_1")
    y = layers.Conv2D(_GROWTH, 3, padding="same", use_bias=False, name=name + "_2_conv")(y)
    return layers.Concatenate(axis=axis, name=name + "_concat")([x, y])


def _transition(x, axis, name):
    x = _bn_relu(x, axis, name)
    x = layers.Conv2D(int(x.shape[axis] * 0.5), 1, use_bias=False, name=name + "_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=name + "_pool")(x)


def _build(variant, include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, name):
    blocks, top_hash, notop_hash = _VARIANTS[variant]
    _common.check_weights(weights, include_top, classes, classifier_activation)
    input_shape = _common.input_shape_of(input_shape, 224, 32, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    axis = _common.bn_axis()
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn_relu(x, axis, "conv1")
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks):
        for i in range(count):
            x = _conv_block(x, axis, f"conv{stage + 2}_block{i + 1}")
        if stage < len(blocks) - 1:
            x = _transition(x, axis, f"pool{stage + 2}")
    x = layers.BatchNormalization(axis=axis, epsilon=_EPSILON, name="bn")(x)
    x = layers.Activation("relu", name="relu")(x)
    x = _common.classify_or_pool(x, include_top, pooling, classes, classifier_activation,
                                 names=("avg_pool", "avg_pool", "max_pool"))
    fname = f"{variant}_weights_tf_dim_ordering_tf_kernels" + (".h5" if include_top else "_notop.h5")
    imagenet_file = (fname, _WEIGHTS_URL + fname, top_hash if include_top else notop_hash)
    return _common.finish(input_tensor, img_input, x, name, weights, imagenet_file)


def _densenet(variant):
    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=variant):
        return _build(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
                      classifier_activation, name)
    builder.__name__ = builder.__qualname__ = "DenseNet" + variant[-3:]
    builder.__doc__ = f"""{builder.__name__} for ImageNet-sized RGB images (inputs as
    ``densenet.preprocess_input`` gives them: scaled to [0, 1], then ImageNet's channel statistics)."""
    return builder


DenseNet121 = _densenet("densenet121")
DenseNet169 = _densenet("densenet169")
DenseNet201 = _densenet("densenet201")


def preprocess_input(x, data_format=None):
    """Scales pixels to [0, 1] and normalizes each channel by ImageNet's mean and deviation (mode 'torch')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


decode_predictions = imagenet_utils.decode_predictions
