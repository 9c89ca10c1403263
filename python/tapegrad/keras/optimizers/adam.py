"""keras.optimizers.Adam and AdamW (Adam with decoupled weight decay)."""
import tapegrad as tf
from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.base import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Update rule at step t = iterations + 1 (m, v zero at first)::

        m = m + (g - m) * (1 - beta_1)
        v = v + (g^2 - v) * (1 - beta_2)        (amsgrad: v_hat = max(v_hat, v), used below instead of v)
        var -= lr * sqrt(1 - beta_2^t) / (1 - beta_1^t) * m / (sqrt(v) + epsilon)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam",
                 **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = float(beta_1), float(beta_2), float(epsilon), amsgrad

    def build(self, var_list):
        self.add_slots(var_list, ["m", "v", "vhat"] if self.amsgrad else ["m", "v"])
        super().build(var_list)

    def _step_values(self):
        # Keras's rounding (Note [Keras's Adam] in cpp/ops/optim.cpp): the betas' powers, through float32,
        # in the variable's dtype; 1 - beta in the moments from the exact value.
        s = self._scalar
        return self._step_tensor(), s(self.beta_1), s(self.beta_2), s(self.epsilon)

    sparse_update_step = _sparse.adam  # an IndexedSlices gradient (Note [Sparse updates])

    def update_step(self, grad, var, lr):
        step, b1, b2, eps = self._values
        if self.amsgrad:
            m, v, vhat = self.slots(var)
            tf.raw_ops.ResourceApplyKerasAdamWithAmsgrad(var=var, m=m, v=v, vhat=vhat, local_step=step, lr=lr,
                                                         beta1=b1, beta2=b2, epsilon=eps, grad=grad)
        else:
            m, v = self.slots(var)
            tf.raw_ops.ResourceApplyKerasAdam(var=var, m=m, v=v, local_step=step, lr=lr, beta1=b1, beta2=b2,
                                              epsilon=eps, grad=grad)


class AdamW(Adam):
    """Adam with decoupled weight decay: var -= lr * weight_decay * var before each Adam update."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="AdamW", **kwargs):
        if weight_decay is None:
            raise ValueError("AdamW: weight_decay must be a float, got None")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, amsgrad=amsgrad,
                         name=name, weight_decay=weight_decay, **kwargs)
