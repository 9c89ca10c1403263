"""keras.layers.BatchNormalization: batch statistics in training, moving statistics at inference."""

import tapegrad as tf
from tapegrad._ops import _raw
from tapegrad.keras import constraints, initializers, regularizers
from tapegrad.keras.layers import _autocast
from tapegrad.keras.layers.base import Layer

__all__ = ["BatchNormalization", "LayerNormalization", "GroupNormalization"]


class BatchNormalization(Layer):
    """outputs = gamma (x - mean) / sqrt(var + epsilon) + beta, statistics over every axis but ``axis``.

    In training, mean and var are the batch's (biased variance) and the moving statistics are updated:
    moving = moving * momentum + batch * (1 - momentum). At inference the moving statistics are used.
    """

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.autocast = False  # statistics and weights float32 (Note [Mixed precision])
        self.axis, self.momentum, self.epsilon, self.center, self.scale = axis, momentum, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer, self.gamma_regularizer = regularizers.get(beta_regularizer), regularizers.get(gamma_regularizer)
        self.beta_constraint, self.gamma_constraint = constraints.get(beta_constraint), constraints.get(gamma_constraint)

    def build(self, input_shape):
        ndim = len(input_shape)
        axis = self.axis + ndim if self.axis < 0 else self.axis
        if not 0 <= axis < ndim or input_shape[axis] is None:
            raise ValueError(f"{self.name}: axis {self.axis} is invalid or unknown for input shape {input_shape}")
        self._axis = axis
        self._reduce_axes = [a for a in range(ndim) if a != axis]
        self._bshape = [input_shape[axis] if a == axis else 1 for a in range(ndim)]
        n = (input_shape[axis],)
        self.gamma = self.add_weight(shape=n, initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint, name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=n, initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint, name="beta") if self.center else None
        self.moving_mean = self.add_weight(shape=n, initializer=self.moving_mean_initializer, trainable=False,
                                           name="moving_mean")
        self.moving_variance = self.add_weight(shape=n, initializer=self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self.built = True

    @_autocast.in_float32
    def call(self, inputs, training=False):
        if training and self.trainable:
            mean = tf.reduce_mean(inputs, axis=self._reduce_axes, keepdims=True)
            var = tf.reduce_mean(tf.square(inputs - mean), axis=self._reduce_axes, keepdims=True)
            # tensor ops (not .numpy()), so the update is an assignment in a tf.function's graph too
            self._update_moving(self.moving_mean, mean)
            self._update_moving(self.moving_variance, var)
        else:
            mean = tf.reshape(self.moving_mean, self._bshape)
            var = tf.reshape(self.moving_variance, self._bshape)
        out = (inputs - mean) * tf.math.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            out = out * tf.reshape(self.gamma, self._bshape)
        if self.beta is not None:
            out = out + tf.reshape(self.beta, self._bshape)
        return out

    def _update_moving(self, moving, batch):
        """moving = moving * momentum + batch * (1 - momentum), outside any tape."""
        batch = tf.cast(tf.reshape(tf.stop_gradient(batch), [-1]), moving.dtype)
        moving.assign(moving * self.momentum + batch * (1.0 - self.momentum))


class LayerNormalization(Layer):
    """outputs = gamma (x - mean) / sqrt(var + epsilon) + beta, statistics per example over ``axis``
    (the last axis by default); gamma and beta have the shape of those axes."""

    supports_masking = True  # the input's mask passes on (Note [Keras masks])

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.autocast = False  # statistics and weights float32 (Note [Mixed precision])
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self.epsilon, self.center, self.scale, self.rms_scaling = epsilon, center, scale, rms_scaling
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer, self.gamma_regularizer = regularizers.get(beta_regularizer), regularizers.get(gamma_regularizer)
        self.beta_constraint, self.gamma_constraint = constraints.get(beta_constraint), constraints.get(gamma_constraint)

    def build(self, input_shape):
        ndim = len(input_shape)
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        if not all(-ndim <= a < ndim for a in axes) or any(input_shape[a] is None for a in axes):
            raise ValueError(f"{self.name} (LayerNormalization): axis {self.axis} is invalid or unknown for input "
                             f"shape {tuple(input_shape)}")
        self._axes = sorted(a % ndim for a in axes)
        shape = [input_shape[a] for a in self._axes]
        self._bshape = [input_shape[a] if a in self._axes else 1 for a in range(ndim)]
        self.gamma = self.add_weight(shape=shape, initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint, name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=shape, initializer=self.beta_initializer, regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint, name="beta") if self.center else None
        self.built = True

    @_autocast.in_float32
    def call(self, inputs):
        if self.rms_scaling:
            out = inputs * tf.math.rsqrt(tf.reduce_mean(tf.square(inputs), axis=self._axes, keepdims=True) + self.epsilon)
            return out * tf.reshape(self.gamma, self._bshape) if self.gamma is not None else out
        if self._axes == [len(self._bshape) - 1]:  # the last axis: one fused op each way, the same formula
            out = _raw.LayerNorm(inputs, epsilon=float(self.epsilon))
            out = out * tf.reshape(self.gamma, self._bshape) if self.gamma is not None else out
            return out + tf.reshape(self.beta, self._bshape) if self.beta is not None else out
        mean = tf.reduce_mean(inputs, axis=self._axes, keepdims=True)
        centered = inputs - mean
        var = tf.reduce_mean(tf.square(centered), axis=self._axes, keepdims=True)
        out = centered * tf.math.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            out = out * tf.reshape(self.gamma, self._bshape)
        if self.beta is not None:
            out = out + tf.reshape(self.beta, self._bshape)
        return out


class GroupNormalization(Layer):
    """The channels (``axis``) split into ``groups``; each example is normalized over each group's
    channels and every other non-batch axis, then scaled by gamma and shifted by beta per channel."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.autocast = False  # statistics and weights float32 (Note [Mixed precision])
        self.groups, self.axis, self.epsilon, self.center, self.scale = groups, axis, epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer, self.gamma_regularizer = regularizers.get(beta_regularizer), regularizers.get(gamma_regularizer)
        self.beta_constraint, self.gamma_constraint = constraints.get(beta_constraint), constraints.get(gamma_constraint)

    def build(self, input_shape):
        ndim = len(input_shape)
        if not -ndim <= self.axis < ndim or self.axis % ndim == 0 or input_shape[self.axis] is None:
            raise ValueError(f"{self.name} (GroupNormalization): axis {self.axis} is invalid or unknown for input "
                             f"shape {tuple(input_shape)}")
        channels = input_shape[self.axis]
        if self.groups <= 0 or channels % self.groups:
            raise ValueError(f"{self.name} (GroupNormalization): the number of channels ({channels}) must be a "
                             f"multiple of groups ({self.groups}); input shape {tuple(input_shape)}")
        self._axis = self.axis % ndim
        self.gamma = self.add_weight(shape=(channels,), initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                     name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=(channels,), initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                    name="beta") if self.center else None
        self.built = True

    @_autocast.in_float32
    def call(self, inputs):
        shape = list(inputs.shape)
        ndim, axis, channels = len(shape), self._axis, shape[self._axis]
        # [..., C, ...] -> [..., G, C/G, ...]; statistics over every axis but the batch and the group
        grouped = tf.reshape(inputs, shape[:axis] + [self.groups, channels // self.groups] + shape[axis + 1:])
        reduce = [a for a in range(1, ndim + 1) if a != axis]
        mean = tf.reduce_mean(grouped, axis=reduce, keepdims=True)
        centered = grouped - mean
        var = tf.reduce_mean(tf.square(centered), axis=reduce, keepdims=True)
        out = tf.reshape(centered * tf.math.rsqrt(var + self.epsilon), shape)
        bshape = [channels if a == axis else 1 for a in range(ndim)]
        if self.gamma is not None:
            out = out * tf.reshape(self.gamma, bshape)
        if self.beta is not None:
            out = out + tf.reshape(self.beta, bshape)
        return out
