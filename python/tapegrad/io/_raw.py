"""tf.io.decode_raw: the bytes of strings read as numbers of one of TF's DecodeRaw types."""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.tensor import constant
from tapegrad.io._args import string_array

__all__ = ["decode_raw"]

_ALLOWED = "half, float, double, int32, uint16, uint8, int16, int8, int64, complex64, complex128, bool, bfloat16"
_TYPES = (dtypes.float16, dtypes.float32, dtypes.float64, dtypes.int32, dtypes.uint16, dtypes.uint8, dtypes.int16,
          dtypes.int8, dtypes.int64, dtypes.bool, dtypes.bfloat16)


def _out_type(out_type):
    """The NumPy type of the stored numbers (the result's dtype)."""
    try:
        d = dtypes.as_dtype(out_type)
    except TypeError:
        raise errors.InvalidArgumentError(f"decode_raw: out_type {out_type!r} is not one of: {_ALLOWED}") from None
    if d not in _TYPES:
        raise errors.InvalidArgumentError(f"decode_raw: Value for attr 'out_type' of {d.name} is not in the list "
                                          f"of allowed values: {_ALLOWED}")
    return d.as_numpy_dtype


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Each string of ``input_bytes`` read as a vector of ``out_type`` numbers (byte order by
    ``little_endian``): shape ``input_bytes.shape + [n]``. The strings must have the same length, a
    multiple of the type's size; with ``fixed_length`` each is cut or zero-padded to that many bytes."""
    values = string_array(input_bytes, "decode_raw", "input_bytes")
    stored = _out_type(out_type)
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
    return constant(numbers.astype(stored).reshape(values.shape + (count,)))
