"""Tensors made from a shape and a value: zeros, ones, fill, eye, range, linspace."""
import numpy as np

from tapegrad import _core, dtypes
from tapegrad._tensor import Tensor, _dtype_of, _item, convert_to_tensor

__all__ = ["zeros", "ones", "zeros_like", "ones_like", "fill", "eye", "range", "linspace"]


def fill(dims, value, name=None):
    v = convert_to_tensor(value)
    return _core.from_numpy(np.full([int(d) for d in dims], v.numpy()), v._dtype)


def zeros(shape, dtype=dtypes.float32, name=None):
    return _core.fill([int(d) for d in _as_shape(shape)], 0.0, dtypes.as_dtype(dtype).code)


def ones(shape, dtype=dtypes.float32, name=None):
    return _core.fill([int(d) for d in _as_shape(shape)], 1.0, dtypes.as_dtype(dtype).code)


def zeros_like(input, dtype=None, name=None):
    t = convert_to_tensor(input)
    return zeros(t._shape, dtype or t.dtype)


def ones_like(input, dtype=None, name=None):
    t = convert_to_tensor(input)
    return ones(t._shape, dtype or t.dtype)


def _as_shape(shape):
    if isinstance(shape, Tensor):
        return [int(d) for d in shape.numpy().reshape(-1)]
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return list(shape)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    m = np.eye(num_rows, num_columns, dtype=dtypes.as_dtype(dtype).as_numpy_dtype)
    if batch_shape:
        m = np.broadcast_to(m, tuple(batch_shape) + m.shape)
    return _core.from_numpy(m, dtypes.as_dtype(dtype).code)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 -- TF's name
    if limit is None:
        start, limit = 0, start
    vals = [_item(v) for v in (start, limit, delta)]
    dt = _dtype_of(dtype) or (dtypes.float32 if any(isinstance(v, float) for v in vals) else dtypes.int32)
    return _core.from_numpy(np.arange(*vals, dtype=dt.as_numpy_dtype), dt.code)


def linspace(start, stop, num, name=None, axis=0):
    s, e = convert_to_tensor(start), convert_to_tensor(stop)
    dt = s.dtype if s.dtype.is_floating else dtypes.float32
    return _core.from_numpy(np.linspace(s.numpy(), e.numpy(), int(num), axis=axis).astype(dt.as_numpy_dtype), dt.code)
