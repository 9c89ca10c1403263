"""keras.optimizers.Adamax: Adam with the infinity norm of the gradients in place of their second moment."""
import tapegrad as tf
from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.base import Optimizer, as_keras_constant

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Update rule at step t = iterations + 1 (m, u zero at first)::

        m = m + (g - m) * (1 - beta_1)
        u = max(beta_2 * u, |g|)
        var -= lr * m / ((1 - beta_1^t) * (u + epsilon))

    Written in ops in the variable's dtype, as Keras: beta_1^t from beta_1 rounded to float32.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def build(self, var_list):
        self.add_slots(var_list, ["momentum", "norm"])
        super().build(var_list)

    sparse_update_step = _sparse.adamax  # an IndexedSlices gradient (Note [Sparse updates])

    def update_step(self, grad, var, lr):
        m, u = self.slots(var)
        lr, t = tf.cast(lr, var.dtype), tf.cast(self._step_tensor(), var.dtype)
        beta_1_power = tf.pow(tf.constant(as_keras_constant(self.beta_1), var.dtype), t)
        m.assign_add((grad - m) * (1 - self.beta_1))
        u.assign(tf.maximum(self.beta_2 * u, tf.abs(grad)))
        var.assign_sub(lr * m / ((1 - beta_1_power) * (u + self.epsilon)))
