"""Tensor and Variable: the Python-side surface of the C++ tensor (shape, dtype, repr, conversion)."""
import math
import os as _os
import sys as _sys

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function import trace_context as _trace_context
from tapegrad._name_scope import current_scope as _current_scope
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.string_tensor import StringTensor, empty_nest, is_text, string_constant
from tapegrad._tensor.tensor_shape import TensorShape, _known

__all__ = ["Tensor", "Variable", "TensorShape", "TensorSpec", "constant", "convert_to_tensor",
           "is_tensor", "cast", "identity", "stop_gradient", "shape", "size", "rank"]

Tensor = _core.Tensor


def _dtype_of(value):
    return None if value is None else dtypes.as_dtype(value)


def _string_dtype_or_arg(dtype, op):
    """``dtype`` of ``op`` as a DType: tf.string (which the op binding does not know), or through
    the one argument conversion (which names the op in its errors); None stays None for constant."""
    if dtype is dtypes.string or dtype is str or dtype is bytes or isinstance(dtype, str) and dtype == "string":
        return dtypes.string
    return None if dtype is None and op == "constant" else convert_arg(dtype, "dtype", op, "dtype")


def numpy_text(a, is_repr=False):
    """A tensor's value ``a`` (its numpy()) as TF shows it: in repr the array's repr (a 0-d value as a
    Python scalar, so float32 0.1 shows as 0.10000000149011612), in str NumPy's str; a value spanning
    lines starts on a new line."""
    if isinstance(a, np.ndarray):
        text = repr(a) if is_repr else str(a)
    elif isinstance(a, np.generic):
        text = repr(a.item()) if is_repr else str(a)
    else:  # the bytes of a 0-d string tensor
        text = repr(a)
    return "\n" + text if "\n" in text else text


def _rebuild_tensor(value):
    """Unpickles a tensor from its NumPy value (dtype and shape included)."""
    return _core.from_numpy(np.asarray(value), dtypes.as_dtype(np.asarray(value).dtype).code)


def _tensor_reduce(self):
    _check_concrete(self, "pickle")
    return (_rebuild_tensor, (np.array(self.numpy()),))


def _no_value(self):
    """While tracing, a tensor computed from the arguments has no fixed value, nor has a Variable
    (the graph reads it at every call)."""
    return _core._is_traced(self) or (self._is_variable and _core._tracing())


def _symbolic_text(self, as_repr):
    """While tracing: TF's symbolic text for a tensor of the trace, else None."""
    if not _core._tracing():
        return None
    return _trace_context.symbolic_text(self, as_repr)


def _tensor_repr(self):
    text = _symbolic_text(self, True) or _trace_context.leaked_text(self, True)
    if text is not None:  # no fixed value while tracing: the graph's name for it
        return text
    return f"<tf.Tensor: shape={TensorShape(self._shape)}, dtype={self.dtype.name}, numpy={numpy_text(self.numpy(), True)}>"


def _tensor_str(self):
    text = _symbolic_text(self, False) or _trace_context.leaked_text(self, False)
    if text is not None:
        return text
    if _no_value(self):
        return repr(self)
    return f"tf.Tensor({numpy_text(self.numpy())}, shape={TensorShape(self._shape)}, dtype={self.dtype.name})"


def _check_concrete(self, what):
    if _no_value(self):
        raise _trace_context.traced_value_error(self, what)


def _scalar(self, kind):
    if _core._tracing():  # float(t) in an eager training loop's bookkeeping pays only for the read
        _check_concrete(self, f"{kind.__name__}()")
    _trace_context.check_not_leaked(self)
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
    if not spec and _core._tracing():  # f"{x}" of a traced tensor: its symbolic text, as TF
        return str(self)
    _check_concrete(self, "format()")
    # as TF: NumPy's format of the value ("{}".format(loss) shows the number, not the tensor's text)
    return format(np.asarray(self.numpy()), spec)


def _iter(self):
    if not self._shape:
        raise TypeError("iterating over a 0-d tensor is not allowed")
    if _core._varying_dims(self) & 1:  # the loop would run the traced count at every call
        raise errors.OperatorNotAllowedInGraphError(
            f"Iterating over a tf.Tensor whose length changes from call to call (traced shape {tuple(self._shape)}, "
            "from an op such as tf.range with a computed limit, tf.unique or tf.where) is not allowed in a "
            "tf.function: use autograph (the default), tf.while_loop or tf.map_fn")
    return (self[i] for i in range(self._shape[0]))


