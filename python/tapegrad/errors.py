"""Exception classes, as in ``tf.errors``."""
from tapegrad._core import InvalidArgumentError

__all__ = ["InvalidArgumentError"]
