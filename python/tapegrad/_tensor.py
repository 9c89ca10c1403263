"""Tensor and Variable: the Python-side surface of the C++ tensor (shape, dtype, repr, conversion)."""
import os as _os
import sys as _sys

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops._wrap import convert_arg

__all__ = [
    "Tensor", "Variable", "TensorShape", "TensorSpec", "constant", "convert_to_tensor",
    "is_tensor", "cast", "identity", "stop_gradient", "shape", "size", "rank",
]

Tensor = _core.Tensor


class TensorShape(tuple):
    """The shape of a tensor: a tuple of ints (None for unknown dimensions) with TF's helpers."""

    def as_list(self):
        return list(self)

    @property
    def rank(self):
        return len(self)

    @property
    def ndims(self):
        return len(self)

    def num_elements(self):
        n = 1
        for d in self:
            if d is None:
                return None
            n *= d
        return n

    def is_compatible_with(self, other):
        other = TensorShape(other)
        return len(self) == len(other) and all(a is None or b is None or a == b for a, b in zip(self, other))

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return "(" + ", ".join("None" if d is None else str(d) for d in self) + ("," if len(self) == 1 else "") + ")"


def _dtype_of(value):
    return None if value is None else dtypes.as_dtype(value)


def _repr_numpy(t):
    a = t.numpy()
    # NumPy's own scalar str keeps float32 at float32 precision (2.7182817, as TF prints it).
    text = np.array2string(a, separator=", ") if a.ndim else str(a[()])
    return text


def _no_value(self):
    """While tracing, a tensor computed from the arguments has no fixed value, nor has a Variable
    (the graph reads it at every call)."""
    return _core._is_traced(self) or (self._is_variable and _core._tracing())


def _tensor_repr(self):
    kind = "tf.Tensor"
    if _core._is_traced(self):  # no fixed value while tracing: show how it is computed
        return f"<{kind} (traced) {_core._describe_traced(self)} shape={TensorShape(self._shape)} dtype={self.dtype.name}>"
    return f"<{kind}: shape={TensorShape(self._shape)}, dtype={self.dtype.name}, numpy={_repr_numpy(self)}>"


def _tensor_str(self):
    if _no_value(self):
        return repr(self)
    return f"tf.Tensor({_repr_numpy(self)}, shape={TensorShape(self._shape)}, dtype={self.dtype.name})"


def _check_concrete(self, what):
    if _no_value(self):
        from tapegrad._trace_context import traced_value_error
        raise traced_value_error(self, what)


def _scalar(self, kind):
    if _core._tracing():  # float(t) in an eager training loop's bookkeeping pays only for the read
        _check_concrete(self, f"{kind.__name__}()")
    if self._size != 1:
        raise TypeError(f"only tensors with one element can be converted to Python {kind.__name__}, "
                        f"got shape {TensorShape(self._shape)}")
    return kind(self._item())


def _bool(self):
    _check_concrete(self, "bool()")
    if self._size != 1:
        raise ValueError("The truth value of a tensor with more than one element is ambiguous; "
                         "use tf.reduce_any or tf.reduce_all")
    return bool(self._item())


def _format(self, spec):
    _check_concrete(self, "format()")
    if self._size == 1 and spec:
        return format(self._item(), spec)
    return format(str(self), spec)


def _iter(self):
    if not self._shape:
        raise TypeError("iterating over a 0-d tensor is not allowed")
    return (self[i] for i in range(self._shape[0]))


def _guarded(name):
    """numpy() / __array__ of the C++ class, refusing a traced tensor (no value while tracing)."""
    raw = getattr(Tensor, name)

    def guarded(self, *args, **kwargs):
        if _core._tracing():
            _check_concrete(self, f".{name}()" if name == "numpy" else "np.asarray()")
        return raw(self, *args, **kwargs)

    guarded.__name__ = name
    guarded.__doc__ = raw.__doc__
    return guarded


def _index(self):
    return _scalar(self, int) if self.dtype.is_integer else NotImplemented