def _guarded(name):
    """numpy() / __array__ of the C++ class, refusing a traced tensor (no value while tracing); numpy()
    of a 0-d tensor is a NumPy scalar (np.float32(2.0)), as in TF."""
    raw = getattr(Tensor, name)

    def guarded(self, *args, **kwargs):
        if _core._tracing():
            _check_concrete(self, f".{name}()" if name == "numpy" else "np.asarray()")
        _trace_context.check_not_leaked(self)
        return raw(self, *args, **kwargs)

    def numpy(self):
        if _core._tracing():
            _check_concrete(self, ".numpy()")
        _trace_context.check_not_leaked(self)
        return raw(self) if self._shape else raw(self)[()]

    chosen = numpy if name == "numpy" else guarded
    chosen.__name__ = name
    chosen.__doc__ = raw.__doc__
    return chosen


def _index(self):
    return _scalar(self, int) if self.dtype.is_integer else NotImplemented


def _static_shape(self, _varying_dims=_core._varying_dims):
    """TF's static shape: inside a tf.function a size computed from values at each call (the rows of
    tf.boolean_mask's result) is None, as in TF (Note [Varying dimensions] in cpp/graph/varying_dims.cpp)."""
    varying = _varying_dims(self)
    if not varying:
        return _known(self._shape)
    return _known([None if d >= 64 or (varying >> d) & 1 else n for d, n in enumerate(self._shape)])


def _set_shape(self, shape):
    """TF's set_shape: checks the given shape is compatible with the static shape (ValueError if not).
    A tensor here always has its actual sizes, so there is nothing to refine."""
    given = TensorShape(shape)
    if not self.shape.is_compatible_with(given):
        def text(s):
            return "<unknown>" if s.rank is None else str(tuple(s.as_list()))
        raise ValueError(f"Tensor's shape {text(self.shape)} is not compatible with supplied shape {text(given)}.")


def _tensor_surface():
    """What Tensor is in Python beyond the C++ class (cpp/bindings/tensor.cpp: storage, operators)."""
    return {
        "_numpy_unchecked": Tensor.__dict__["numpy"],  # tf.print reads traced values on purpose
        "numpy": _guarded("numpy"),
        "__array__": _guarded("__array__"),
        "shape": property(_static_shape, doc="The shape, as a TensorShape (None for a size computed at each call)."),
        "dtype": property(lambda self: dtypes._BY_CODE[self._dtype], doc="The element type."),
        "__repr__": _tensor_repr, "__str__": _tensor_str,
        "__float__": lambda self: _scalar(self, float),
        "__int__": lambda self: _scalar(self, int),
        "__index__": _index,
        "__bool__": _bool, "__format__": _format,
        "__iter__": _iter,
        # tensors are immutable: a copy is the tensor itself (as in TF); pickle stores the value
        "__copy__": lambda self: self,
        "__deepcopy__": lambda self, memo: self,
        "__reduce__": _tensor_reduce,
        "__getitem__": _getitem.getitem,
        "__array_priority__": 100,  # NumPy defers to our reflected operators
        "get_shape": _static_shape,
        "set_shape": _set_shape,
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
            _trace_context._on_variable_created()
        if callable(initial_value):
            initial_value = initial_value()
        dt = _dtype_of(dtype)
        if dt is not None and isinstance(initial_value, Tensor) and initial_value.dtype != dt:
            initial_value = cast(initial_value, dt)
        super().__init__(initial_value, -1 if dt is None else dt.code, bool(trainable))
        if name is None:
            Variable._counter += 1
            name = "Variable" if Variable._counter == 1 else f"Variable_{Variable._counter - 1}"
        self._name = _current_scope() + name  # inside tf.name_scope("a"): "a/name"
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

    def __format__(self, spec):  # as TF's variables: the object's text, no format specification
        if spec:
            raise TypeError(f"unsupported format string passed to Variable.__format__: {spec!r}")
        return str(self)

    def read_value(self):
        """The current value as a new tensor. A tape records the read (gradients reach the variable)
        and a tf.function graph reads the variable at every call, after the assignments before it."""
        return _identity(self)

    def value(self):
        return self.read_value()

    def __repr__(self):
        if _core._tracing():  # the graph reads it at every call: no value to show
            return f"<tf.Variable '{self.name}' shape={TensorShape(self._shape)} dtype={self.dtype.name} (traced)>"
        return (f"<tf.Variable '{self.name}' shape={TensorShape(self._shape)} dtype={self.dtype.name}, "
                f"numpy={numpy_text(self.numpy(), True)}>")

    __str__ = __repr__  # print(v) shows the variable, as in TF

    def __reduce__(self):
        return (Variable, (np.array(self.numpy()), self.trainable, self._name))

    def __copy__(self):  # as TF: a shallow copy is the same variable
        return self

    def __deepcopy__(self, memo):  # a new variable with the same value, name and settings
        copied = Variable(np.array(self.numpy()), self.trainable, self._name, constraint=self.constraint)
        memo[id(self)] = copied
        return copied


class TensorSpec:
    """Describes a tensor argument: shape (None for unknown dimensions) and dtype."""

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self.shape = TensorShape(shape)  # TensorShape(None) when the rank is unknown
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    def __repr__(self):
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"

    def __eq__(self, other):
        return isinstance(other, TensorSpec) and (self.shape, self.dtype) == (other.shape, other.dtype)

    def __hash__(self):
        return hash((self.shape, self.dtype))

    def is_compatible_with(self, t):
        return self.dtype == t.dtype and self.shape.is_compatible_with(t.shape)


def is_tensor(x):
    return isinstance(x, (Tensor, StringTensor))


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
            except (_core.InvalidArgumentError, TypeError):  # a hint is a preference: 1.5 with an int32 hint is float32
                pass
        return _core.convert(value, -1)
    except (_core.InvalidArgumentError, TypeError) as e:
        if is_text(value) and _dtype_of(dtype) in (None, dtypes.string):
            return string_constant(value)
        if _core._tracing() and isinstance(value, (list, tuple)):  # tensors computed in the tf.function
            if _computed_attrs.holds_traced(value):
                return _computed_attrs.pack(value, _dtype_of(dtype))
        raise _naming_public_function(e) from None


_PACKAGE_DIR = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))) + _os.sep  # tapegrad/


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
    dt = _string_dtype_or_arg(dtype, "constant")
    if dt is dtypes.string or isinstance(value, StringTensor) or dt is None and is_text(value):
        if not is_text(value) and not (dt is dtypes.string and empty_nest(value)):  # tf.constant([], tf.string)
            raise TypeError(f"Cannot convert {value!r} to EagerTensor of dtype string")
        if dt not in (None, dtypes.string):
            raise errors.UnimplementedError(f"Cast string to {dt.name} is not supported")
        return string_constant(value, shape)
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
            if t._size != math.prod(shape):  # TF refuses this before any op runs: TypeError
                raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor of shape "
                                f"{tuple(t._shape)} has {t._size} elements, but got `shape` {tuple(shape)} with "
                                f"{math.prod(shape)} elements).")
            t = _raw.Reshape(t, shape=shape)
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
    """A scalar tensor's value as a Python number (refused for a traced value: it has none)."""
    if not isinstance(v, Tensor):
        return v
    if _core._tracing():
        _check_concrete(v, "a Python number")
    return v._item()


