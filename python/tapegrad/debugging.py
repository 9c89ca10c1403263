"""``tf.debugging``: finding where a NaN or Inf first appears, and the assertions."""
from tapegrad import _core
from tapegrad._ops.debugging import asserts as _asserts
from tapegrad._ops.debugging import assert_static as _assert_static
from tapegrad._ops.debugging.assert_static import *  # noqa: F401,F403
from tapegrad._ops.debugging.asserts import *  # noqa: F401,F403

__all__ = ["check_numerics", "enable_check_numerics", "disable_check_numerics"] + _asserts.__all__ + \
    _assert_static.__all__


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on the first op whose result (or gradient) holds a NaN or Inf raises
    InvalidArgumentError naming the op and the Python file and line that ran it.

    Off by default; when off it costs one branch per op.
    """
    _core._set_check_numerics(True)


def disable_check_numerics():
    _core._set_check_numerics(False)


def check_numerics(tensor, message, name=None):
    """Returns ``tensor``; raises InvalidArgumentError with ``message`` if it holds NaN or Inf (inside a
    tf.function, at every call of the graph)."""
    return _asserts.assert_all_finite(tensor, message)
