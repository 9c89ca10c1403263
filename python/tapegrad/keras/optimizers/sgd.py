"""keras.optimizers.SGD: gradient descent with optional (Nesterov) momentum."""
from tapegrad import _core
from tapegrad.keras.optimizers.base import Optimizer

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
        if self.momentum:
            self.add_slots(var_list, ["momentum"])
        super().build(var_list)

    def update_step(self, grad, var, lr):
        mom = self.slots(var)[0] if self.momentum else None
        _core.sgd_update(var, mom, grad, lr, self.momentum, self.nesterov, self._decay_for(var, lr))
