"""keras.layers GaussianNoise, GaussianDropout and AlphaDropout: noise in training, the identity otherwise.

Each draws from the stateful random ops (as Dropout does), so a traced training step draws new
noise at every call, keras.utils.set_random_seed makes the draws reproducible, and an op ``seed``
selects a stream of its own.
"""
import math
import numbers

import tapegrad as tf

from tapegrad.keras.layers.base import Layer

__all__ = ["GaussianNoise", "GaussianDropout", "AlphaDropout"]


def check_unit(layer, name, value):
    """value as a float, ValueError naming the layer unless 0 <= value <= 1 (Keras's range)."""
    if not isinstance(value, numbers.Real) or not 0 <= value <= 1:
        raise ValueError(f"{layer}: {name} must be a float in [0, 1], got {value!r}")
    return float(value)


def _training_rate(layer, rate):
    if rate == 1:  # Keras fails here too (a division by zero): no finite output keeps the statistics
        raise ValueError(f"{layer.name}: rate=1 drops every input; use a rate in [0, 1) in training")
    return rate


class GaussianNoise(Layer):
    """outputs = inputs + stddev * z in training (z standard normal, the input's shape), inputs otherwise.

    Args:
      stddev: the noise's standard deviation, in [0, 1].
      seed: a seed for this layer's noise; None draws from the global generator (set_random_seed).

    >>> keras.layers.GaussianNoise(0.1)(tf.ones([2, 3])).numpy()  # inference: the identity
    array([[1., 1., 1.],
           [1., 1., 1.]], dtype=float32)
    """

    supports_masking = True

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.seed = check_unit("GaussianNoise", "stddev", stddev), seed

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        return inputs + tf.random.normal(tf.shape(inputs), stddev=self.stddev, dtype=inputs.dtype, seed=self.seed)


class GaussianDropout(Layer):
    """outputs = inputs * m in training, m ~ Normal(1, sqrt(rate / (1 - rate))) per entry; inputs otherwise.

    The multiplicative noise has the mean and variance of Dropout's mask / (1 - rate).

    Args:
      rate: the drop probability Dropout would use, in [0, 1) in training.
      seed: a seed for this layer's noise; None draws from the global generator.
    """

    supports_masking = True

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.seed = check_unit("GaussianDropout", "rate", rate), seed

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - _training_rate(self, self.rate)))
        return inputs * tf.random.normal(tf.shape(inputs), mean=1.0, stddev=stddev, dtype=inputs.dtype, seed=self.seed)


# SELU's constants: selu(x) = scale * (x if x > 0 else alpha * (exp(x) - 1)); its limit for x -> -inf.
_ALPHA, _SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
_ALPHA_P = -_ALPHA * _SCALE


class AlphaDropout(Layer):
    """Dropout for SELU networks: dropped entries are set to alpha' = -alpha * scale (SELU's lower
    bound), then an affine map restores zero mean and unit variance.

    Formula (training; mask ~ Bernoulli(1 - rate), shape noise_shape):

        a = ((1 - rate) * (1 + rate * alpha'^2)) ** -0.5
        b = -a * alpha' * rate
        outputs = a * (inputs * mask + alpha' * (1 - mask)) + b

    Args:
      rate: the fraction to drop, in [0, 1) in training.
      noise_shape: the mask's shape (1 to share the mask along an axis, None for the input's size).
      seed: a seed for this layer's masks; None draws from the global generator.
    """

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = check_unit("AlphaDropout", "rate", rate)
        self.noise_shape, self.seed = noise_shape, seed

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        rate = _training_rate(self, self.rate)
        shape = tf.shape(inputs)
        if self.noise_shape is not None:
            if len(self.noise_shape) != inputs.ndim:
                raise ValueError(f"{self.name}: noise_shape {tuple(self.noise_shape)} must have one entry per "
                                 f"axis of the input, of shape {tuple(inputs.shape)}")
            shape = [shape[i] if n is None else n for i, n in enumerate(self.noise_shape)]
        mask = tf.cast(tf.random.uniform(shape, dtype=inputs.dtype, seed=self.seed) >= rate, inputs.dtype)
        a = ((1 - rate) * (1 + rate * _ALPHA_P ** 2)) ** -0.5
        b = -a * _ALPHA_P * rate
        return a * (inputs * mask + _ALPHA_P * (1 - mask)) + b
