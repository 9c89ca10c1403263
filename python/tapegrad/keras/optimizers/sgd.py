"""keras.optimizers.SGD: gradient descent with optional (Nesterov) momentum."""
import tapegrad as tf
from tapegrad.keras.optimizers.base import Optimizer, as_keras_constant

__all__ = ["SGD"]


class SGD(Optimizer):
    """Update rule (m is the velocity, zero at first)::

        m = momentum * m - lr * g
        var += momentum * m - lr * g   if nesterov else   m
        (var -= lr * g when momentum == 0)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError(f"SGD: momentum must be in [0, 1], got {momentum}")
        self.momentum, self.nesterov = float(momentum), bool(nesterov)

    def build(self, var_list):
        self.add_slots(var_list, ["momentum"] if self.momentum else [])
        super().build(var_list)

    def _step_values(self):
        return (self._scalar(as_keras_constant(self.momentum)),)

    def update_step(self, grad, var, lr):
        if not self.momentum:
            tf.raw_ops.ResourceApplyGradientDescent(var=var, alpha=lr, delta=grad)
            return
        tf.raw_ops.ResourceApplyKerasMomentum(var=var, accum=self.slots(var)[0], lr=lr, grad=grad,
                                              momentum=self._values[0], use_nesterov=self.nesterov)
