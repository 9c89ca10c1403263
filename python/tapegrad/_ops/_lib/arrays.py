"""Arrays built from tensors already converted, for the ops composed in Python: joining, stacking, a new
axis, integer ranges, zeros and ones. Each is one registry op (or a constant), with no argument checking and
no dispatch: the public ops of array/ check what a user passes."""
import numpy as np

from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._tensor.tensor import Tensor, _sizes_vary, cast, convert_to_tensor

__all__ = ["concat", "stack", "expand_dims", "arange", "zeros", "zeros_like", "ones_like"]


def concat(tensors, axis):
    """tensors (a list, at least one) joined along axis; a single tensor is returned as it is."""
    if len(tensors) == 1:
        return convert_to_tensor(tensors[0])
    return _raw.ConcatV2(*tensors, axis=axis)


def expand_dims(x, axis):
    """x with a size-1 axis inserted at axis (negative counts from the end of the result)."""
    x = convert_to_tensor(x)
    return _raw.ExpandDims(x, axis=axis + x.ndim + 1 if axis < 0 else axis)


def stack(tensors, axis=0):
    """Same-shape tensors joined along a new axis."""
    tensors = [convert_to_tensor(t) for t in tensors]
    axis = axis + tensors[0].ndim + 1 if axis < 0 else axis
    return concat([_raw.ExpandDims(t, axis=axis) for t in tensors], axis)


def arange(limit, dtype=dtypes.int32):
    """0, 1, ..., limit - 1 as a 1-D integer tensor; limit an int, or a scalar tensor (a Range op, whose
    length a tf.function reads at every call)."""
    if isinstance(limit, Tensor):
        if limit.dtype != dtype:
            limit = cast(limit, dtype)
        return _raw.Range(_core.fill([], 0, dtype.code), limit, _core.fill([], 1, dtype.code))
    return _core.from_numpy(np.arange(int(limit), dtype=dtype.as_numpy_dtype), dtype.code)


def zeros(shape, dtype=dtypes.float32):
    """Zeros of a static shape (a list of ints)."""
    return _core.fill(list(shape), 0, dtype.code)


def _filled_like(x, value, dtype):
    """value with x's shape (read at run time when x's sizes vary in a trace) and x's dtype or dtype."""
    x = convert_to_tensor(x)
    dt = dtype or x.dtype
    if _sizes_vary(x):
        return _raw.BroadcastLike(_core.fill([], value, dt.code), x)
    return _core.fill(list(x._shape), value, dt.code)


def zeros_like(x, dtype=None):
    return _filled_like(x, 0, dtype)


def ones_like(x, dtype=None):
    return _filled_like(x, 1, dtype)
