"""tf.math.is_nan, is_inf and is_finite: float comparisons (NaN is the only value unequal to itself,
and every comparison with NaN is false), so they run wherever comparisons do, traced graphs included."""
from tapegrad._ops._dispatch import dispatch
from tapegrad import errors
from tapegrad._ops.math import _common
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["is_nan", "is_inf", "is_finite"]

_INF = float("inf")


def _float_input(x, fn):
    t = x if isinstance(x, Tensor) else convert_to_tensor(x)
    if not t.dtype.is_floating:
        raise errors.InvalidArgumentError(None, None, f"{fn}: argument 'x' must be a float tensor, got {t.dtype.name}")
    return t


@dispatch
def is_nan(x, name=None):
    """True where ``x`` is NaN."""
    return _common.is_nan(_float_input(x, "is_nan"))


@dispatch
def is_inf(x, name=None):
    """True where ``x`` is +inf or -inf."""
    return _common.is_inf(_float_input(x, "is_inf"))


@dispatch
def is_finite(x, name=None):
    """True where ``x`` is neither NaN nor infinite."""
    t = _float_input(x, "is_finite")
    return abs(t) < _INF
