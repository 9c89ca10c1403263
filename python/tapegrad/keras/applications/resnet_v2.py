"""keras.applications.resnet_v2: ResNet50V2, ResNet101V2 and ResNet152V2 (He et al., 2016), whose blocks
batch-normalize before each convolution ("pre-activation") and downsample at a stage's last block."""
from tapegrad.keras import layers
from tapegrad.keras.applications import imagenet_utils, resnet

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "preprocess_input", "decode_predictions"]


def _block2(x, filters, axis, stride=1, conv_shortcut=False, name=None):
    preact = resnet.batch_norm(axis, name + "_preact_bn")(x)
    preact = layers.Activation("relu", name=name + "_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=name + "_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=name + "_1_conv")(preact)
    x = resnet.batch_norm(axis, name + "_1_bn")(x)
    x = layers.Activation("relu", name=name + "_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=name + "_2_pad")(x)
    x = layers.Conv2D(filters, 3, strides=stride, use_bias=False, name=name + "_2_conv")(x)
    x = resnet.batch_norm(axis, name + "_2_bn")(x)
    x = layers.Activation("relu", name=name + "_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=name + "_3_conv")(x)
    return layers.Add(name=name + "_out")([shortcut, x])


def _stacks_v2(depths):
    """The four stages; each but the last halves the image at its last block."""
    def stack_fn(x, axis):
        for stage, (filters, blocks) in enumerate(zip((64, 128, 256, 512), depths)):
            name = f"conv{stage + 2}"
            x = _block2(x, filters, axis, conv_shortcut=True, name=name + "_block1")
            for i in range(2, blocks):
                x = _block2(x, filters, axis, name=f"{name}_block{i}")
            x = _block2(x, filters, axis, stride=1 if stage == 3 else 2, name=f"{name}_block{blocks}")
        return x
    return stack_fn


def _resnet_v2(depth_name, function_name):
    weights_name = depth_name + "v2"

    def builder(include_top=True, weights="imagenet", input_tensor=None, input_shape=None, pooling=None,
                classes=1000, classifier_activation="softmax", name=weights_name):
        return resnet.build(_stacks_v2(resnet.DEPTHS[depth_name]), True, True, include_top, weights, input_tensor,
                            input_shape, pooling, classes, classifier_activation, name, weights_name)
    builder.__name__ = builder.__qualname__ = function_name
    builder.__doc__ = f"""{function_name} (ResNet v2) for ImageNet-sized RGB images (inputs as
    ``resnet_v2.preprocess_input`` gives them: scaled to [-1, 1])."""
    return builder


ResNet50V2 = _resnet_v2("resnet50", "ResNet50V2")
ResNet101V2 = _resnet_v2("resnet101", "ResNet101V2")
ResNet152V2 = _resnet_v2("resnet152", "ResNet152V2")


def preprocess_input(x, data_format=None):
    """Scales pixels in [0, 255] to [-1, 1] (mode 'tf')."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
