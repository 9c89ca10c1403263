"""Elementwise math: unary and binary ops, comparisons, logical ops, where, clip_by_value."""
from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes
from tapegrad._ops._wrap import binary, convert_arg, export, public_op, unary
from tapegrad._tensor.tensor import Tensor, cast, convert_to_tensor
from tapegrad._ops import _raw

_UNARY = {
    "negative": "Neg", "square": "Square", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "exp": "Exp", "log": "Log",
    "log1p": "Log1p", "expm1": "Expm1", "sin": "Sin", "cos": "Cos", "tan": "Tan", "tanh": "Tanh",
    "sigmoid": "Sigmoid", "abs": "Abs", "sign": "Sign", "reciprocal": "Reciprocal",
    "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "asinh": "Asinh",
    "acosh": "Acosh", "atanh": "Atanh",
    "floor": "Floor", "ceil": "Ceil", "round": "Round", "erf": "Erf", "logical_not": "LogicalNot",
}
_BINARY = {
    "add": "Add", "subtract": "Sub", "multiply": "Mul", "maximum": "Maximum", "minimum": "Minimum",
    "pow": "Pow", "floordiv": "FloorDiv", "floormod": "FloorMod", "squared_difference": "SquaredDifference",
    "multiply_no_nan": "MulNoNan", "less": "Less", "less_equal": "LessEqual", "greater": "Greater",
    "greater_equal": "GreaterEqual", "equal": "Equal", "not_equal": "NotEqual",
    "logical_and": "LogicalAnd", "logical_or": "LogicalOr",
}
__all__ = export(globals(), _UNARY, unary) + export(globals(), _BINARY, binary) + [
    "divide", "truediv", "realdiv", "where", "atan2", "clip_by_value", "logical_xor", "mod", "neg", "softplus",
]
softplus = unary("Softplus", "softplus", arg="features")
neg = globals()["negative"]
mod = globals()["floormod"]
_realdiv = _raw.RealDiv
_div_no_nan = _raw.DivNoNan
atan2 = public_op("Atan2", "atan2", "y, x", "atan2(y, x, name=None): the angle of the point (x, y), in [-pi, pi].")
# tf.math only (see tapegrad/math.py): not in __all__, which the top-level namespace takes.
erfinv = unary("Erfinv", "erfinv", "erfinv(x, name=None): the inverse of erf on [-1, 1] (+-inf at +-1).")
lgamma = unary("Lgamma", "lgamma", "lgamma(x, name=None): log|Gamma(x)| (inf at the poles 0, -1, -2, ...).")
digamma = unary("Digamma", "digamma", "digamma(x, name=None): d/dx lgamma(x) (NaN at the poles).")
polygamma = public_op("Polygamma", "polygamma", "a, x",
                      "polygamma(a, x, name=None): the a-th derivative of digamma at x, for whole a >= 0 (NaN for "
                      "other a); no gradient with respect to a.")
xlogy = binary("Xlogy", "xlogy", "xlogy(x, y, name=None): x * log(y), 0 where x == 0 (even for a NaN y).")
xdivy = binary("Xdivy", "xdivy", "xdivy(x, y, name=None): x / y, 0 where x == 0 (even for a NaN y).")
_select = _raw.Select
_where_true = _raw.Where  # value-shaped: its length is read at every call of a tf.function


def _operands(x, y, fn):
    """x and y as tensors of one dtype: a Python value takes the other's dtype; two tensors of different
    dtypes are a TypeError, as in TF."""
    if not isinstance(x, Tensor):
        x = convert_arg(x, "tensor", fn, "x", y.dtype if isinstance(y, Tensor) else None)
    if not isinstance(y, Tensor):
        y = convert_arg(y, "tensor", fn, "y", x.dtype)
    if x._dtype != y._dtype:
        raise TypeError(f"{fn}: x and y must have the same dtype, got {x.dtype.name} and {y.dtype.name}")
    return x, y


def _divide(x, y, fn):
    x, y = _operands(x, y, fn)
    return x / y


@dispatch
def truediv(x, y, name=None):
    """x / y; integer inputs are divided as float64, as in TF."""
    return _divide(x, y, "truediv")


@dispatch
def divide(x, y, name=None):
    """x / y (TF's tf.divide); integer inputs are divided as float64."""
    return _divide(x, y, "divide")


@dispatch
def divide_no_nan(x, y, name=None):
    """x / y, 0 where y == 0 (even for a NaN x); integer inputs are divided as float64, as in TF."""
    x, y = _operands(x, y, "divide_no_nan")
    if x.dtype.is_integer:
        x, y = cast(x, dtypes.float64), cast(y, dtypes.float64)
    return _div_no_nan(x, y)


@dispatch
def realdiv(x, y, name=None):
    return _realdiv(x, y)


@dispatch
def where(condition, x=None, y=None, name=None):
    """Picks x where condition is true, else y (all three broadcast)."""
    if x is None and y is None:  # the int64 [true entries, rank] indices of the true (non-zero) entries
        return _where_true(convert_arg(condition, "tensor", "where", "condition"))
    if x is None or y is None:
        raise ValueError("where: x and y must both be given")
    c = convert_to_tensor(condition, dtype=dtypes.bool)
    if not isinstance(x, Tensor) and isinstance(y, Tensor):
        x = convert_arg(x, "tensor", "where", "x", y.dtype)
    x = convert_to_tensor(x)
    # y converts to x's dtype as an op input does (TF: where(c, int_tensor, 1.5) is a TypeError)
    y = y if isinstance(y, Tensor) else convert_arg(y, "tensor", "where", "y", x.dtype)
    return _select(c, x, y)


@dispatch
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """max(min(t, clip_value_max), clip_value_min), in TF's order (so clip_value_min wins when it
    exceeds clip_value_max); NaN stays NaN; the gradient is zero where t was clipped."""
    t = convert_arg(t, "tensor", "clip_by_value", "t")
    hi = convert_arg(clip_value_max, "tensor", "clip_by_value", "clip_value_max", t.dtype)
    lo = convert_arg(clip_value_min, "tensor", "clip_by_value", "clip_value_min", t.dtype)
    return globals()["maximum"](globals()["minimum"](t, hi), lo)


@dispatch
def logical_xor(x, y, name=None):
    return globals()["not_equal"](convert_to_tensor(x, dtype=dtypes.bool), y)

