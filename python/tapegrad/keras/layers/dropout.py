"""keras.layers.Dropout: zeroes a fraction ``rate`` of inputs in training and scales the rest by 1/(1-rate)."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["Dropout"]


class Dropout(Layer):
    """outputs = inputs * mask / (1 - rate) in training (mask ~ Bernoulli(1 - rate)), inputs otherwise.

    Args:
      rate: the fraction to drop, in [0, 1).
      noise_shape: the mask's shape (1 to share the mask along an axis); None for the input's shape.
      seed: a seed for this layer's masks; None draws from the global generator (set_random_seed).
    """

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise ValueError(f"Dropout: rate must be in [0, 1), got {rate}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        # A stateful random op draws the mask, so a traced call draws a new one each time.
        return tf.nn.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)
