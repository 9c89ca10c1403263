"""Tensors of dtype tf.string: byte strings over a NumPy object array, in Python. Strings are not on
the hot path and have no gradients, so they never reach the C++ engine; they behave as TF's eager
string tensors for constants, comparison, indexing, printing, pickling and the tf.strings ops."""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor import tensor as _tensor

__all__ = ["StringTensor", "is_text", "string_constant", "empty_nest"]


def _as_bytes(item):
    if isinstance(item, bytes):
        return bytes(item)
    if isinstance(item, str):
        return item.encode("utf-8")
    raise TypeError(f"Failed to convert elements of a string tensor: {type(item).__name__} {item!r} is not a "
                    "str or bytes")


_to_bytes = np.frompyfunc(_as_bytes, 1, 1)


def _bytes_array(value):
    """``value`` (str, bytes, nested lists of them, a NumPy str/bytes/object array) as an object array of
    bytes; ragged lists and non-strings are refused."""
    if isinstance(value, StringTensor):
        return value._value
    try:
        a = np.array(value, dtype=object)
    except ValueError:
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}") from None
    if a.dtype != object or any(isinstance(x, (list, tuple)) for x in a.flat):
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: {value!r}")
    return np.asarray(_to_bytes(a), dtype=object).reshape(a.shape)


def is_text(value):
    """Whether ``value`` is string data: str, bytes, a (nested) list of them, or a NumPy str/bytes array."""
    if isinstance(value, (str, bytes, StringTensor)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "SU" or (value.dtype.kind == "O" and value.size > 0
                                             and isinstance(value.flat[0], (str, bytes)))
    while isinstance(value, (list, tuple)) and value:
        value = value[0]
    return isinstance(value, (str, bytes))


def empty_nest(value):
    """Whether value is lists (or an array) holding no element at all: tf.constant([], tf.string)."""
    if isinstance(value, np.ndarray):
        return value.size == 0
    return isinstance(value, (list, tuple)) and all(empty_nest(v) for v in value)


def string_constant(value, shape=None):
    a = np.empty(np.shape(value), dtype=object) if empty_nest(value) else _bytes_array(value)
    if shape is not None:
        shape = [int(d) for d in ([shape] if isinstance(shape, int) else shape)]
        a = np.full(shape, a[()], dtype=object) if a.size == 1 else a.reshape(shape)
    return StringTensor(a)


def _operand(other):
    """The other side of a comparison or +: a string tensor's values, or None if it is not strings."""
    if isinstance(other, StringTensor):
        return other._value
    return _bytes_array(other) if is_text(other) else None


def _bool_tensor(values):
    return _tensor.constant(np.asarray(values, dtype=bool))


class StringTensor:
    """An immutable tensor of byte strings (``tf.constant(["a", "b"])``): ``.numpy()`` gives bytes (an
    object array of bytes for rank >= 1), as TF's."""

    __slots__ = ("_value",)
    __array_priority__ = 100
    __hash__ = None  # elementwise ==, as every tensor
    device = "/job:localhost/replica:0/task:0/device:CPU:0"
    dtype = dtypes.string

    def __init__(self, value):
        self._value = value

    @property
    def shape(self):
        return _tensor.TensorShape(self._value.shape)

    def get_shape(self):
        return self.shape

    @property
    def _shape(self):
        return list(self._value.shape)

    @property
    def _size(self):
        return self._value.size

    @property
    def ndim(self):
        return self._value.ndim

    def numpy(self):
        return self._value[()] if self._value.ndim == 0 else self._value.copy()

    def __array__(self, dtype=None, copy=None):
        return self._value.copy() if dtype is None else self._value.astype(dtype)

    def __len__(self):
        if not self._value.ndim:
            raise TypeError("len() of a 0-d tensor is not defined")
        return len(self._value)

    def __iter__(self):
        if not self._value.ndim:
            raise TypeError("iterating over a 0-d tensor is not allowed")
        return (StringTensor(np.asarray(v, dtype=object) if self._value.ndim == 1 else v) for v in self._value)

    def __getitem__(self, key):
        if isinstance(key, StringTensor):
            raise TypeError("a string tensor cannot index a tensor")
        if hasattr(key, "numpy"):
            key = key.numpy()
        try:
            return StringTensor(np.asarray(self._value[key], dtype=object))
        except IndexError as e:
            raise errors.InvalidArgumentError(f"strided_slice: {e} (shape {self.shape})") from None

    def __eq__(self, other):
        values = _operand(other)
        return NotImplemented if values is None else _bool_tensor(self._value == values)

    def __ne__(self, other):
        values = _operand(other)
        return NotImplemented if values is None else _bool_tensor(self._value != values)

    def __add__(self, other):
        from tapegrad import strings  # (tf.add converts a number to a tensor first: InvalidArgumentError)
        return strings.join([self, strings._strings(other, "StringJoin")])

    def __radd__(self, other):
        from tapegrad import strings
        return strings.join([other, self])  # (a number on the left is TF's TypeError)

    def __bool__(self):
        raise TypeError("the truth value of a string tensor is not defined; compare it first (s == b'x')")

    def __repr__(self):
        return f"<tf.Tensor: shape={self.shape}, dtype=string, numpy={_tensor.numpy_text(self.numpy(), True)}>"

    def __str__(self):
        return f"tf.Tensor({_tensor.numpy_text(self.numpy())}, shape={self.shape}, dtype=string)"

    def __format__(self, spec):  # as TF: NumPy's format of the value
        return format(np.asarray(self.numpy()), spec)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (StringTensor, (self._value.copy(),))


def _no_arithmetic(op):
    def refuse(self, *other):
        raise errors.InvalidArgumentError(f"{op}: cannot convert a string tensor to a number (string tensors "
                                          "support ==, != and + only)")
    return refuse


# Numeric ops written in Python (norm computes x * x) meet a string tensor here and say so.
for _dunder, _op in [("__mul__", "Mul"), ("__rmul__", "Mul"), ("__sub__", "Sub"), ("__rsub__", "Sub"),
                     ("__truediv__", "RealDiv"), ("__rtruediv__", "RealDiv"), ("__floordiv__", "FloorDiv"),
                     ("__rfloordiv__", "FloorDiv"), ("__mod__", "FloorMod"), ("__rmod__", "FloorMod"),
                     ("__pow__", "Pow"), ("__rpow__", "Pow"), ("__matmul__", "MatMul"), ("__rmatmul__", "MatMul"),
                     ("__neg__", "Neg"), ("__abs__", "Abs"), ("__lt__", "Less"), ("__le__", "LessEqual"),
                     ("__gt__", "Greater"), ("__ge__", "GreaterEqual"), ("__float__", "Cast"), ("__int__", "Cast")]:
    setattr(StringTensor, _dunder, _no_arithmetic(_op))
