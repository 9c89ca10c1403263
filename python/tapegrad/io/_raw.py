"""tf.io.decode_raw: the bytes of strings read as numbers; narrow integer types come back widened to int32
(tapegrad's smallest integer dtype) and float16 to float32, with the same values."""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.tensor import constant
from tapegrad.io._args import string_array

__all__ = ["decode_raw"]

_ALLOWED = "half, float, double, int32, uint16, uint8, int16, int8, int64, bool"
# types tapegrad has no tensors of: read as themselves, held as the dtype on the right
_WIDENED = {"uint8": np.int32, "int8": np.int32, "int16": np.int32, "uint16": np.int32, "float16": np.float32}


def _out_type(out_type):
    """(the NumPy type of the stored numbers, the NumPy dtype of the result)."""
    if isinstance(out_type, dtypes.DType):
        if out_type is dtypes.string:
            raise errors.InvalidArgumentError(f"decode_raw: Value for attr 'out_type' of string is not in the list "
                                              f"of allowed values: {_ALLOWED}")
        return out_type.as_numpy_dtype, out_type.as_numpy_dtype
    name = out_type if isinstance(out_type, str) else getattr(out_type, "name", None)
    if name == "half":
        name = "float16"
    if isinstance(out_type, (type, np.dtype)):
        try:
            name = np.dtype(out_type).name
        except TypeError:
            name = None
    if name in _WIDENED:
        return np.dtype(name).type, _WIDENED[name]
    try:
        d = dtypes.as_dtype(out_type)
    except TypeError:
        raise errors.InvalidArgumentError(f"decode_raw: out_type {out_type!r} is not one of: {_ALLOWED}") from None
    return _out_type(d)


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string of ``input_bytes`` read as a vector of ``out_type`` numbers (byte order by
    ``little_endian``): shape ``input_bytes.shape + [n]``. The strings must have the same length, a
    multiple of the type's size; with ``fixed_length`` each is cut or zero-padded to that many bytes."""
    values = string_array(input_bytes, "decode_raw", "input_bytes")
    stored, result = _out_type(out_type)
    item = np.dtype(stored).newbyteorder("<" if little_endian else ">")
    flat = list(values.reshape(-1))
    if fixed_length is not None:
        n = int(fixed_length)
        if n % item.itemsize:
            raise errors.InvalidArgumentError(f"decode_raw: fixed_length ({n}) must be a multiple of the size of "
                                              f"out_type ({item.itemsize})")
        flat = [b[:n].ljust(n, b"\x00") for b in flat]
    size = len(flat[0]) if flat else 0
    for i, b in enumerate(flat):
        if len(b) != size:
            raise errors.InvalidArgumentError(f"decode_raw: DecodeRaw requires input strings to all be the same size, "
                                              f"but element {i} has size {size} != {len(b)}")
    if size % item.itemsize:
        raise errors.InvalidArgumentError(f"decode_raw: Input to DecodeRaw has length {size} that is not a multiple "
                                          f"of {item.itemsize}, the size of {np.dtype(stored).name}")
    numbers = np.frombuffer(b"".join(flat), dtype=np.uint8 if item.kind == "b" else item)
    if item.kind == "b":
        numbers = numbers != 0
    count = size // item.itemsize
    return constant(numbers.astype(result).reshape(values.shape + (count,)))
