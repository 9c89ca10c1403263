"""keras.layers.Rescaling: outputs = inputs * scale + offset."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["Rescaling"]


class Rescaling(Layer):
    """Multiplies by ``scale`` and adds ``offset`` (scalars or arrays broadcast against the input).

    Integer images come out in the layer's compute dtype (float32): ``Rescaling(1 / 255)`` maps [0, 255] to [0, 1].
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        dtype = self._compute_dtype
        x = tf.cast(inputs, dtype) if inputs.dtype != dtype else inputs
        return x * tf.cast(self.scale, dtype) + tf.cast(self.offset, dtype)
