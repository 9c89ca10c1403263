"""keras.regularizers: weight penalties added to ``layer.losses`` (one scalar per regularized weight)."""
import tapegrad as tf

from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2", "get"]


class Regularizer(AutoConfig):
    """Base class: ``reg(weight)`` returns a scalar penalty."""

    def __call__(self, x):
        return tf.constant(0.0)


class L1L2(Regularizer):
    """penalty = l1 * sum(|x|) + l2 * sum(x^2)."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        penalty = None
        if self.l1:
            penalty = self.l1 * tf.reduce_sum(tf.abs(x))
        if self.l2:
            term = self.l2 * tf.reduce_sum(tf.square(x))
            penalty = term if penalty is None else penalty + term
        return penalty if penalty is not None else tf.zeros([], tf.convert_to_tensor(x).dtype)


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)


class OrthogonalRegularizer(Regularizer):
    """factor * mean of |off-diagonal entries| of the Gram matrix of the unit-normed rows (or columns)."""

    def __init__(self, factor=0.01, mode="rows"):
        if mode not in ("rows", "columns"):
            raise ValueError(f"OrthogonalRegularizer: mode must be 'rows' or 'columns', got {mode!r}")
        self.factor, self.mode = factor, mode

    def __call__(self, x):
        x = tf.convert_to_tensor(x)
        if self.mode == "columns":
            x = tf.transpose(x)
        x = x / tf.sqrt(tf.reduce_sum(tf.square(x), axis=1, keepdims=True) + 1e-12)
        n = x.shape[0]
        gram = tf.matmul(x, x, transpose_b=True)
        off = tf.abs(gram) * tf.constant(1.0 - __import__("numpy").eye(n), dtype=x.dtype)
        return self.factor * tf.reduce_sum(off) / (n * (n - 1))


def l1(l1=0.01):  # noqa: E743 -- Keras's names
    return L1(l1)


def l2(l2=0.01):
    return L2(l2)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1, l2)


def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, str):
        table = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2,
                 "orthogonal_regularizer": OrthogonalRegularizer}
        if identifier not in table:
            raise ValueError(f"Unknown regularizer: '{identifier}'")
        return table[identifier]()
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret regularizer identifier: {identifier!r}")
