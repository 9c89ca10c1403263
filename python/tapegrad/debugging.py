"""``tf.debugging``: finding where a NaN or Inf first appears."""
import numpy as np

from tapegrad import _core
from tapegrad._tensor import convert_to_tensor

__all__ = ["check_numerics", "enable_check_numerics", "disable_check_numerics"]


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """From now on the first op whose result (or gradient) holds a NaN or Inf raises
    InvalidArgumentError naming the op and the Python file and line that ran it.

    Off by default; when off it costs one branch per op.
    """
    _core._set_check_numerics(True)


def disable_check_numerics():
    _core._set_check_numerics(False)


def check_numerics(tensor, message, name=None):
    """Returns ``tensor``; raises InvalidArgumentError with ``message`` if it holds NaN or Inf."""
    t = convert_to_tensor(tensor)
    if t.dtype.is_floating and not np.isfinite(t.numpy()).all():
        bad = "NaN" if np.isnan(t.numpy()).any() else "Inf"
        raise _core.InvalidArgumentError(f"{message} : Tensor had {bad} values")
    return t
