"""tf.SparseTensor: a tensor given by the positions and values of its non-default entries.

Note [SparseTensor]: ``indices`` is an int64 [N, rank] matrix of positions, ``values`` the N entries (a
tapegrad tensor, so ops on them differentiate), ``dense_shape`` the int64 [rank] shape of the dense
tensor; every other entry is 0 (or the default a conversion names). TF's canonical order is row-major by
position, without repeats; ops that need it say so (tf.sparse.reorder makes it). As in TF, a SparseTensor
is not converted to a dense tensor implicitly: an op given one raises; ``tf.sparse.to_dense`` converts.
Positions are computed with NumPy (they are integers, never differentiated); inside a tf.function, a
position that depends on the function's arguments raises OperatorNotAllowedInGraphError, as any value
Python reads there.
"""
import numpy as np

from tapegrad import dtypes
from tapegrad._ops import _raw
from tapegrad._ops.array._common import gather_nd
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor, TensorShape, convert_to_tensor

__all__ = ["SparseTensor", "SparseTensorSpec"]


def _int64(value, what):
    t = convert_to_tensor(value, dtype=dtypes.int64) if not isinstance(value, Tensor) else value
    if t.dtype != dtypes.int64:
        t = convert_to_tensor(np.asarray(t), dtype=dtypes.int64)
    return t


def read_dense_at(sp, dense):
    """dense, broadcast to sp's dense shape, at sp's positions (differentiable in dense)."""
    dense = convert_to_tensor(dense, dtype=sp.dtype)
    shape = [int(d) for d in np.asarray(sp.dense_shape)]
    if list(dense.shape) != shape:
        dense = _raw.BroadcastTo(dense, shape=shape)
    return gather_nd(dense, sp.indices, 0, False)


class SparseTensor:
    """SparseTensor(indices, values, dense_shape)."""

    def __init__(self, indices, values, dense_shape):
        self._indices = _int64(indices, "indices")
        self._values = values if isinstance(values, (Tensor, StringTensor)) else convert_to_tensor(values)
        self._dense_shape = _int64(dense_shape, "dense_shape")
        ind, val, shape = self._indices.shape, self._values.shape, self._dense_shape.shape
        if len(ind) != 2:
            raise ValueError(f"SparseTensor: indices must be a matrix (rank 2), got shape {tuple(ind)}")
        if len(val) != 1:
            raise ValueError(f"SparseTensor: values must be a vector (rank 1), got shape {tuple(val)}")
        if len(shape) != 1:
            raise ValueError(f"SparseTensor: dense_shape must be a vector (rank 1), got shape {tuple(shape)}")
        if ind[0] != val[0]:
            raise ValueError(f"SparseTensor: indices has {ind[0]} rows and values {val[0]} entries; they must agree")
        if ind[1] != shape[0]:
            raise ValueError(f"SparseTensor: indices has {ind[1]} columns for a dense_shape of rank {shape[0]}")

    indices = property(lambda self: self._indices)
    values = property(lambda self: self._values)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)

    @property
    def shape(self):
        return TensorShape([int(d) for d in np.asarray(self._dense_shape)])

    def get_shape(self):
        return self.shape

    def with_values(self, new_values):
        """The same positions with other values (as many)."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def _cwise(self, other, op, name):
        """TF's sparse (op) dense: the dense operand broadcast to the dense shape, read at the positions."""
        if isinstance(other, SparseTensor):
            raise TypeError(f"unsupported operand type(s) for {name}: 'SparseTensor' and 'SparseTensor'")
        return self.with_values(op(self._values, read_dense_at(self, other)))

    def __mul__(self, other):
        return self._cwise(other, lambda a, b: a * b, "*")

    def __truediv__(self, other):
        return self._cwise(other, lambda a, b: a / b, "/")

    __div__ = __truediv__

    def __repr__(self):
        return f"SparseTensor(indices={self._indices}, values={self._values}, dense_shape={self._dense_shape})"

    __str__ = __repr__


class SparseTensorSpec:
    """The type of a SparseTensor: its dense shape and dtype."""

    def __init__(self, shape=None, dtype=dtypes.float32):
        self.shape, self.dtype = TensorShape(shape), dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, SparseTensorSpec) else (
            SparseTensorSpec.from_value(spec_or_value) if isinstance(spec_or_value, SparseTensor) else None)
        return other is not None and other.dtype == self.dtype and self.shape.is_compatible_with(other.shape)

    def __hash__(self):
        return hash(repr(self))

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and (self.shape.as_list() if self.shape.rank is not None else None) \
            == (other.shape.as_list() if other.shape.rank is not None else None) and self.dtype == other.dtype

    def __repr__(self):
        return f"SparseTensorSpec(TensorShape({self.shape.as_list() if self.shape.rank is not None else None}), " \
               f"tf.{self.dtype.name})"
