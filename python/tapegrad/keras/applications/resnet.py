"""keras.applications.resnet: ResNet50, ResNet101 and ResNet152 (He et al., 2015), bottleneck residual
blocks with Keras's layer names; also the builder resnet_v2 shares (its blocks put BatchNorm first)."""
from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils

__all__ = ["ResNet50", "ResNet101", "ResNet152", "preprocess_input", "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "resnet/"
# Keras's MD5 of each released file: (with the classifier, without it)
_WEIGHTS_HASHES = {
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
# blocks in each of the four stages
DEPTHS = {"resnet50": (3, 4, 6, 3), "resnet101": (3, 4, 23, 3), "resnet152": (3, 8, 36, 3)}
_EPSILON = 1.001e-5


def batch_norm(axis, name):
    return layers.BatchNormalization(axis=axis, epsilon=_EPSILON, name=name)


def _block1(x, filters, axis, stride=1, conv_shortcut=True, name=None):
    """A bottleneck block: 1x1, 3x3 and 1x1 convolutions, each batch-normalized, added to the shortcut."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(x)
        shortcut = batch_norm(axis, name + "_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=name + "_1_conv")(x)
    x = batch_norm(axis, name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.Conv2D(filters, 3, padding="same", name=name + "_2_conv")(x)
    x = batch_norm(axis, name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    x = batch_norm(axis, name + "_3_bn")(x)
    x = layers.Add(name=name + "_add")([shortcut, x])
    return layers.Activation("relu", name=name + "_out")(x)


def stacks_v1(depths):
    """The four stages of a ResNet (v1) with the given number of blocks each."""
    def stack_fn(x, axis):
        for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths)):
            name = f"conv{stage + 2}"
            x = _block1(x, filters, axis, stride=1 if stage == 0 else 2, name=name + "_block1")
            for i in range(2, blocks + 1):
                x = _block1(x, filters, axis, conv_shortcut=False, name=f"{name}_block{i}")
        return x
    return stack_fn


def build(stack_fn, preact, use_bias, include_top, weights, input_tensor, input_shape, pooling, classes,
          classifier_activation, name, weights_name):
    """A ResNet: the 7x7 stem and 3x3 max pooling, the stages of stack_fn, the head; preact: v2's
    BatchNorm-first blocks (the stem then has no BatchNorm, the stages end with one)."""
    _common.check_weights(weights, include_top, classes, classifier_activation)
    input_shape = _common.input_shape_of(input_shape, 224, 32, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    axis = _common.bn_axis()
    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = batch_norm(axis, "conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x, axis)
    if preact:
        x = batch_norm(axis, "post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)
    x = _common.classify_or_pool(x, include_top, pooling, classes, classifier_activation,
                                 names=("avg_pool", "avg_pool", "max_pool"))
    fname = f"{weights_name}_weights_tf_dim_ordering_tf_kernels" + (".h5" if include_top else "_notop.h5")
    file_hash = _WEIGHTS_HASHES[weights_name][0 if include_top else 1]
    return _common.finish(input_tensor, img_input, x, name, weights, (fname, _WEIGHTS_URL + fname, file_hash))


def _resnet(weights_name):
    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=weights_name):
        return build(stacks_v1(DEPTHS[weights_name]), False, True, include_top, weights, input_tensor,
                     input_shape, pooling, classes, classifier_activation, name, weights_name)
    builder.__name__ = builder.__qualname__ = {"resnet50": "ResNet50", "resnet101": "ResNet101",
                                               "resnet152": "ResNet152"}[weights_name]
    builder.__doc__ = f"""{builder.__name__} (ResNet v1) for ImageNet-sized RGB images (inputs as
    ``resnet.preprocess_input`` gives them: BGR, ImageNet's channel means subtracted)."""
    return builder


ResNet50 = _resnet("resnet50")
ResNet101 = _resnet("resnet101")
ResNet152 = _resnet("resnet152")


def preprocess_input(x, data_format=None):
    """RGB to BGR and each channel less its ImageNet mean (mode 'caffe')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