def _tensor_surface():
    """What Tensor is in Python beyond the C++ class (cpp/bindings/tensor.cpp: storage, operators)."""
    from tapegrad._ops.indexing import getitem
    return {
        "_numpy_unchecked": Tensor.numpy,  # tf.print reads traced values on purpose
        "numpy": _guarded("numpy"),
        "__array__": _guarded("__array__"),
        "shape": property(lambda self: TensorShape(self._shape), doc="The shape, as a TensorShape."),
        "dtype": property(lambda self: dtypes.from_code(self._dtype), doc="The element type."),
        "__repr__": _tensor_repr,
        "__str__": _tensor_str,
        "__float__": lambda self: _scalar(self, float),
        "__int__": lambda self: _scalar(self, int),
        "__index__": _index,
        "__bool__": _bool,
        "__format__": _format,
        "__iter__": _iter,
        "__getitem__": getitem,
        "__array_priority__": 100,  # NumPy defers to our reflected operators
        "get_shape": lambda self: TensorShape(self._shape),
        "device": "/job:localhost/replica:0/task:0/device:CPU:0",
    }


def install_tensor_surface():
    """Called once by the package's __init__, when the modules the surface uses are loaded."""
    for attr, value in _tensor_surface().items():
        setattr(Tensor, attr, value)


class Variable(_core.Variable):
    """A mutable tensor: the state of a model (TF's ``tf.Variable``).

    Args:
      initial_value: a tensor, NumPy array, Python value, or a callable returning one.
      trainable: whether tapes watch it automatically and optimizers update it.
      name: an optional name.
      dtype: convert the initial value to this dtype.
      constraint: a function applied after optimizer updates (by the training loop).

    >>> v = tf.Variable(3.0); v.assign_add(1.0); float(v)
    4.0
    """

    _counter = 0

    def __init__(self, initial_value=None, trainable=True, name=None, dtype=None, constraint=None,
                 shape=None, **kwargs):
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given")
        if _core._tracing():
            from tapegrad._trace_context import _on_variable_created
            _on_variable_created()
        if callable(initial_value):
            initial_value = initial_value()
        dt = _dtype_of(dtype)
        if dt is not None and isinstance(initial_value, Tensor) and initial_value.dtype != dt:
            initial_value = cast(initial_value, dt)
        super().__init__(initial_value, -1 if dt is None else dt.code, bool(trainable))
        if name is None:
            Variable._counter += 1
            name = "Variable" if Variable._counter == 1 else f"Variable_{Variable._counter - 1}"
        self._name = name
        self.constraint = constraint

    @property
    def name(self):
        return self._name + ":0"

    def assign(self, value, use_locking=None, name=None, read_value=True):
        if _core._tracing():  # a tf.function records the assignment in its graph
            _core._traced_assign(self, value, 0)
        else:
            self._assign(value)
        return self

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        if _core._tracing():
            _core._traced_assign(self, delta, 1)
        else:
            self._assign_add(delta)
        return self

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        if _core._tracing():
            _core._traced_assign(self, delta, 2)
        else:
            self._assign_sub(delta)
        return self

    def value(self):
        return self.read_value()

    def __repr__(self):
        if _core._tracing():  # the graph reads it at every call: no value to show
            return f"<tf.Variable '{self.name}' shape={TensorShape(self._shape)} dtype={self.dtype.name} (traced)>"
        return (f"<tf.Variable '{self.name}' shape={TensorShape(self._shape)} dtype={self.dtype.name}, "
                f"numpy={_repr_numpy(self)}>")

    __str__ = __repr__  # print(v) shows the variable, as in TF

    def __reduce__(self):
        return (Variable, (self.numpy(), self.trainable, self._name))


class TensorSpec:
    """Describes a tensor argument: shape (None for unknown dimensions) and dtype."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = TensorShape([None if d is None else int(d) for d in shape]) if shape is not None else None
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def is_compatible_with(self, t):
        return self.dtype == t.dtype and (self.shape is None or self.shape.is_compatible_with(t.shape))


def is_tensor(x):
    return isinstance(x, Tensor)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts a value to a Tensor (Python floats become float32, ints int32, as in TF)."""
    try:
        if dtype is None and dtype_hint is None:  # the common call (keras converts every batch so)
            return _core.convert(value, -1)
        if dtype is not None:
            return _core.convert(value, convert_arg(dtype, "dtype", "convert_to_tensor", "dtype").code)
        hint = convert_arg(dtype_hint, "dtype", "convert_to_tensor", "dtype_hint")
        if not isinstance(value, Tensor):
            try:
                return _core.convert_hint(value, hint.code)
            except _core.InvalidArgumentError:
                pass
        return _core.convert(value, -1)
    except (_core.InvalidArgumentError, TypeError) as e:
        raise _naming_public_function(e) from None


