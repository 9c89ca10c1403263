"""Elementwise math bound to registry ops: unary and binary ops, comparisons, logical ops (division,
where and clip_by_value, composed in Python, are in divide_where.py)."""
from tapegrad._ops._wrap import binary, export, public_op, unary

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
__all__ = export(globals(), _UNARY, unary) + export(globals(), _BINARY, binary) + ["atan2", "mod", "neg", "softplus"]
softplus = unary("Softplus", "softplus", arg="features")
neg = globals()["negative"]
mod = globals()["floormod"]
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
