"""keras.optimizers.Adafactor: second moments factored into row and column means (Shazeer & Stern, 2018)."""
import tapegrad as tf
from tapegrad.keras.optimizers.base import Optimizer, as_keras_constant

__all__ = ["Adafactor"]


def _rms(x):
    return tf.sqrt(tf.reduce_mean(tf.square(x)))


def _factored_shapes(shape):
    """r, c and v of a variable of rank >= 2: r drops the last axis, c the one before it."""
    return [shape[:-1], shape[:-2] + shape[-1:], shape]


def _second_moment(slots, g2, b):
    """Updates v (with r and c when factored: slots is (r, c, v) or (v,)) from g2 = g^2 + epsilon_1 with
    decay b; returns v."""
    *rc, v = slots
    if not rc:
        v.assign(b * v + (1 - b) * g2)
        return v
    r, c = rc
    r.assign(b * r + (1 - b) * tf.reduce_mean(g2, axis=-1))
    c.assign(b * c + (1 - b) * tf.reduce_mean(g2, axis=-2))
    v.assign(tf.expand_dims(r / tf.reduce_mean(r, axis=-1, keepdims=True), -1) * tf.expand_dims(c, -2))
    return v


class Adafactor(Optimizer):
    """Update rule at step t = iterations + 1, with rho = min(lr, 1 / sqrt(t)) and b = 1 - t^beta_2_decay
    (r, c, v zero at first; a variable of rank >= 2 keeps r and c over its last two axes, v follows)::

        g2 = g^2 + epsilon_1
        rank >= 2:  r = b r + (1 - b) mean(g2, -1);  c = b c + (1 - b) mean(g2, -2)
                    v = (r / mean(r, -1))[..., None] * c[..., None, :]
        otherwise:  v = b v + (1 - b) g2
        u = g / sqrt(v)
        var -= max(epsilon_2, rms(var)) * rho * u / max(1, rms(u) / clip_threshold)

    rho is min(lr, 1 / sqrt(t)) whatever relative_step says: Keras takes that minimum once for
    relative_step and once more for rho.
    """

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3, clip_threshold=1.0,
                 relative_step=True, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_2_decay, self.epsilon_1, self.epsilon_2 = beta_2_decay, epsilon_1, epsilon_2
        self.clip_threshold, self.relative_step = clip_threshold, relative_step

    def build(self, var_list):
        for var in var_list:  # in the variables' order, as Keras
            if len(var.shape) >= 2:
                self.add_slots([var], ["r", "c", "velocity"], shapes=lambda v: _factored_shapes(tuple(v.shape)))
            else:
                self.add_slots([var], ["velocity"])
        super().build(var_list)

    def update_step(self, grad, var, lr):
        slots = self.slots(var)
        t = tf.cast(self._step_tensor(), var.dtype)
        rho = tf.minimum(tf.cast(lr, var.dtype), 1 / tf.sqrt(t))
        alpha = tf.maximum(tf.constant(as_keras_constant(self.epsilon_2), var.dtype), _rms(var)) * rho
        v = _second_moment(slots, tf.square(grad) + self.epsilon_1, 1 - tf.pow(t, self.beta_2_decay))
        u = grad / tf.sqrt(v)
        var.assign_sub(alpha * (u / tf.maximum(tf.constant(1.0, var.dtype), _rms(u) / self.clip_threshold)))
