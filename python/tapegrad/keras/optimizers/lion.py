"""keras.optimizers.Lion: the sign of an interpolated momentum (Chen et al., 2023)."""
import tapegrad as tf
from tapegrad.keras.optimizers.base import Optimizer, as_keras_constant

__all__ = ["Lion"]


class Lion(Optimizer):
    """Update rule (m zero at first; the betas rounded to float32, as Keras casts them)::

        var -= lr * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates "
                             f"to SignSGD. Received: beta_1={beta_1}.")
        self.beta_1, self.beta_2 = beta_1, beta_2

    def build(self, var_list):
        self.add_slots(var_list, ["momentum"])
        super().build(var_list)

    def update_step(self, grad, var, lr):
        m = self.slots(var)[0]
        b1, b2 = as_keras_constant(self.beta_1), as_keras_constant(self.beta_2)
        var.assign_sub(tf.cast(lr, var.dtype) * tf.sign(m * b1 + grad * (1.0 - b1)))
        m.assign(m * b2 + grad * (1.0 - b2))
