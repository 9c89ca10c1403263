"""keras.optimizers.RMSprop: gradients scaled by a moving root mean square."""
from tapegrad.keras.optimizers.base import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Update rule (s, a, p zero at first)::

        s = rho * s + (1 - rho) * g^2
        den = s - a^2 + epsilon with a = rho * a + (1 - rho) * g   if centered   else   s + epsilon
        inc = lr * g / sqrt(den)
        p = momentum * p + inc; var -= p   if momentum > 0   else   var -= inc
    """

    _OP = "ApplyRMSprop"

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop",
                 **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.rho, self.momentum, self.epsilon, self.centered = float(rho), float(momentum), float(epsilon), centered

    def build(self, var_list):
        names = ["velocity"] + (["average_gradient"] if self.centered else []) + (["momentum"] if self.momentum else [])
        self.add_slots(var_list, names)
        super().build(var_list)

    def _op_attrs(self):
        return dict(rho=self.rho, momentum=self.momentum, epsilon=self.epsilon, centered=bool(self.centered))
