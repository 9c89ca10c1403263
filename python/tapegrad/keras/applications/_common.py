"""What every keras.applications builder shares: the checks of its arguments (with Keras's messages), the
input it builds on, the classification head or pooling, and the weights it loads at the end."""
import os
import warnings

import tapegrad as tf

from tapegrad.keras import backend, layers
from tapegrad.keras._functional import KerasTensor, TFOpLambda
from tapegrad.keras.datasets._files import get_file
from tapegrad.keras.layers.base import unique_name
from tapegrad.keras.models import Model

__all__ = ["check_weights", "input_shape_of", "image_input", "source_inputs", "classify_or_pool", "released_file",
           "finish", "bn_axis", "pass_through", "is_file", "check_activation", "op"]

KERAS_APPLICATIONS = "https://storage.googleapis.com/tensorflow/keras-applications/"


def bn_axis():
    """The channels axis of a 4-D image batch (tapegrad's images are channels last)."""
    if backend.image_data_format() != "channels_last":
        raise tf.errors.UnimplementedError(None, None, "keras.applications: only the 'channels_last' image data "
                                           "format is supported")
    return 3


def check_weights(weights, include_top, classes, classifier_activation=None):
    """Keras's checks of `weights`, `classes` and `classifier_activation` (ValueError with its messages)."""
    if not (weights in {"imagenet", None} or is_file(weights)):
        raise ValueError("The `weights` argument should be either `None` (random initialization), 'imagenet' "
                         "(pre-training on ImageNet), or the path to the weights file to be loaded.  Received: "
                         f"weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError("If using `weights='imagenet'` with `include_top=True`, `classes` should be 1000.  "
                         f"Received classes={classes}")
    if include_top:
        check_activation(classifier_activation, weights)


def is_file(weights):
    """Whether `weights` names an existing file (of weights to load)."""
    return isinstance(weights, (str, os.PathLike)) and os.path.exists(weights)


def check_activation(classifier_activation, weights):
    """Pretrained classifiers end in softmax (or nothing): Keras's check, with its message."""
    if weights is not None and classifier_activation not in {None, "softmax"}:
        raise ValueError("Only `None` and `softmax` activations are allowed for the `classifier_activation` "
                         "argument when using pretrained weights, with `include_top=True`; Received: "
                         f"classifier_activation={classifier_activation}")


def input_shape_of(input_shape, default_size, min_size, require_flatten, weights=None):
    """The image input's (rows, cols, channels) as Keras settles it from the arguments."""
    bn_axis()
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        if input_shape[-1] not in {1, 3}:
            warnings.warn(f"This model usually expects 1 or 3 input channels. However, it was passed an "
                          f"input_shape with {input_shape[-1]} input channels.", stacklevel=3)
        default_shape = (default_size, default_size, input_shape[-1])
    else:
        default_shape = (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, `input_shape` "
                             f"should be {default_shape}.  Received: input_shape={input_shape}")
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        if input_shape[-1] != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
        if any(d is not None and d < min_size for d in input_shape[:2]):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    else:
        input_shape = default_shape if require_flatten else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. Received: "
                         f"input_shape={input_shape}")
    return tuple(input_shape)


def image_input(input_tensor, input_shape):
    """The tensor the network starts from: a new Input, or the given KerasTensor."""
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if not isinstance(input_tensor, KerasTensor):
        raise ValueError("Argument `input_tensor` must be a KerasTensor. Received invalid type: "  # noqa: TRY004
                         f"input_tensor={input_tensor} (of type {type(input_tensor)})")
    return input_tensor


def source_inputs(tensor):
    """The Input tensors a KerasTensor is computed from (the model's inputs when input_tensor is given)."""
    found, seen, todo = [], set(), [tensor]
    while todo:
        t = todo.pop()
        node = t._node
        if id(t) in seen or node is None:
            continue
        seen.add(id(t))
        if isinstance(node.layer, layers.InputLayer):
            found.append(t)
        else:
            todo.extend(reversed(node.inputs))
    return found[0] if len(found) == 1 else found


def classify_or_pool(x, include_top, pooling, classes, classifier_activation, names=(None, None, None)):
    """The head: global average pooling and a softmax Dense named 'predictions' (include_top), else the
    pooling asked for ('avg', 'max' or none). names: the pooling layers' names (before the classifier,
    avg, max) where Keras gives them."""
    if include_top:
        x = layers.GlobalAveragePooling2D(name=names[0])(x)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=names[1])(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=names[2])(x)
    return x


def released_file(url, include_top, hashes):
    """(file name, URL, hash) of Keras's released weights at ``url`` + ".h5" (with the top) or "_notop.h5";
    hashes: (with the top, without)."""
    origin = url + (".h5" if include_top else "_notop.h5")
    return origin.rsplit("/", 1)[1], origin, hashes[0 if include_top else 1]


def finish(input_tensor, img_input, x, name, weights, imagenet_file=None):
    """The model from its input to x, with the weights asked for loaded: imagenet_file is
    (file name, URL, hash) of Keras's released file for these arguments."""
    inputs = source_inputs(input_tensor) if input_tensor is not None else img_input
    model = Model(inputs, x, name=name)
    if weights == "imagenet":
        fname, origin, file_hash = imagenet_file
        model.load_weights(get_file(fname, origin, cache_subdir="models", file_hash=file_hash))
    elif weights is not None:
        model.load_weights(os.fspath(weights))
    return model


def pass_through(x, data_format=None):
    """preprocess_input of the models that scale their input themselves: x unchanged."""
    return x


def op(fn, name, x, value):
    """fn(x, value) on KerasTensors, as a layer named as Keras names the operation ('add', 'multiply_1')."""
    return TFOpLambda(fn, name=unique_name(name))(x, value)
