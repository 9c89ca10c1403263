"""keras.constraints: projections applied to a weight after each optimizer step."""
import tapegrad as tf

from tapegrad.keras.saving._serialization import AutoConfig

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "max_norm", "min_max_norm", "non_neg",
           "unit_norm", "get"]


def _norms(w, axis):
    return tf.sqrt(tf.reduce_sum(tf.square(w), axis=axis, keepdims=True))


class Constraint(AutoConfig):
    """Base class: ``constraint(w)`` returns the projected weight."""

    def __call__(self, w):
        return w


class MaxNorm(Constraint):
    """Rescales each slice along ``axis`` whose L2 norm exceeds ``max_value`` to that norm."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = tf.clip_by_value(norms, 0.0, self.max_value)
        return w * (desired / (1e-7 + norms))


class MinMaxNorm(Constraint):
    """Keeps slice norms in [min_value, max_value], moving a fraction ``rate`` of the way each time."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        norms = _norms(w, self.axis)
        desired = self.rate * tf.clip_by_value(norms, self.min_value, self.max_value) + (1 - self.rate) * norms
        return w * (desired / (1e-7 + norms))


class NonNeg(Constraint):
    """Sets negative weights to zero."""

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        return w * tf.cast(w >= 0.0, w.dtype)


class UnitNorm(Constraint):
    """Rescales each slice along ``axis`` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        w = tf.convert_to_tensor(w)
        return w / (1e-7 + _norms(w, self.axis))


max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm


def get(identifier):
    if identifier is None:
        return None
    if isinstance(identifier, str):
        table = {"max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm}
        if identifier not in table:
            raise ValueError(f"Unknown constraint: '{identifier}'")
        return table[identifier]()
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret constraint identifier: {identifier!r}")
