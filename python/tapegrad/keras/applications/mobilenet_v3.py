"""keras.applications.mobilenet_v3: MobileNetV3Small and MobileNetV3Large (Howard et al., 2019), inverted
residual blocks with squeeze-and-excitation and hard-swish, with Keras's layer names (the unnamed
ReLU, Activation and arithmetic steps take Keras's automatic names: re_lu, activation, add, multiply).
The models scale their own input (include_preprocessing): they take pixels in [0, 255]."""
import operator
import warnings

import tapegrad as tf

from tapegrad.keras import layers
from tapegrad.keras.applications import _common, imagenet_utils
from tapegrad.keras.applications.mobilenet_v2 import correct_pad, make_divisible

__all__ = ["MobileNetV3Small", "MobileNetV3Large", "preprocess_input", "decode_predictions"]

_WEIGHTS_URL = _common.KERAS_APPLICATIONS + "mobilenet_v3/"
_WEIGHTS_HASHES = {
    "large_224_0.75_float": ("765b44a33ad4005b3ac83185abf1d0eb", "40af19a13ebea4e2ee0c676887f69a2e"),
    "large_224_1.0_float": ("59e551e166be033d707958cf9e29a6a7", "07fb09a5933dd0c8eaafa16978110389"),
    "large_minimalistic_224_1.0_float": ("675e7b876c45c57e9e63e6d90a36599c", "ec5221f64a2f6d1ef965a614bdae7973"),
    "small_224_0.75_float": ("cb65d4e5be93758266aa0a7f2c6708b7", "ebdb5cc8e0b497cd13a7c275d475c819"),
    "small_224_1.0_float": ("8768d4c2e7dee89b9d02b2d03d65d862", "d3e8ec802a04aa4fc771ee12a9a9b836"),
    "small_minimalistic_224_1.0_float": ("99cd97fb2fcdad2bf028eb838de69e37", "cde8136e733e811080d9fcd8a252f7e4"),
}
# (expansion, filters, kernel ("k": 5, or 3 when minimalistic), stride, squeeze-excite ("se": 0.25, or
# none when minimalistic), activation ("hs": hard-swish, or relu when minimalistic)) of each block
_SMALL = [(1, 16, 3, 2, "se", "relu"), (72.0 / 16, 24, 3, 2, None, "relu"), (88.0 / 24, 24, 3, 1, None, "relu"),
          (4, 40, "k", 2, "se", "hs"), (6, 40, "k", 1, "se", "hs"), (6, 40, "k", 1, "se", "hs"),
          (3, 48, "k", 1, "se", "hs"), (3, 48, "k", 1, "se", "hs"), (6, 96, "k", 2, "se", "hs"),
          (6, 96, "k", 1, "se", "hs"), (6, 96, "k", 1, "se", "hs")]
_LARGE = [(1, 16, 3, 1, None, "relu"), (4, 24, 3, 2, None, "relu"), (3, 24, 3, 1, None, "relu"),
          (3, 40, "k", 2, "se", "relu"), (3, 40, "k", 1, "se", "relu"), (3, 40, "k", 1, "se", "relu"),
          (6, 80, 3, 2, None, "hs"), (2.5, 80, 3, 1, None, "hs"), (2.3, 80, 3, 1, None, "hs"),
          (2.3, 80, 3, 1, None, "hs"), (6, 112, 3, 1, "se", "hs"), (6, 112, 3, 1, "se", "hs"),
          (6, 160, "k", 2, "se", "hs"), (6, 160, "k", 1, "se", "hs"), (6, 160, "k", 1, "se", "hs")]
_LAST_POINT = {"small": 1024, "large": 1280}


def hard_silu(x):
    """x * relu6(x + 3) / 6 (Keras's hard_silu, also called hard_swish)."""
    return x * tf.nn.relu6(x + 3.0) * (1.0 / 6.0)


def _relu(x):
    return layers.ReLU()(x)


def _hard_sigmoid(x):
    return _common.op(operator.mul, "multiply", layers.ReLU(6.0)(_common.op(operator.add, "add", x, 3.0)), 1.0 / 6.0)


def _hard_swish(x):
    return layers.Activation(hard_silu)(x)


def _bn(name):
    return layers.BatchNormalization(axis=-1, epsilon=1e-3, momentum=0.999, name=name)


def _se_block(inputs, filters, se_ratio, prefix):
    x = layers.GlobalAveragePooling2D(keepdims=True, name=prefix + "squeeze_excite_avg_pool")(inputs)
    x = layers.Conv2D(make_divisible(filters * se_ratio, 8), 1, padding="same", name=prefix + "squeeze_excite_conv")(x)
    x = layers.ReLU(name=prefix + "squeeze_excite_relu")(x)
    x = layers.Conv2D(filters, 1, padding="same", name=prefix + "squeeze_excite_conv_1")(x)
    x = _hard_sigmoid(x)
    return layers.Multiply(name=prefix + "squeeze_excite_mul")([inputs, x])


def _inverted_res_block(x, expansion, filters, kernel_size, stride, se_ratio, activation, block_id):
    shortcut, infilters = x, x.shape[-1]
    prefix = f"expanded_conv_{block_id}_" if block_id else "expanded_conv_"
    if block_id:
        x = layers.Conv2D(make_divisible(infilters * expansion, 8), 1, padding="same", use_bias=False,
                          name=prefix + "expand")(x)
        x = activation(_bn(prefix + "expand_bn")(x))
    if stride == 2:
        x = layers.ZeroPadding2D(padding=correct_pad(x.shape, kernel_size), name=prefix + "depthwise_pad")(x)
    x = layers.DepthwiseConv2D(kernel_size, strides=stride, padding="same" if stride == 1 else "valid", use_bias=False,
                               name=prefix + "depthwise")(x)
    x = activation(_bn(prefix + "depthwise_bn")(x))
    if se_ratio:
        x = _se_block(x, make_divisible(infilters * expansion, 8), se_ratio, prefix)
    x = layers.Conv2D(filters, 1, padding="same", use_bias=False, name=prefix + "project")(x)
    x = _bn(prefix + "project_bn")(x)
    if stride == 1 and infilters == filters:
        x = layers.Add(name=prefix + "add")([shortcut, x])
    return x


