"""Neural-network ops of tf.nn: activations (more in the nn op family)."""
from tapegrad._ops._wrap import export, unary

_UNARY = {"relu": "Relu", "relu6": "Relu6", "elu": "Elu", "selu": "Selu"}
__all__ = export(globals(), _UNARY, unary) + ["leaky_relu"]

from tapegrad import _core  # noqa: E402

_leaky = _core.op("LeakyRelu")


def leaky_relu(features, alpha=0.2, name=None):
    return _leaky(features, alpha=float(alpha))
