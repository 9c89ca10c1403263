"""keras.layers activation layers: ReLU, LeakyReLU, PReLU, ELU and Softmax."""
import tapegrad as tf

from tapegrad.keras import constraints, initializers, regularizers
from tapegrad.keras.layers.base import Layer

__all__ = ["ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax"]


class ReLU(Layer):
    """x for x >= threshold, else negative_slope * (x - threshold); capped at max_value when given."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0:
            raise ValueError(f"ReLU: max_value of a ReLU layer cannot be negative, got {max_value}")
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"ReLU: negative_slope of a ReLU layer cannot be negative or None, got {negative_slope}")
        if threshold is None or threshold < 0:
            raise ValueError(f"ReLU: threshold of a ReLU layer cannot be negative or None, got {threshold}")
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        if self.negative_slope == 0 and self.threshold == 0:
            out = tf.nn.relu(inputs)
        else:
            shifted = inputs - self.threshold
            out = tf.where(inputs >= self.threshold, inputs, shifted * self.negative_slope)
        if self.max_value is not None:
            out = tf.minimum(out, tf.cast(self.max_value, out.dtype))
        return out


class LeakyReLU(Layer):
    """x for x >= 0, else negative_slope * x (Keras 3's argument; ``alpha`` is Keras 2's name)."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"LeakyReLU: negative_slope must be a number >= 0, got {negative_slope}")
        self.negative_slope = negative_slope

    def call(self, inputs):
        return tf.nn.leaky_relu(inputs, alpha=self.negative_slope)


class PReLU(Layer):
    """x for x >= 0, else alpha * x with a learned alpha per input element (shared along ``shared_axes``)."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        self.shared_axes = None if shared_axes is None else \
            [shared_axes] if isinstance(shared_axes, int) else list(shared_axes)

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            if not 1 <= axis < len(input_shape):
                raise ValueError(f"{self.name} (PReLU): shared axis {axis} is out of range for input shape {input_shape}")
            shape[axis - 1] = 1
        if any(d is None for d in shape):
            raise ValueError(f"{self.name} (PReLU): unknown axes must be shared, input shape {input_shape}")
        self.alpha = self.add_weight(shape=shape, initializer=self.alpha_initializer, regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint, name="alpha")
        self.built = True

    def call(self, inputs):
        return tf.nn.relu(inputs) - self.alpha * tf.nn.relu(-inputs)


class ELU(Layer):
    """x for x > 0, else alpha * (exp(x) - 1)."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        out = tf.nn.elu(inputs)
        return out if self.alpha == 1.0 else tf.where(inputs > 0, out, out * self.alpha)


class Softmax(Layer):
    """softmax along ``axis`` (an int or a list of axes); a ``mask`` (True = keep) drops entries first."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        if mask is not None:
            inputs = inputs + (1.0 - tf.cast(mask, inputs.dtype)) * tf.cast(-1e9, inputs.dtype)
        if isinstance(self.axis, (list, tuple)):
            return tf.exp(inputs - tf.reduce_logsumexp(inputs, axis=self.axis, keepdims=True))
        return tf.nn.softmax(inputs, axis=self.axis)