_PACKAGE_DIR = _os.path.dirname(_os.path.abspath(__file__)) + _os.sep


def _naming_public_function(error):
    """``error`` with the name of the public function the user called prefixed (the outermost frame in
    the package: an op written in Python converts its arguments without knowing its own name)."""
    frame, public = _sys._getframe(1), None
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        public, frame = frame.f_code.co_name, frame.f_back
    text = str(error)
    if public is None or public.startswith("_") or text.startswith(public):
        return error
    return type(error)(f"{public}(): {text}")


def _const_shape(shape):
    """constant's shape= as a list of ints >= 0 (an int is a 1-d shape); other values are refused naming Const."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"Const: shape must be a list of ints, got {type(shape).__name__} {shape!r}")
    for d in shape:
        if d is None or isinstance(d, (str, bytes)) or isinstance(d, (float, np.floating)) and not float(d).is_integer():
            raise TypeError(f"Const: shape must be a list of ints, got {type(d).__name__} {d!r}")
        if not 0 <= int(d) < 2 ** 63:
            raise _core.InvalidArgumentError(f"Const: dimension {int(d)} of shape {list(shape)} must be in [0, 2**63)")
    return [int(d) for d in shape]


def constant(value, dtype=None, shape=None, name=None):
    """Creates a tensor from a value; unlike convert_to_tensor it casts to ``dtype`` freely."""
    dt = None if dtype is None else convert_arg(dtype, "dtype", "constant", "dtype")
    if isinstance(value, Tensor):
        t = value if dt is None or value.dtype == dt else cast(value, dt)
    elif dt is None:
        t = _core._convert_arg(value, "tensor", "constant", "value")  # refuses None, strings, objects
    elif isinstance(value, (np.ndarray, np.generic)):  # cast as NumPy casts
        t = _core.from_numpy(np.asarray(value, dtype=dt.as_numpy_dtype), dt.code)
    else:
        _refuse_lossy_constant(value, dt)
        t = _core._convert_arg(value, "tensor", "constant", "value", dt.code)
    if shape is not None:
        shape = _const_shape(shape)
        if t._size == 1:
            try:
                t = _core.fill(shape, float(t._item()), t._dtype) if t.dtype != dtypes.int64 else \
                    _core.from_numpy(np.full(shape, t._item(), np.int64), 3)
            except errors.OpError as e:
                raise type(e)(f"Const: {e}") from None
            except MemoryError:
                raise errors.ResourceExhaustedError(f"Const: OOM when allocating tensor with shape{shape} and type int64")
        elif list(t._shape) != shape:
            t = _core.op("Reshape")(t, shape=shape)
    return t


def _refuse_lossy_constant(value, dt):
    """Python floats into an integer or bool dtype, and Python ints into bool, raise TypeError as in
    TF (NumPy would truncate 3.7 to 3); NumPy arrays and scalars are cast as NumPy casts them."""
    if isinstance(value, (np.ndarray, np.generic)) or not (dt.is_integer or dt == dtypes.bool):
        return
    a = np.asarray(value)
    if a.size and (a.dtype.kind == "f" or (dt == dtypes.bool and a.dtype.kind in "iu")):
        raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dt.name}")


def _item(v):
    return v._item() if isinstance(v, Tensor) else v


_cast = _core.op("Cast")
_identity = _core.op("Identity")
_stop_gradient = _core.op("StopGradient")


def cast(x, dtype, name=None):
    """Casts to ``dtype``; the gradient flows between float types only."""
    x = convert_to_tensor(x)
    dt = convert_arg(dtype, "dtype", "cast", "dtype")
    return x if x._dtype == dt.code else _cast(x, dtype=dt.code)


def identity(input, name=None):
    return _identity(input)


def stop_gradient(input, name=None):
    """Returns ``input``; no gradient flows back through it."""
    return _stop_gradient(input)


def shape(input, out_type=dtypes.int32, name=None):
    t = convert_to_tensor(input)
    return constant(list(t._shape), dtype=out_type)


def size(input, out_type=dtypes.int32, name=None):
    return constant(convert_to_tensor(input)._size, dtype=out_type)


def rank(input, name=None):
    return constant(convert_to_tensor(input).ndim, dtype=dtypes.int32)
