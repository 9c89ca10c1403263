"""keras.optimizers.Adagrad: per-parameter rates from the accumulated squared gradients."""
import tapegrad as tf
from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.base import Optimizer, as_keras_constant

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Update rule (acc starts at initial_accumulator_value)::

        acc += g^2
        var -= lr * g / sqrt(acc + epsilon)     (as tf.keras; TF's fused ApplyAdagradV2 adds epsilon
                                                 after the sqrt, so the update is written in ops)
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.initial_accumulator_value, self.epsilon = float(initial_accumulator_value), float(epsilon)

    def build(self, var_list):
        self.add_slots(var_list, ["accumulator"], as_keras_constant(self.initial_accumulator_value))
        super().build(var_list)

    def _step_values(self):
        return (self._scalar(self.epsilon),)

    sparse_update_step = _sparse.adagrad  # an IndexedSlices gradient (Note [Sparse updates])

    def update_step(self, grad, var, lr):
        acc = self.slots(var)[0]
        acc.assign_add(grad * grad)
        var.assign_sub(tf.cast(lr, var.dtype) * grad / tf.sqrt(acc + tf.cast(self._values[0], var.dtype)))
