"""Argument checks shared by tf.io's ops: byte strings from string tensors, and scalar-ness."""
import os

import numpy as np

from tapegrad import errors
from tapegrad._tensor.string_tensor import StringTensor, is_text, string_constant

__all__ = ["string_array", "scalar_bytes", "filename", "strings", "kernel_dtype_name"]

_KERNEL_NAMES = {"float16": "half", "bfloat16": "bfloat16", "float32": "float", "float64": "double"}


def kernel_dtype_name(dtype):
    """The name TF's C++ kernels give a dtype in their error texts ("float", "double", "int32", ...)."""
    return _KERNEL_NAMES.get(dtype.name, dtype.name)


def string_array(value, op, arg):
    """``value`` (a string tensor, str, bytes or nested lists of them) as an object array of bytes;
    TypeError for numbers, as TF's conversion to a string tensor."""
    if isinstance(value, StringTensor):
        return value._value
    if isinstance(value, os.PathLike):
        value = os.fsencode(value)
    if is_text(value):
        return string_constant(value)._value
    raise TypeError(f"{op}: `{arg}` must be a string tensor (str or bytes); Cannot convert {value!r} to "
                    f"EagerTensor of dtype string")


def scalar_bytes(value, op, arg):
    """The bytes of a scalar string argument; InvalidArgumentError for another shape."""
    a = string_array(value, op, arg)
    if a.ndim:
        raise errors.InvalidArgumentError(f"{op}: `{arg}` must be scalar but got shape{list(a.shape)}")
    return a[()]


def filename(value, op):
    """A scalar string (or os.PathLike) file name as a str."""
    return os.fsdecode(scalar_bytes(value, op, "filename"))


def strings(values, shape):
    """A string tensor of ``values`` (a flat list of bytes) in ``shape``."""
    a = np.empty(len(values), dtype=object)
    a[:] = values
    return StringTensor(a.reshape(shape))
