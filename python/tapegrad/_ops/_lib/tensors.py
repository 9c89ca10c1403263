"""Functions on tensors that ops composed in Python share: picking entries, lists of tensors, sqrt with
a finite gradient at 0, add_n's sum."""
from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import Tensor, cast, convert_to_tensor

__all__ = ["select", "tensor_list", "safe_sqrt", "sum_of", "divide_no_nan"]


def select(condition, x, y):
    """x where condition (bool) holds, else y, all three broadcast; a Python value takes the dtype of the
    other operand (the Select op's own inputs would give it the condition's)."""
    if not isinstance(x, Tensor):
        x = convert_to_tensor(x, dtype=y.dtype) if isinstance(y, Tensor) else convert_to_tensor(x)
    if not isinstance(y, Tensor):
        y = convert_to_tensor(y, dtype=x.dtype)
    return _raw.Select(condition, x, y)


def tensor_list(values, op, arg):
    """values (a list, tuple or other iterable of tensors) as a list; anything else is a TypeError naming op."""
    if values is None or isinstance(values, (str, bytes, dict)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{op}: {arg} must be a list of tensors, got {type(values).__name__} {values!r}")
    return list(values)


def safe_sqrt(s):
    """sqrt(s) for s >= 0 whose gradient at s == 0 is 0 (a subgradient) instead of inf * 0 = NaN.

    Only s == 0 is masked: a NaN sum stays NaN (so a norm reports a diverging gradient).
    """
    s = convert_to_tensor(s)
    nonzero = _raw.NotEqual(s, 0.0)
    return select(nonzero, _raw.Sqrt(select(nonzero, s, 1.0)), 0.0)


def sum_of(inputs):
    """tf.add_n of a non-empty list: its tensors, of one shape and dtype, summed (no broadcasting, as TF)."""
    ts = [convert_arg(t, "tensor", "add_n", "inputs") for t in inputs]
    for t in ts[1:]:
        if t._shape != ts[0]._shape or t._dtype != ts[0]._dtype:
            raise _core.InvalidArgumentError(f"AddN: inputs must all have the shape and dtype of the first, got "
                                             f"{ts[0].dtype.name}{tuple(ts[0]._shape)} and {t.dtype.name}{tuple(t._shape)}")
    total = ts[0]
    for t in ts[1:]:
        total = total + t
    return total


def divide_no_nan(x, y):
    """x / y for two tensors of one dtype, 0 where y == 0; integers are divided as float32 (8 and 16
    bits) or float64, as TF's."""
    if x.dtype.is_integer:
        wide = dtypes.float32 if x.dtype.size <= 2 else dtypes.float64
        x, y = cast(x, wide), cast(y, wide)
    return _raw.DivNoNan(x, y)
