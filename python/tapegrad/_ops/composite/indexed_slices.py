"""tf.IndexedSlices: rows of a dense tensor by index, the gradient of a gather from a variable.

Note [IndexedSlices]: ``values[i]`` is the slice of the dense tensor at ``indices[i]`` along its first axis;
an index may repeat, and the dense tensor is then the sum of its rows (``tf.convert_to_tensor``, which
every op applies to an IndexedSlices it is given, through ``__tf_tensor__``). GradientTape gives one as
a variable's gradient when the tape saw the variable read only by gathers of its rows (Note [Sparse
variable gradients] in cpp/bindings/tape.cpp); Keras's optimizers then treat each occurrence's row as
Keras on TF does (keras/optimizers/_sparse.py).
"""
import numpy as np

import warnings

from tapegrad import dtypes
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import concat, zeros_like
from tapegrad._ops._lib.shapes import segment_op
from tapegrad._tensor.tensor import Tensor, TensorShape, cast, convert_to_tensor

__all__ = ["IndexedSlices", "IndexedSlicesSpec"]

_LARGE = 100_000_000  # TF warns when a conversion makes a dense tensor of more elements


class IndexedSlices:
    """IndexedSlices(values, indices, dense_shape=None)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        if self._indices.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"IndexedSlices: indices must be int32 or int64, got {self._indices.dtype.name}")
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape, dtype=dtypes.int64) \
            if not isinstance(dense_shape, Tensor) else dense_shape

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    device = property(lambda self: self._values.device)
    name = property(lambda self: self._values.name)

    @property
    def shape(self):
        """The dense tensor's static shape (its first dimension unknown without dense_shape)."""
        if self._dense_shape is not None:
            return TensorShape([int(d) for d in np.asarray(self._dense_shape)])
        return TensorShape([None] + list(self._values.shape[1:]))

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __tf_tensor__(self, dtype=None, name=None):
        """The dense tensor: the rows summed by index (TF's unsorted_segment_sum)."""
        if self._dense_shape is None:
            raise ValueError("Tensor conversion requested for IndexedSlices without dense_shape: "
                             f"{self!r}")
        rows = int(np.asarray(self._dense_shape)[0])
        size = int(np.prod(np.asarray(self._dense_shape)))
        if size >= _LARGE:
            warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {size} elements. This may consume "
                          "a large amount of memory.", UserWarning, stacklevel=3)
        dense = segment_op(_raw.UnsortedSegmentSum, self._values, self._indices, rows)
        return dense if dtype is None or dense.dtype == dtype else cast(dense, dtype)

    def __repr__(self):
        shape = "None" if self._dense_shape is None else repr(self._dense_shape)
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}, dense_shape={shape})"


class IndexedSlicesSpec:
    """The type of an IndexedSlices: its dense shape and dtype (tf.IndexedSlicesSpec)."""

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64, dense_shape_dtype=None,
                 indices_shape=None):
        self.shape, self.dtype, self.indices_dtype = TensorShape(shape), dtypes.as_dtype(dtype), dtypes.as_dtype(
            indices_dtype)

    def __repr__(self):
        return f"IndexedSlicesSpec(shape={self.shape}, dtype={self.dtype!r}, indices_dtype={self.indices_dtype!r})"


def _from_gathers(values, indices, variable, unconnected_zero):
    """The gradient of a variable read only by gathers (Note [Sparse variable gradients]): each gather's
    upstream gradient (None when unconnected) with its indices, as one IndexedSlices; None (or zeros)
    when no gather is connected."""
    pairs = [(v, i) for v, i in zip(values, indices) if v is not None]
    if not pairs:
        return zeros_like(variable) if unconnected_zero else None
    row = list(variable.shape[1:])
    flat_values = [_raw.Reshape(v, shape=[-1] + row) for v, _ in pairs]
    kind = dtypes.int64 if any(i.dtype == dtypes.int64 for _, i in pairs) else dtypes.int32
    flat_indices = [_raw.Reshape(cast(i, kind), shape=[-1]) for _, i in pairs]
    if len(pairs) > 1:
        flat_values, flat_indices = [concat(flat_values, 0)], [concat(flat_indices, 0)]
    shape = np.asarray(list(variable.shape), dtype=np.int64)
    return IndexedSlices(flat_values[0], flat_indices[0], convert_to_tensor(shape))
