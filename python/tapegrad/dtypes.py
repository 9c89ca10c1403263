"""Element types: ``tf.float32`` and friends, with their NumPy equivalents."""
import builtins
import warnings

import numpy as np

__all__ = ["DType", "float32", "float64", "int32", "int64", "bool", "string", "as_dtype", "double"]


class DType:
    """A tensor element type. Compares equal to its name and to the NumPy dtype."""

    __slots__ = ("name", "code", "as_numpy_dtype", "size")

    def __init__(self, name, code, np_type):
        self.name = name
        self.code = code
        self.as_numpy_dtype = np_type
        self.size = np.dtype(np_type).itemsize

    @property
    def is_floating(self):
        return self.code in (0, 1)

    @property
    def is_integer(self):
        return self.code in (2, 3)

    @property
    def is_bool(self):
        return self.code == 4

    @property
    def base_dtype(self):
        return self

    @property
    def min(self):
        return np.finfo(self.as_numpy_dtype).min if self.is_floating else np.iinfo(self.as_numpy_dtype).min

    @property
    def max(self):
        return np.finfo(self.as_numpy_dtype).max if self.is_floating else np.iinfo(self.as_numpy_dtype).max

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return f"<dtype: '{self.name}'>"

    def __eq__(self, other):
        if type(other) is DType:  # the common case, without as_dtype's conversions
            return self is other
        try:
            return self is as_dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.name)


float32 = DType("float32", 0, np.float32)
float64 = DType("float64", 1, np.float64)
int32 = DType("int32", 2, np.int32)
int64 = DType("int64", 3, np.int64)
bool = DType("bool", 4, np.bool_)  # noqa: A001 -- TF's name
double = float64  # TF's alias (tf.double, tf.dtypes.double)
string = DType("string", 5, np.object_)  # byte strings; in Python only (tapegrad._tensor.string_tensor)
_BY_CODE = (float32, float64, int32, int64, bool, string)
_BY_NAME = {d.name: d for d in _BY_CODE}
_BY_NAME.update(double=float64, float=float32, half=None)


def as_dtype(type_value):
    """Converts a DType, its name, a NumPy dtype or a Python type to a DType."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str) and _BY_NAME.get(type_value) is not None:
        return _BY_NAME[type_value]
    if type_value is float:
        return float32
    if type_value is int:
        return int32
    if type_value is builtins.bool:
        return bool
    try:
        if type_value is None:  # np.dtype(None) would be float64
            raise TypeError
        with warnings.catch_warnings():  # NumPy's deprecated aliases ('a') are refused below, not warned
            warnings.simplefilter("ignore", DeprecationWarning)
            np_dtype = np.dtype(type_value)
    except (TypeError, ValueError):  # ValueError: an object whose .dtype NumPy cannot read (a Tensor)
        np_dtype = None
    if np_dtype is not None and np_dtype.kind in "OSU":  # object, bytes and str arrays hold strings, as in TF
        return string
    for d in _BY_CODE:
        if np_dtype is not None and np.dtype(d.as_numpy_dtype) == np_dtype:
            return d
    text = repr(type_value)
    raise TypeError(f"as_dtype: cannot convert the argument `type_value`: {text[:57] + '...' if len(text) > 60 else text} "
                    f"({type(type_value).__name__}) to a DType (float32, float64, int32, int64 or bool)")


def from_code(code):
    return _BY_CODE[code]
