"""keras.applications.convnext: ConvNeXtTiny, Small, Base, Large and XLarge (Liu et al., 2022): a 4x4
patchify stem, four stages of 7x7 depthwise blocks with inverted bottlenecks and LayerScale, and
downsampling between them, with Keras's layer names (all prefixed by the model's name). The models
normalize their own input (include_preprocessing): they take pixels in [0, 255]."""
import operator

from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils
from tapegrad.keras.applications._convnext_layers import Conv2D, LayerScale
from tapegrad.keras.models import Sequential

__all__ = ["ConvNeXtTiny", "ConvNeXtSmall", "ConvNeXtBase", "ConvNeXtLarge", "ConvNeXtXLarge", "preprocess_input",
           "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "convnext/"
# (blocks per stage, channels per stage, Keras's SHA-256 of the released files with and without the classifier)
_VARIANTS = {
    "tiny": ((3, 3, 9, 3), (96, 192, 384, 768),
             "8ae6e78ce2933352b1ef4008e6dd2f17bc40771563877d156bc6426c7cf503ff",
             "d547c096cabd03329d7be5562c5e14798aa39ed24b474157cef5e85ab9e49ef1"),
    "small": ((3, 3, 27, 3), (96, 192, 384, 768),
              "ce1277d8f1ee5a0ef0e171469089c18f5233860ceaf9b168049cb9263fd7483c",
              "6fc8009faa2f00c1c1dfce59feea9b0745eb260a7dd11bee65c8e20843da6eab"),
    "base": ((3, 3, 27, 3), (128, 256, 512, 1024),
             "52cbb006d3dadd03f6e095a8ca1aca47aecdd75acb4bc74bce1f5c695d0086e6",
             "40a20c5548a5e9202f69735ecc06c990e6b7c9d2de39f0361e27baeb24cb7c45"),
    "large": ((3, 3, 27, 3), (192, 384, 768, 1536),
              "070c5ed9ed289581e477741d3b34beffa920db8cf590899d6d2c67fba2a198a6",
              "96f02b6f0753d4f543261bc9d09bed650f24dd6bc02ddde3066135b63d23a1cd"),
    "xlarge": ((3, 3, 27, 3), (256, 512, 1024, 2048),
               "c1f5ccab661354fc3a79a10fa99af82f0fbf10ec65cb894a3ae0815f17a889ee",
               "de3f8a54174130e0cecdc71583354753d557fcf1f4487331558e2a16ba0cfe05"),
}
_LAYER_SCALE_INIT = 1e-6
_IMAGENET_MEAN = (0.485 * 255, 0.456 * 255, 0.406 * 255)
_IMAGENET_VARIANCE = ((0.229 * 255) ** 2, (0.224 * 255) ** 2, (0.225 * 255) ** 2)


def _layer_norm(name=None):
    return layers.LayerNormalization(epsilon=1e-6, name=name)


def _block(inputs, projection_dim, name):
    x = Conv2D(projection_dim, 7, padding="same", groups=projection_dim, name=name + "_depthwise_conv")(inputs)
    x = _layer_norm(name + "_layernorm")(x)
    x = layers.Dense(4 * projection_dim, name=name + "_pointwise_conv_1")(x)
    x = layers.Activation("gelu", name=name + "_gelu")(x)
    x = layers.Dense(projection_dim, name=name + "_pointwise_conv_2")(x)
    x = LayerScale(_LAYER_SCALE_INIT, projection_dim, name=name + "_layer_scale")(x)
    x = layers.Activation("linear", name=name + "_identity")(x)  # stochastic depth at rate 0
    return _common.op(operator.add, "add", inputs, x)


def _build(variant, include_top, include_preprocessing, weights, input_tensor, input_shape, pooling, classes,
           classifier_activation, name):
    depths, dims, top_hash, notop_hash = _VARIANTS[variant]
    _common.check_weights(weights, include_top, classes, None)
    input_shape = _common.input_shape_of(input_shape, 224, 32, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    _common.bn_axis()
    x = img_input
    if include_preprocessing and input_shape[-1] == 3:
        x = layers.Normalization(mean=list(_IMAGENET_MEAN), variance=list(_IMAGENET_VARIANCE),
                                 name=name + "_prestem_normalization")(x)
    stem = Sequential([layers.Conv2D(dims[0], kernel_size=4, strides=4, name=name + "_stem_conv"),
                       _layer_norm(name + "_stem_layernorm")], name=name + "_stem")
    x = stem(x)
    for i, (depth, dim) in enumerate(zip(depths, dims)):
        if i:
            k = i - 1  # Keras numbers the three downsampling blocks from 0
            x = Sequential([_layer_norm(f"{name}_downsampling_layernorm_{k}"),
                            layers.Conv2D(dim, kernel_size=2, strides=2, name=f"{name}_downsampling_conv_{k}")],
                           name=f"{name}_downsampling_block_{k}")(x)
        for j in range(depth):
            x = _block(x, dim, f"{name}_stage_{i}_block_{j}")
    if include_top:
        _common.check_activation(classifier_activation, weights)
        x = layers.GlobalAveragePooling2D(name=name + "_head_gap")(x)
        x = _layer_norm(name + "_head_layernorm")(x)
        x = layers.Dense(classes, activation=classifier_activation, name=name + "_head_dense")(x)
    else:
        x = _common.classify_or_pool(x, False, pooling, classes, None)
        x = _layer_norm()(x)
    fname = name + (".h5" if include_top else "_notop.h5")
    imagenet_file = (fname, _WEIGHTS_URL + fname, top_hash if include_top else notop_hash)
    return _common.finish(input_tensor, img_input, x, name, weights, imagenet_file)


def _convnext(variant):
    def builder(include_top=True, include_preprocessing=True, weights="imagenet", input_tensor=None,
                input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
                name=f"convnext_{variant}"):
        return _build(variant, include_top, include_preprocessing, weights, input_tensor, input_shape, pooling,
                      classes, classifier_activation, name)
    builder.__name__ = builder.__qualname__ = "ConvNeXt" + {"xlarge": "XLarge"}.get(variant, variant.title())
    builder.__doc__ = f"""{builder.__name__} for RGB images of pixels in [0, 255] (default 224x224)."""
    return builder


ConvNeXtTiny = _convnext("tiny")
ConvNeXtSmall = _convnext("small")
ConvNeXtBase = _convnext("base")
ConvNeXtLarge = _convnext("large")
ConvNeXtXLarge = _convnext("xlarge")
preprocess_input = _common.pass_through
decode_predictions = imagenet_utils.decode_predictions