_cast, _identity, _stop_gradient = _raw.Cast, _raw.Identity, _raw.StopGradient


@dispatch
def cast(x, dtype, name=None):
    """Casts to ``dtype``; the gradient flows between float types only."""
    x = convert_to_tensor(x)
    dt = _string_dtype_or_arg(dtype, "cast")
    if (dt is dtypes.string) != isinstance(x, StringTensor):  # no conversion between strings and numbers
        raise errors.UnimplementedError(f"Cast {x.dtype.name} to {dt.name} is not supported")
    if dt is dtypes.string:
        return x
    return x if x._dtype == dt.code else _cast(x, dtype=dt.code)


def identity(input, name=None):
    return _identity(input)


def stop_gradient(input, name=None):
    """Returns ``input``; no gradient flows back through it."""
    return _stop_gradient(input)


_shape_op = _raw.Shape


def _sizes_vary(t):
    """Whether t is traced and its shape may differ at a later call: in a graph that serves unknown
    dimensions (an input_signature with None), or computed from a value-shaped op's result (tf.unique,
    Note [Value-shaped ops] in cpp/engine/registry.h). Its shape is then a run-time value."""
    if not (_core._tracing() and _core._is_traced(t)):
        return False
    return _trace_context.relaxed_trace() is not None or _core._size_varies(t)


def shape(input, out_type=dtypes.int32, name=None):
    """The shape of ``input`` as a 1-d tensor; in a graph whose sizes vary (_sizes_vary) a run-time
    value, else a constant."""
    t = convert_to_tensor(input)
    if _sizes_vary(t):
        return _shape_op(t, out_type=dtypes.as_dtype(out_type).code)
    return constant(list(t._shape), dtype=out_type)


def size(input, out_type=dtypes.int32, name=None):
    t = convert_to_tensor(input)
    if _sizes_vary(t):  # a run-time value, as tf.shape
        return _raw.Prod(_shape_op(t, out_type=dtypes.as_dtype(out_type).code))
    return constant(t._size, dtype=out_type)


def rank(input, name=None):
    return constant(convert_to_tensor(input).ndim, dtype=dtypes.int32)


# Imported after the definitions above: these modules import this one (their names are read at call time).
from tapegrad._ops.array import computed_attrs as _computed_attrs, getitem as _getitem  # noqa: E402
