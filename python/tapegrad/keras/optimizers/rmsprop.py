"""keras.optimizers.RMSprop: gradients scaled by a moving root mean square."""
import tapegrad as tf
from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.base import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Update rule (s, a, p zero at first)::

        s = rho * s + (1 - rho) * g^2
        den = s - a^2 + epsilon with a = rho * a + (1 - rho) * g   if centered   else   s + epsilon
        inc = lr * g / sqrt(den)
        p = momentum * p + inc; var -= p   if momentum > 0   else   var -= inc
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = float(rho), float(momentum), float(epsilon), centered

    def build(self, var_list):
        # TF's fused RMSProp always keeps the momentum buffer (with momentum 0 it holds the last increment).
        self.add_slots(var_list, ["velocity", "momentum"] + (["average_gradient"] if self.centered else []))
        super().build(var_list)

    def _step_values(self):
        return self._scalar(self.rho), self._scalar(self.momentum), self._scalar(self.epsilon)

    sparse_update_step = _sparse.rmsprop  # an IndexedSlices gradient (Note [Sparse updates])

    def update_step(self, grad, var, lr):
        ms, mom, *mg = self.slots(var)
        rho, momentum, eps = self._values
        if self.centered:
            tf.raw_ops.ResourceApplyCenteredRMSProp(var=var, mg=mg[0], ms=ms, mom=mom, lr=lr, rho=rho, momentum=momentum,
                                                    epsilon=eps, grad=grad)
        else:
            tf.raw_ops.ResourceApplyRMSProp(var=var, ms=ms, mom=mom, lr=lr, rho=rho, momentum=momentum, epsilon=eps,
                                            grad=grad)
