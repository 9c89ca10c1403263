"""Element types: ``tf.float32`` and friends, with their NumPy equivalents."""
import builtins
import warnings

import ml_dtypes
import numpy as np

__all__ = ["DType", "bfloat16", "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
           "uint32", "uint64", "bool", "string", "as_dtype", "double", "half"]


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
        return self.code in _FLOAT_CODES

    @property
    def is_integer(self):
        return self.code in _INT_CODES

    @property
    def is_unsigned(self):
        return self.code in _UNSIGNED_CODES

    @property
    def is_bool(self):
        return self.code == 4

    @property
    def is_complex(self):
        return False

    @property
    def is_quantized(self):
        return False

    @property
    def is_numeric(self):
        return self.code in _FLOAT_CODES or self.code in _INT_CODES

    @property
    def is_numpy_compatible(self):
        return True

    @property
    def base_dtype(self):
        return self

    @property
    def real_dtype(self):
        return self

    @property
    def as_datatype_enum(self):
        """TF's DataType number (types.proto)."""
        return _DATATYPE_ENUMS[self.name]

    @property
    def min(self):
        if self.is_floating:
            return np.finfo(self.as_numpy_dtype).min
        if self.is_integer:
            return int(np.iinfo(self.as_numpy_dtype).min)
        raise TypeError(f"Cannot find minimum value of {self} with type {self}.")

    @property
    def max(self):
        if self.is_floating:
            return np.finfo(self.as_numpy_dtype).max
        if self.is_integer:
            return int(np.iinfo(self.as_numpy_dtype).max)
        raise TypeError(f"Cannot find maximum value of {self} with type {self}.")

    @property
    def limits(self):
        """TF's image-range limits with the lower bound clipped to 0: (0, max) of an integer type, (0, 1)
        of float32/float64, (0, True) of bool; float16 has none (ValueError)."""
        if self.is_integer:
            return 0, self.max
        if self.code in (0, 1):
            return 0, 1
        if self.code == 4:
            return 0, True
        raise ValueError(f"{self} does not have defined limits.")

    def is_compatible_with(self, other):
        return self == other

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


# The codes are the C++ DType's (Note [Element types] in cpp/core/dtype.h); 5 is the string type.
float32 = DType("float32", 0, np.float32)
float64 = DType("float64", 1, np.float64)
int32 = DType("int32", 2, np.int32)
int64 = DType("int64", 3, np.int64)
bool = DType("bool", 4, np.bool_)  # noqa: A001 -- TF's name
string = DType("string", 5, np.object_)  # byte strings; in Python only (tapegrad._tensor.string_tensor)
uint8 = DType("uint8", 6, np.uint8)
int8 = DType("int8", 7, np.int8)
int16 = DType("int16", 8, np.int16)
uint16 = DType("uint16", 9, np.uint16)
uint32 = DType("uint32", 10, np.uint32)
uint64 = DType("uint64", 11, np.uint64)
float16 = DType("float16", 12, np.float16)
bfloat16 = DType("bfloat16", 13, ml_dtypes.bfloat16)  # NumPy's bfloat16 is ml_dtypes', as TF's
double = float64  # TF's aliases (tf.double, tf.half)
half = float16
_BY_CODE = (float32, float64, int32, int64, bool, string, uint8, int8, int16, uint16, uint32, uint64, float16,
            bfloat16)
_FLOAT_CODES = frozenset((0, 1, 12, 13))
_INT_CODES = frozenset((2, 3, 6, 7, 8, 9, 10, 11))
_UNSIGNED_CODES = frozenset((6, 9, 10, 11))
_DATATYPE_ENUMS = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
                   "int64": 9, "bool": 10, "bfloat16": 14, "uint16": 17, "float16": 19, "uint32": 22, "uint64": 23}
_BY_NAME = {d.name: d for d in _BY_CODE}
_BY_NAME.update(double=float64, float=float32, half=float16)


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
                    f"({type(type_value).__name__}) to a DType")


def from_code(code):
    return _BY_CODE[code]
