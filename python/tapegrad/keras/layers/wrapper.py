"""keras.layers.Wrapper: the base of layers that hold and call another layer (``self.layer``)."""
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.saving._serialization import deserialize_keras_object, serialize_keras_object

__all__ = ["Wrapper"]


class Wrapper(Layer):
    """Holds ``layer`` (built with the wrapper, its weights the wrapper's); a subclass defines ``call``.
    Its config serializes the wrapped layer."""

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {layer} supplied to Wrapper isn't a supported layer type. Please ensure "
                             "wrapped layer is a valid Keras layer.")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built and input_shape is not None:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def get_config(self):
        return {**super().get_config(), "layer": serialize_keras_object(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        return cls(deserialize_keras_object(config.pop("layer"), custom_objects), **config)
