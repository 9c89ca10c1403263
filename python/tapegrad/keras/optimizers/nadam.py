"""keras.optimizers.Nadam: Adam with Nesterov momentum (Dozat's momentum schedule)."""
import tapegrad as tf
from tapegrad.keras.optimizers import _sparse
from tapegrad.keras.optimizers.base import Optimizer

__all__ = ["Nadam"]


class Nadam(Optimizer):
    """Update rule at step t = iterations + 1, with u_t = beta_1 (1 - 0.5 * 0.96^t) and P_t = u_1 ... u_t::

        m = m + (g - m) * (1 - beta_1);  v = v + (g^2 - v) * (1 - beta_2)
        m_hat = u_{t+1} m / (1 - P_t u_{t+1}) + (1 - u_t) g / (1 - P_t)
        var -= lr * m_hat / (sqrt(v / (1 - beta_2^t)) + epsilon)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)

    def build(self, var_list):
        self.add_slots(var_list, ["m", "v"])
        super().build(var_list)

    def _step_values(self):
        s = self._scalar
        return self._step_tensor(), s(self.beta_1), s(self.beta_2), s(self.epsilon)

    sparse_update_step = _sparse.nadam  # an IndexedSlices gradient (Note [Sparse updates])

    def update_step(self, grad, var, lr):
        m, v = self.slots(var)
        step, b1, b2, eps = self._values
        tf.raw_ops.ResourceApplyNadam(var=var, m=m, v=v, local_step=step, lr=lr, beta1=b1, beta2=b2, epsilon=eps,
                                      grad=grad)
