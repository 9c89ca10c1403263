"""keras.optimizers.Ftrl: Follow The Regularized Leader (McMahan et al., 2013)."""
import tapegrad as tf
from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.base import Optimizer, as_keras_constant

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
    """Update rule with p = -learning_rate_power, l1 = l1_regularization_strength, l2 = the L2 strength
    plus beta / (2 lr), s = l2_shrinkage_regularization_strength (n starts at initial_accumulator_value,
    z at 0)::

        n' = n + g^2
        z += (g + 2 s * var) - (n'^p - n^p) / lr * var
        var = (clip(z, -l1, l1) - z) / (n'^p / lr + 2 l2);  n = n'
    """

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        for arg, value, sign in (("initial_accumulator_value", initial_accumulator_value, 1),
                                 ("learning_rate_power", learning_rate_power, -1),
                                 ("l1_regularization_strength", l1_regularization_strength, 1),
                                 ("l2_regularization_strength", l2_regularization_strength, 1),
                                 ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength, 1)):
            if sign * value < 0.0:  # Keras's checks and messages
                raise ValueError(f"`{arg}` needs to be {'positive' if sign > 0 else 'negative'} or zero. "
                                 f"Received: {arg}={value}.")
        self.learning_rate_power, self.initial_accumulator_value, self.beta = (learning_rate_power,
                                                                               initial_accumulator_value, beta)
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def build(self, var_list):
        self.add_slots(var_list, ["accumulator", "linear"], [as_keras_constant(self.initial_accumulator_value), 0.0])
        super().build(var_list)

    sparse_update_step = _sparse.ftrl  # an IndexedSlices gradient (Note [Sparse updates])

    def update_step(self, grad, var, lr):
        self._ftrl_step(grad, tf.square(grad), var, lr)

    def _ftrl_step(self, grad, grad_square, var, lr):
        acc, z = self.slots(var)
        lr, p = tf.cast(lr, var.dtype), -self.learning_rate_power
        l1, l2 = self.l1_regularization_strength, self.l2_regularization_strength + self.beta / (2.0 * lr)
        new_acc = acc + grad_square
        power = tf.sqrt if p == 0.5 else (lambda x: tf.pow(x, p))  # TF's graphs run Pow(x, 0.5) as Sqrt
        z.assign_add((grad + 2 * self.l2_shrinkage_regularization_strength * var)
                     - (power(new_acc) - power(acc)) / lr * var)
        var.assign((tf.clip_by_value(z, -l1, l1) - z) / (power(new_acc) / lr + 2 * l2))
        acc.assign(new_acc)
