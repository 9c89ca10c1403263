"""keras.layers.Normalization: (inputs - mean) / sqrt(variance), from given or adapted statistics."""
import numpy as np

import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing._adapt import batches

__all__ = ["Normalization"]

_EPSILON = 1e-7  # keras.backend.epsilon(): the smallest standard deviation divided by


class Normalization(Layer):
    """Feature-wise normalization: ``(x - mean) / max(sqrt(variance), 1e-7)`` (``invert=True``: the inverse).

    Args:
      axis: the axis or axes that keep their own mean and variance (-1: one per feature); None: one
        scalar mean and variance for all values.
      mean, variance: the statistics; when both are None, call ``adapt(data)`` to compute them. Adapted
        statistics are weights named "mean", "variance" (and "count", as Keras keeps), saved with the model.
      invert: map normalized values back to the input's scale.
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        self.axis, self.invert = axis, invert
        if (mean is None) != (variance is None):
            raise ValueError("When setting values directly, both `mean` and `variance` must be set. "
                             f"Received: mean={mean} and variance={variance}")
        self.input_mean, self.input_variance = mean, variance
        self._mean = self._variance = None

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name, "axis": list(self.axis),
                "invert": self.invert, "mean": _listed(self.input_mean), "variance": _listed(self.input_variance)}

    def build(self, input_shape):
        ndim = len(input_shape)
        keep = sorted(a % ndim for a in self.axis)
        if any(input_shape[a] is None for a in keep):
            raise ValueError(f"All `axis` values to be kept must have a known shape. Received axis={self.axis}, "
                             f"inputs.shape={tuple(input_shape)}, with unknown axis at index "
                             f"{next(a for a in keep if input_shape[a] is None)}")
        self._keep = keep
        stat_shape = tuple(input_shape[a] for a in keep)
        self._broadcast = [input_shape[a] if a in keep else 1 for a in range(ndim)]
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=stat_shape, initializer="zeros", trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=stat_shape, initializer="ones",
                                                  trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64", initializer="zeros", trainable=False)
        else:
            shape = self._broadcast if stat_shape else [1] * ndim
            self._mean = tf.constant(np.broadcast_to(np.asarray(self.input_mean, "float32"), stat_shape)
                                     .reshape(shape), self.dtype)
            self._variance = tf.constant(np.broadcast_to(np.asarray(self.input_variance, "float32"), stat_shape)
                                         .reshape(shape), self.dtype)
        self.built = True

    def adapt(self, data):
        """Sets mean and variance to those of ``data`` (an array or a Dataset of batches) over the
        non-kept axes: the population variance, combined batch by batch."""
        count, mean, m2 = 0, None, None
        for batch in batches(data):
            batch = np.asarray(batch, "float64")
            if not self.built:
                self._maybe_build(tf.constant(batch.astype("float32")))
            if self.input_mean is not None:
                raise ValueError("Cannot adapt a Normalization layer whose mean and variance were given")
            reduce = tuple(a for a in range(batch.ndim) if a not in self._keep)
            n = int(np.prod([batch.shape[a] for a in reduce]))
            b_mean = batch.mean(axis=reduce)
            b_m2 = ((batch - batch.mean(axis=reduce, keepdims=True)) ** 2).sum(axis=reduce)
            if mean is None:
                count, mean, m2 = n, b_mean, b_m2
                continue
            total = count + n  # Chan et al.'s combination of two batches' statistics
            delta = b_mean - mean
            mean = mean + delta * n / total
            m2 = m2 + b_m2 + delta ** 2 * count * n / total
            count = total
        if mean is None:
            raise ValueError("Normalization.adapt: the data holds no batch")
        self.adapt_mean.assign(np.asarray(mean, "float32").reshape(self.adapt_mean.shape))
        self.adapt_variance.assign(np.asarray(m2 / count, "float32").reshape(self.adapt_variance.shape))

    def _statistics(self):
        if self._mean is not None:
            return self._mean, self._variance
        return tf.reshape(self.adapt_mean, self._broadcast), tf.reshape(self.adapt_variance, self._broadcast)

    @property
    def mean(self):
        return self._statistics()[0] if self.built else None

    @property
    def variance(self):
        return self._statistics()[1] if self.built else None

    def call(self, inputs):
        x = tf.cast(inputs, self.dtype) if inputs.dtype != self.dtype else inputs
        mean, variance = self._statistics()
        std = tf.maximum(tf.sqrt(variance), _EPSILON)
        return mean + x * std if self.invert else (x - mean) / std


def _listed(value):
    if value is None:
        return None
    return np.asarray(value).tolist() if not isinstance(value, (int, float)) else value
