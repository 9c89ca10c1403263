"""keras.layers: Dense, Activation, Flatten and InputLayer."""
import math

import tapegrad as tf

from tapegrad.keras import activations, backend, constraints, initializers, regularizers
from tapegrad.keras.layers.base import Layer

__all__ = ["Dense", "Activation", "Flatten", "InputLayer", "Input", "KerasInput"]


class Dense(Layer):
    """outputs = activation(inputs @ kernel + bias).

    Args:
      units: output size.
      activation: a name ("relu", "elu", ...) or a function; None is linear.
      use_bias: whether to add a bias.
      kernel_initializer, bias_initializer: names or initializers ("glorot_uniform" and "zeros").
      kernel_regularizer, bias_regularizer, activity_regularizer: penalties added to ``losses``.
      kernel_constraint, bias_constraint: projections set on the variables (``variable.constraint``).

    >>> layer = keras.layers.Dense(3, activation="relu")
    >>> layer(tf.ones([2, 4])).shape
    TensorShape([2, 3])
    """

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError(f"Dense: units must be a positive int, got {units!r}")
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape):
        self._check_rank(input_shape)
        if input_shape[-1] is None:
            raise ValueError(f"{self.name}: the last axis of the input must be known, got shape {input_shape}")
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None
        self.built = True

    def call(self, inputs):
        if inputs.ndim == 2:  # the common case: MatMul checks the shapes; the error names the layer
            try:
                out = inputs @ self.kernel
            except tf.errors.InvalidArgumentError:
                if inputs.dtype.is_integer or inputs.dtype == tf.bool:  # Keras 3's matmul promotes them to the float
                    return self.call(tf.cast(inputs, self.kernel.dtype))
                self._check_inputs(inputs)
                raise
        else:
            if inputs.dtype.is_integer or inputs.dtype == tf.bool:
                inputs = tf.cast(inputs, self.kernel.dtype)
            self._check_rank(inputs.shape)
            shape = self._check_inputs(inputs)
            lead = list(shape[:-1])
            out = tf.reshape(tf.reshape(inputs, [-1, shape[-1]]) @ self.kernel, lead + [self.units])
        if self.bias is not None:
            out = out + self.bias
        out = self.activation(out)
        if self.activity_regularizer is not None:
            self.add_loss(self.activity_regularizer(out) / out.shape[0])
        return out

    def _check_rank(self, shape):
        """Keras's input spec for Dense: min_ndim=2 (a batch of vectors, at least)."""
        if len(shape) < 2:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected min_ndim=2, "
                             f"found ndim={len(shape)}. Full shape received: {tuple(shape)}")

    def _check_inputs(self, inputs):
        """The inputs' shape; a ValueError naming the layer when its last axis does not fit the kernel."""
        shape, rows = inputs.shape, self.kernel.shape[0]
        if len(shape) == 0 or shape[-1] != rows:
            raise ValueError(f"{self.name}: expected inputs with last axis {rows}, got shape {tuple(shape)}")
        return shape

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)


class Activation(Layer):
    """Applies an activation function (a name or a function)."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class Flatten(Layer):
    """Flattens every axis but the batch axis: shape (batch, d1, d2, ...) -> (batch, d1 * d2 * ...)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)

    def call(self, inputs):
        if inputs.ndim == 0:
            raise ValueError(f"{self.name}: cannot flatten a scalar")
        rest = math.prod(inputs.shape[1:])
        # -1 for the batch: a graph traced for one batch size serves the others
        return tf.reshape(inputs, [-1 if rest else inputs.shape[0], rest])

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        return (input_shape[0], None if None in rest else math.prod(rest))


class InputLayer(Layer):
    """Declares the input shape (without the batch axis) of a Sequential model; passes inputs through."""

    def __init__(self, shape=None, batch_size=None, dtype=None, input_shape=None, batch_shape=None, name=None,
                 **kwargs):
        if shape is None:
            shape = input_shape
        if batch_shape is not None:
            batch_size, shape = batch_shape[0], batch_shape[1:]
        if shape is None:
            raise ValueError("InputLayer: give shape=(...) (the input shape without the batch axis)")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self.batch_shape = (batch_size,) + tuple(shape)
        self.built = True
        self._output_shape = self.batch_shape

    def call(self, inputs):
        return inputs


class KerasInput:
    """What ``keras.Input`` returns: a symbolic placeholder with a shape and dtype (for Sequential)."""

    def __init__(self, shape, batch_size=None, dtype=None, name=None):
        self.shape = (batch_size,) + tuple(shape)
        self.dtype = tf.as_dtype(dtype or backend.floatx())
        self.name = name

    def __repr__(self):
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype.name}>"


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None, **kwargs):  # noqa: N802 -- Keras's name
    if batch_shape is not None:
        batch_size, shape = batch_shape[0], batch_shape[1:]
    return KerasInput(shape, batch_size, dtype, name)
