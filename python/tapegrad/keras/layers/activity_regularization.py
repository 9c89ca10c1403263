"""keras.layers.ActivityRegularization: the identity that adds a penalty on its input to the layer's losses."""
import numbers

import tapegrad as tf

from tapegrad.keras import regularizers
from tapegrad.keras.layers.base import Layer

__all__ = ["ActivityRegularization"]


class ActivityRegularization(Layer):
    """outputs = inputs; adds (l1 * sum(|inputs|) + l2 * sum(inputs^2)) / batch_size to ``losses``
    at every call, in training and inference alike (as Keras's activity regularizers).

    Args:
      l1: the L1 factor (>= 0).
      l2: the L2 factor (>= 0).

    >>> layer = keras.layers.ActivityRegularization(l1=0.5)
    >>> _ = layer(tf.constant([[1.0, -3.0], [2.0, 0.0]]))
    >>> float(layer.losses[0])  # 0.5 * 6 / 2
    1.5
    """

    supports_masking = True

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        if "activity_regularizer" in kwargs:
            raise TypeError("ActivityRegularization: activity_regularizer is given by l1 and l2, not as an argument")
        super().__init__(**kwargs)
        for name, value in (("l1", l1), ("l2", l2)):
            if not isinstance(value, numbers.Real) or value < 0:
                raise ValueError(f"ActivityRegularization: {name} must be a non-negative float, got {value!r}")
        self.l1, self.l2 = l1, l2
        self.activity_regularizer = regularizers.L1L2(l1=l1, l2=l2)

    def call(self, inputs):
        batch = tf.cast(tf.shape(inputs)[0], inputs.dtype) if inputs.ndim else tf.ones([], inputs.dtype)
        self.add_loss(tf.math.divide_no_nan(self.activity_regularizer(inputs), batch))
        return inputs
