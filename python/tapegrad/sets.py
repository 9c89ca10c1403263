"""tf.sets: set operations along the last dimension of dense tensors or SparseTensors, as SparseTensors.

Each position of the leading dimensions holds a set: the values of its last dimension (of a SparseTensor,
the values present). The result holds, per position, the set's elements sorted ascending, in a
SparseTensor whose last dimension is the largest set's size; size gives the number of elements (repeats
count once), as a dense int32 tensor.
"""
import numpy as np

from tapegrad import dtypes as _dtypes, errors as _errors
from tapegrad._ops.composite.sparse_tensor import SparseTensor
from tapegrad._tensor.string_tensor import StringTensor as _StringTensor, string_constant as _strings
from tapegrad._tensor.tensor import Tensor as _Tensor, constant as _constant, convert_to_tensor as _convert

__all__ = ["size", "intersection", "union", "difference"]

_ALLOWED = (_dtypes.int32, _dtypes.int64, _dtypes.string)


def _sets(x, fn, arg):
    """(leading shape, {position: list of values}, dtype) of a dense tensor or SparseTensor."""
    if isinstance(x, SparseTensor):
        dtype = x.dtype
        shape = [int(d) for d in np.asarray(x.dense_shape)]
        indices = np.asarray(x.indices).reshape(-1, len(shape))
        values = np.asarray(x.values._value if isinstance(x.values, _StringTensor) else x.values, dtype=object
                            if dtype is _dtypes.string else None)
        rows = {}
        for pos, v in zip(map(tuple, indices[:, :-1]), values.reshape(-1)):
            rows.setdefault(pos, []).append(v)
        lead = shape[:-1]
    else:
        t = x if isinstance(x, (_Tensor, _StringTensor)) else _convert(x)
        dtype = t.dtype
        array = np.asarray(t._value if isinstance(t, _StringTensor) else t, dtype=object if dtype is _dtypes.string
                           else None)
        if array.ndim < 2:
            raise ValueError(f"tf.sets.{fn}: {arg} must have rank at least 2, got shape {array.shape}")
        lead = list(array.shape[:-1])
        rows = {pos: list(array[pos]) for pos in np.ndindex(*lead)}
    if dtype not in _ALLOWED:
        raise _errors.InvalidArgumentError(None, None, f"tf.sets.{fn}: {arg} has dtype {dtype.name}; sets hold int32, "
                                                       "int64 or string values")
    return lead, rows, dtype


def _result(lead, rows, dtype):
    positions = sorted(rows)
    width = max((len(rows[p]) for p in positions), default=0)
    indices = [list(p) + [j] for p in positions for j in range(len(rows[p]))]
    values = [v for p in positions for v in rows[p]]
    indices = np.asarray(indices, np.int64).reshape(-1, len(lead) + 1)
    tensor = _strings(np.asarray(values, dtype=object)) if dtype is _dtypes.string else _constant(
        np.asarray(values, dtype=dtype.as_numpy_dtype), dtype=dtype)
    return SparseTensor(indices, tensor, np.asarray(lead + [width], np.int64))


def _binary(a, b, fn, combine):
    lead_a, rows_a, dtype = _sets(a, fn, "a")
    lead_b, rows_b, dtype_b = _sets(b, fn, "b")
    if dtype != dtype_b:
        raise _errors.InvalidArgumentError(None, None, f"tf.sets.{fn}: a is {dtype.name} and b is {dtype_b.name}")
    if lead_a != lead_b:
        raise _errors.InvalidArgumentError(None, None, f"tf.sets.{fn}: the leading dimensions of a {lead_a} and b "
                                                       f"{lead_b} differ")
    out = {}
    for pos in set(rows_a) | set(rows_b):
        kept = sorted(combine(set(rows_a.get(pos, [])), set(rows_b.get(pos, []))))
        if kept:
            out[pos] = kept
    return _result(lead_a, out, dtype)


def size(a, validate_indices=True):
    """The number of distinct elements of each set of a SparseTensor, an int32 tensor of its leading shape."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"Expected `SparseTensor`, got {a}.")
    lead, rows, _ = _sets(a, "size", "a")
    out = np.zeros(lead, np.int32)
    for pos, values in rows.items():
        out[pos] = len(set(values))
    return _constant(out, dtype=_dtypes.int32)


def intersection(a, b, validate_indices=True):
    return _binary(a, b, "intersection", lambda x, y: x & y)


def union(a, b, validate_indices=True):
    return _binary(a, b, "union", lambda x, y: x | y)


def difference(a, b, aminusb=True, validate_indices=True):
    return _binary(a, b, "difference", (lambda x, y: x - y) if aminusb else (lambda x, y: y - x))