def _input_shape(input_shape, input_tensor):
    if input_shape is None and input_tensor is not None:
        input_shape = tuple(input_tensor.shape[1:])
    input_shape = (None, None, 3) if input_shape is None else tuple(input_shape)
    rows, cols = (input_shape + (None, None))[:2]
    if rows and cols and (rows < 32 or cols < 32):
        raise ValueError(f"Input size must be at least 32x32; Received `input_shape={input_shape}`")
    return input_shape, rows, cols


def _build(model_type, input_shape, alpha, minimalistic, include_top, weights, input_tensor, classes, pooling,
           dropout_rate, classifier_activation, include_preprocessing, name):
    if not (weights in {"imagenet", None} or _common.is_file(weights)):
        raise ValueError("The `weights` argument should be either `None` (random initialization), `imagenet` "
                         "(pre-training on ImageNet), or the path to the weights file to be loaded.  Received "
                         f"weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError('If using `weights="imagenet"` with `include_top` as true, `classes` should be 1000.  '
                         f"Received classes={classes}")
    input_shape, rows, cols = _input_shape(input_shape, input_tensor)
    if weights == "imagenet":
        if (not minimalistic and alpha not in [0.75, 1.0]) or (minimalistic and alpha != 1.0):
            raise ValueError("If imagenet weights are being loaded, alpha can be one of `0.75`, `1.0` for non "
                             "minimalistic or `1.0` for minimalistic only.")
        if rows != cols or rows != 224:
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not 224. Weights for input shape "
                          "(224, 224) will be loaded as the default.", stacklevel=3)
    if include_top:
        _common.check_activation(classifier_activation, weights)
    _common.bn_axis()
    img_input = _common.image_input(input_tensor, input_shape)
    activations = {"relu": _relu, "hs": _relu if minimalistic else _hard_swish}
    kernel, se_ratio = (3, None) if minimalistic else (5, 0.25)
    x = layers.Rescaling(scale=1.0 / 127.5, offset=-1.0)(img_input) if include_preprocessing else img_input
    x = layers.Conv2D(16, 3, strides=(2, 2), padding="same", use_bias=False, name="conv")(x)
    x = activations["hs"](_bn("conv_bn")(x))
    for block_id, (expansion, filters, k, stride, se, act) in enumerate(_SMALL if model_type == "small" else _LARGE):
        x = _inverted_res_block(x, expansion, make_divisible(filters * alpha, 8), kernel if k == "k" else k, stride,
                                se_ratio if se else None, activations[act], block_id)
    last_conv = make_divisible(x.shape[-1] * 6, 8)
    last_point = _LAST_POINT[model_type]
    if alpha > 1.0:
        last_point = make_divisible(last_point * alpha, 8)
    x = layers.Conv2D(last_conv, 1, padding="same", use_bias=False, name="conv_1")(x)
    x = activations["hs"](_bn("conv_1_bn")(x))
    if include_top:
        x = layers.GlobalAveragePooling2D(keepdims=True)(x)
        x = layers.Conv2D(last_point, 1, padding="same", use_bias=True, name="conv_2")(x)
        x = activations["hs"](x)
        if dropout_rate > 0:
            x = layers.Dropout(dropout_rate)(x)
        x = layers.Conv2D(classes, 1, padding="same", name="logits")(x)
        x = layers.Flatten()(x)
        x = layers.Activation(classifier_activation, name="predictions")(x)
    else:
        x = _common.classify_or_pool(x, False, pooling, classes, None, names=("avg_pool", "avg_pool", "max_pool"))
    model_name = f"{model_type}{'_minimalistic' if minimalistic else ''}_224_{alpha}_float"
    fname = f"weights_mobilenet_v3_{model_name}" + (".h5" if include_top else "_no_top_v2.h5")
    hashes = _WEIGHTS_HASHES.get(model_name, (None, None))
    imagenet_file = (fname, _WEIGHTS_URL + fname, hashes[0 if include_top else 1])
    return _common.finish(input_tensor, img_input, x, name, weights, imagenet_file)


def _mobilenet_v3(model_type, function_name):
    def builder(input_shape=None, alpha=1.0, minimalistic=False, include_top=True, weights="imagenet",
                input_tensor=None, classes=1000, pooling=None, dropout_rate=0.2, classifier_activation="softmax",
                include_preprocessing=True, name=function_name):
        return _build(model_type, input_shape, alpha, minimalistic, include_top, weights, input_tensor, classes,
                      pooling, dropout_rate, classifier_activation, include_preprocessing, name)
    builder.__name__ = builder.__qualname__ = function_name
    builder.__doc__ = f"""{function_name}: ``alpha`` widens or narrows the blocks; ``minimalistic`` drops
    squeeze-and-excitation, hard-swish and 5x5 kernels."""
    return builder


MobileNetV3Small = _mobilenet_v3("small", "MobileNetV3Small")
MobileNetV3Large = _mobilenet_v3("large", "MobileNetV3Large")
preprocess_input = _common.pass_through
decode_predictions = imagenet_utils.decode_predictions
