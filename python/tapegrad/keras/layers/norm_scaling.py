"""keras.layers.UnitNormalization and RMSNormalization: inputs divided by a norm over ``axis``, no statistics.

UnitNormalization: x / max(||x||_2, 1e-12). RMSNormalization: x / sqrt(mean(x^2) + epsilon) times a
trainable ``scale`` (ones) over the normalized axes, which must be the trailing ones for it to broadcast.
"""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["UnitNormalization", "RMSNormalization"]


def _axes(axis):
    if isinstance(axis, int):
        return [axis]
    if isinstance(axis, (list, tuple)) and all(isinstance(a, int) for a in axis):
        return list(axis)
    raise TypeError(f"Invalid value for `axis` argument: expected an int or a list/tuple of ints. Received: axis={axis}")


class UnitNormalization(Layer):
    """Each slice along ``axis`` scaled to unit L2 norm (a zero slice stays zero)."""

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        _axes(axis)
        self.axis = axis

    def call(self, inputs):
        norm = tf.sqrt(tf.reduce_sum(tf.square(inputs), axis=_axes(self.axis), keepdims=True))
        return inputs / tf.maximum(norm, tf.cast(1e-12, inputs.dtype))


class RMSNormalization(Layer):
    """x * rsqrt(mean(x^2 over axis) + epsilon) * scale."""

    supports_masking = True

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon = [axis] if isinstance(axis, int) else axis, epsilon  # checked in build, as Keras

    def build(self, input_shape):
        self.axis = _axes(self.axis)
        self.scale = self.add_weight(name="scale", shape=tuple(input_shape[a] for a in self.axis),
                                     initializer="ones")
        self.built = True

    def call(self, x):
        mean_square = tf.reduce_mean(tf.square(x), axis=self.axis, keepdims=True)
        return x * tf.math.rsqrt(mean_square + tf.cast(self.epsilon, x.dtype)) * self.scale

    def get_config(self):
        return {**super().get_config(), "axis": list(self.axis)}
