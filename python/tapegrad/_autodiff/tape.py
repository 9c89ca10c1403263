"""GradientTape and UnconnectedGradients: the C++ tape with TF's Python surface."""
import enum

from tapegrad import _core

__all__ = ["GradientTape", "UnconnectedGradients"]


class UnconnectedGradients(enum.Enum):
    """What ``gradient`` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


GradientTape = _core.GradientTape
GradientTape.__module__ = "tapegrad"
GradientTape.__doc__ = """Records operations on watched tensors for reverse-mode differentiation (TF semantics).

    Args:
      persistent: allow several ``gradient`` calls (otherwise the second one raises).
      watch_accessed_variables: watch trainable variables read inside the context.

    >>> w = tf.Variable(3.0)
    >>> with tf.GradientTape() as tape:
    ...     y = w * w
    >>> float(tape.gradient(y, w))
    6.0
"""
# GradientTape is the C++ class itself (a Python subclass would add ~0.3 us to every `with`);
# Python-level methods such as jacobian are attached to it here.
