"""tf.sparse.cross and tf.sparse.cross_hashed: per batch row, every combination of one value from each input.

Note [Sparse crosses]: the inputs are rank-2 SparseTensors and dense matrices of one batch size; as TF
takes them, the SparseTensors come first (in their order), then the dense inputs. Row r of the result
lists the Cartesian product of the inputs' values in row r, the first input varying slowest, at
positions [r, 0], [r, 1], ...; its dense shape is [batch, the longest row]. String values stay bytes;
integer values are int64 (floats are truncated to int64, as TF casts them). ``cross`` joins each
combination's values as text with ``separator`` ("_X_"); ``cross_hashed`` folds them, starting from
``hash_key``, with TF's FingerprintCat64 (each string value by its FarmHash Fingerprint64, each integer
as its own 64-bit pattern) and gives the result modulo ``num_buckets`` (modulo 2**63 - 1 for 0).
"""
import itertools

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops.composite.sparse_tensor import SparseTensor
from tapegrad._tensor.string_hashes import fingerprint64
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["cross", "cross_hashed"]

DEFAULT_HASH_KEY = 0xDECAFCAFFE  # TF's key when hash_key is None
_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995  # FingerprintCat64's multiplier
_INT64_MAX = (1 << 63) - 1


def _shift_mix(v):
    return v ^ (v >> 47)


def _fingerprint_cat(fp1, fp2):
    """TF's FingerprintCat64 of two 64-bit fingerprints (Python ints below 2**64)."""
    result = fp1 ^ _MUL
    result ^= (_shift_mix((fp2 * _MUL) & _MASK) * _MUL) & _MASK
    result = (result * _MUL) & _MASK
    result = (_shift_mix(result) * _MUL) & _MASK
    return _shift_mix(result)


def _values(t):
    """A tensor's entries as a NumPy array: bytes objects, or int64."""
    if isinstance(t, StringTensor):
        return np.asarray(t._value, dtype=object)
    if t.dtype not in (dtypes.int64, dtypes.int32) and not t.dtype.is_floating:
        raise TypeError(f"tf.sparse.cross: inputs must be int64 or string (or cast to int64), got {t.dtype.name}")
    return np.asarray(t).astype(np.int64)


def _rows(inputs):
    """(batch size, one list of per-row value arrays per input, in TF's order: Note [Sparse crosses])."""
    sparse = [x for x in inputs if isinstance(x, SparseTensor)]
    dense = [x for x in inputs if isinstance(x, (Tensor, StringTensor))]
    if len(sparse) + len(dense) != len(inputs):
        raise TypeError("All inputs must be Tensor or SparseTensor.")
    if not inputs:
        raise errors.InvalidArgumentError(None, None, "tf.sparse.cross: inputs must not be empty")
    shapes = [[int(d) for d in np.asarray(s.dense_shape)] for s in sparse]
    for i, shape in enumerate(shapes):
        if len(shape) != 2:
            raise errors.InvalidArgumentError(None, None, f"Expected D2 of index to be 2 got {len(shape)} at "
                                                          f"position {i}")
    for i, d in enumerate(dense):
        if len(d.shape) != 2:
            raise errors.InvalidArgumentError(None, None, f"Dense inputs should be a matrix but received shape "
                                                          f"{list(d.shape)} at position {i}")
    batch = shapes[0][0] if sparse else int(dense[0].shape[0])
    columns = []
    for i, (s, shape) in enumerate(zip(sparse, shapes)):
        if shape[0] != batch:
            raise errors.InvalidArgumentError(None, None, f"Expected batch size {batch} got {shape[0]} at sparse "
                                                          f"tensor {i}")
        row_of, values = np.asarray(s.indices, np.int64).reshape(-1, 2)[:, 0], _values(s.values)
        columns.append([values[row_of == r] for r in range(batch)])
    for i, d in enumerate(dense):
        if int(d.shape[0]) != batch:
            raise errors.InvalidArgumentError(None, None, f"Expected batch size {batch} got {int(d.shape[0])} at "
                                                          f"dense tensor {i}")
        values = _values(d)
        columns.append([values[r] for r in range(batch)])
    return batch, columns


def _crossed(inputs, combine):
    """The SparseTensor of ``combine(values)`` over each row's combinations; combine's results as a list."""
    batch, columns = _rows(list(inputs))
    indices, out = [], []
    for r in range(batch):
        for k, values in enumerate(itertools.product(*(c[r].tolist() for c in columns))):
            indices.append((r, k))
            out.append(combine(values))
    width = max([k + 1 for _, k in indices] or [0])
    return np.asarray(indices, np.int64).reshape(-1, 2), out, [batch, width]


def _text(value):
    return value if isinstance(value, bytes) else str(value).encode()


def cross(inputs, name=None, separator=None):
    """The string crosses of ``inputs`` (SparseTensors and dense matrices): Note [Sparse crosses]."""
    sep = (separator if separator is not None else "_X_").encode() if not isinstance(separator, bytes) else separator
    indices, values, shape = _crossed(inputs, lambda vs: sep.join(_text(v) for v in vs))
    return SparseTensor(indices, string_constant(np.asarray(values, dtype=object)), shape)


def _feature_hash(value):
    if isinstance(value, bytes):
        return int(fingerprint64([value])[0])
    return int(value) & _MASK


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed crosses of ``inputs`` as int64 buckets (Note [Sparse crosses])."""
    buckets = int(num_buckets)
    if buckets < 0:
        raise errors.InvalidArgumentError(None, None, f"tf.sparse.cross_hashed: num_buckets must be >= 0, got "
                                                      f"{buckets}")
    key = DEFAULT_HASH_KEY if hash_key is None else int(hash_key) & _MASK

    def combine(values):
        result = key
        for v in values:
            result = _fingerprint_cat(result, _feature_hash(v))
        return result % (buckets if buckets > 0 else _INT64_MAX)

    indices, values, shape = _crossed(inputs, combine)
    return SparseTensor(indices, convert_to_tensor(np.asarray(values, np.int64).reshape(-1), dtype=dtypes.int64), shape)
