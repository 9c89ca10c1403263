"""keras.layers.TimeDistributed: a layer applied to every step of axis 1."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["TimeDistributed"]


class TimeDistributed(Layer):
    """[batch, time, ...] -> [batch, time, ...layer's output]: the batch and time axes are merged, the
    layer runs once on all steps, and the result is split back (one set of weights for every step)."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(f"TimeDistributed: please initialize with a Layer instance, got {layer!r}")
        self.layer = layer

    def call(self, inputs, training=None):
        shape = tuple(inputs.shape)
        if len(shape) < 3:
            raise ValueError(f"{self.name} (TimeDistributed): inputs need at least 3 axes (batch, time, ...), got "
                             f"shape {shape}")
        flat = tf.reshape(inputs, [shape[0] * shape[1]] + list(shape[2:]))
        out = self.layer(flat, training=training)
        return tf.reshape(out, [shape[0], shape[1]] + list(out.shape[1:]))

    def get_config(self):
        from tapegrad.keras.saving._serialization import serialize_keras_object
        return {**super().get_config(), "layer": serialize_keras_object(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tapegrad.keras.saving._serialization import deserialize_keras_object
        config = dict(config)
        return cls(deserialize_keras_object(config.pop("layer"), custom_objects), **config)
