"""The VGG networks of vgg16 and vgg19: blocks of 3x3 'same' ReLU convolutions, each ending in a 2x2
max pooling, then a flattening classifier of two 4096-unit layers."""
from tapegrad.keras import layers
from tapegrad.keras.applications import _common

__all__ = ["build", "WEIGHTS_URL"]

WEIGHTS_URL = _common.KERAS_APPLICATIONS
_FILTERS = (64, 128, 256, 512, 512)


def build(convs_per_block, include_top, weights, input_tensor, input_shape, pooling, classes,
          classifier_activation, name, url, hashes):
    _common.check_weights(weights, include_top, classes, classifier_activation)
    input_shape = _common.input_shape_of(input_shape, 224, 32, include_top, weights)
    img_input = _common.image_input(input_tensor, input_shape)
    x = img_input
    for block, (filters, convs) in enumerate(zip(_FILTERS, convs_per_block), start=1):
        for conv in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same", name=f"block{block}_conv{conv}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    elif pooling == "avg":
        x = layers.GlobalAveragePooling2D()(x)
    elif pooling == "max":
        x = layers.GlobalMaxPooling2D()(x)
    return _common.finish(input_tensor, img_input, x, name, weights, _common.released_file(url, include_top, hashes))
