"""Exception classes, as in ``tf.errors``."""
from tapegrad._core import InvalidArgumentError

__all__ = ["InvalidArgumentError", "OperatorNotAllowedInGraphError"]


class OperatorNotAllowedInGraphError(TypeError):
    """A traced tensor was used where Python needs a concrete value (``if``, ``int()``, ``.numpy()``)."""
