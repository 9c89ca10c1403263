"""keras.layers.Identity: its inputs unchanged (a placeholder in a model's layer list); the mask passes on."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["Identity"]


class Identity(Layer):
    """``layer(x)`` is ``x`` (a tensor of the same values; nested inputs map one by one)."""

    supports_masking = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def call(self, inputs):
        return tf.nest.map_structure(tf.identity, inputs)
