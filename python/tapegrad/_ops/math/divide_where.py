"""Elementwise ops composed in Python: division (truediv, divide, divide_no_nan, realdiv), where,
clip_by_value and logical_xor."""
from tapegrad import dtypes
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._lib.tensors import divide_no_nan as _divide_no_nan
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["divide", "truediv", "realdiv", "where", "clip_by_value", "logical_xor"]
_realdiv = _raw.RealDiv
_div_no_nan = _raw.DivNoNan
_select = _raw.Select
_where_true = _raw.Where  # value-shaped: its length is read at every call of a tf.function


def _operands(x, y, fn):
    """x and y, tensors (a Python value took the other's dtype in the binder), of one dtype: two tensors of
    different dtypes are a TypeError, as in TF."""
    if x._dtype != y._dtype:
        raise TypeError(f"{fn}: x and y must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    return x, y


def _divide(x, y, fn):
    x, y = _operands(x, y, fn)
    return x / y


@dispatch("x, y")
def truediv(x, y, *, name=None):
    """x / y; integer inputs are divided as float32 (8 and 16 bits) or float64, as in TF."""
    return _divide(x, y, "truediv")


@dispatch("x, y")
def divide(x, y, *, name=None):
    """x / y (TF's tf.divide); integer inputs are divided as float32 (8 and 16 bits) or float64."""
    return _divide(x, y, "divide")


@dispatch("x, y")
def divide_no_nan(x, y, *, name=None):
    """x / y, 0 where y == 0 (even for a NaN x); integer inputs are divided as float32 (8 and 16 bits) or
    float64, as in TF."""
    return _divide_no_nan(*_operands(x, y, "divide_no_nan"))


@dispatch
def realdiv(x, y, name=None):
    return _realdiv(x, y)


_BOOL = dtypes.bool.code


@dispatch
def where(condition, x=None, y=None, name=None):
    """Picks x where condition is true, else y (all three broadcast)."""
    if x is None and y is None:  # the int64 [true entries, rank] indices of the true (non-zero) entries
        return _where_true(convert_arg(condition, "tensor", "where", "condition"))
    if isinstance(condition, Tensor) and isinstance(x, Tensor) and isinstance(y, Tensor) and \
            condition._dtype == _BOOL:  # nothing to convert: what the lines below would do
        return _select(condition, x, y)
    if x is None or y is None:
        raise ValueError("where: x and y must both be given")
    c = convert_to_tensor(condition, dtype=dtypes.bool)
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_arg(x, "tensor", "where", "x", y.dtype)
    x = convert_to_tensor(x)
    # y converts to x's dtype as an op input does (TF: where(c, int_tensor, 1.5) is a TypeError)
    y = y if isinstance(y, Tensor) else convert_arg(y, "tensor", "where", "y", x.dtype)
    return _select(c, x, y)


# t keeps its own dtype and the bounds take it, clip_value_max first (the binder would give t a bound's dtype)
@dispatch("t, clip_value_min:any, clip_value_max:any")
def clip_by_value(t, clip_value_min, clip_value_max, *, name=None):
    """max(min(t, clip_value_max), clip_value_min), in TF's order (so clip_value_min wins when it
    exceeds clip_value_max); NaN stays NaN; the gradient is zero where t was clipped."""
    hi = convert_arg(clip_value_max, "tensor", "clip_by_value", "clip_value_max", t.dtype)
    lo = convert_arg(clip_value_min, "tensor", "clip_by_value", "clip_value_min", t.dtype)
    return _raw.Maximum(_raw.Minimum(t, hi), lo)


@dispatch
def logical_xor(x, y, name=None):
    return _raw.NotEqual(convert_to_tensor(x, dtype=dtypes.bool), y)

