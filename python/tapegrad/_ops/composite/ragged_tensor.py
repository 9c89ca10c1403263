"""tf.RaggedTensor: rows of different lengths, as flat values cut by row splits.

Note [RaggedTensor]: ``values`` holds the rows one after another (a tensor, or a RaggedTensor for more
ragged dimensions) and ``row_splits`` (nrows + 1 entries, from 0 to len(values), never decreasing;
held as int64 or int32, TF's row_splits_dtype, which follows the splits or lengths given) where each
row starts: row i is values[row_splits[i]:row_splits[i + 1]]. The splits are
positions, computed in NumPy; the values go through tapegrad's ops, so operations on the flat values
differentiate. As in TF, a RaggedTensor is not converted to a dense tensor implicitly (``to_tensor``
pads); arithmetic with a scalar or a RaggedTensor of the same row partition works on the flat values.
"""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.array._common import scatter_nd
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, TensorShape, cast, convert_to_tensor

__all__ = ["RaggedTensor", "RaggedTensorSpec"]


def _splits(value, what):
    splits = np.asarray(value, dtype=np.int64).reshape(-1)
    if splits.size == 0 or splits[0] != 0 or (np.diff(splits) < 0).any():
        raise errors.InvalidArgumentError(None, None, f"RaggedTensor: {what} must start at 0 and never decrease, "
                                                      f"got {splits.tolist()}")
    return splits


def _splits_dtype(value):
    """TF's row_splits_dtype of given splits (or lengths): int32 when they are int32, else int64."""
    kind = getattr(value, "dtype", None)
    return dtypes.int32 if kind in (dtypes.int32, np.int32) else dtypes.int64


def _as_values(values):
    if isinstance(values, (Tensor, StringTensor, RaggedTensor)):
        return values
    array = np.asarray(values)
    return string_constant(array) if array.dtype.kind in "SUO" else convert_to_tensor(values)


def _length(values):
    return values._nrows() if isinstance(values, RaggedTensor) else int(values.shape[0])


class RaggedTensor:
    """A ragged tensor; make one with ``tf.ragged.constant`` or the ``from_*`` constructors."""

    def __init__(self, values, row_splits, internal=False):
        if not internal:
            raise ValueError("RaggedTensor constructor is private; please use one of the factory methods "
                             "instead (e.g., RaggedTensor.from_row_lengths())")
        self._values, self._splits = values, row_splits
        self._splits_dtype = dtypes.int64
        self._uniform = None  # the row length of every row, when the partition was made uniform (from_tensor)

    # -- constructors (TF's names and checks)
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        values, splits = _as_values(values), _splits(row_splits, "row_splits")
        if validate and splits[-1] != _length(values):
            raise errors.InvalidArgumentError(None, None, f"RaggedTensor: row_splits end at {splits[-1]}, but values "
                                                          f"has {_length(values)} rows")
        return cls(values, splits, internal=True)._with_splits_dtype(_splits_dtype(row_splits))

    def _with_splits_dtype(self, dtype):
        self._splits_dtype = dtypes.as_dtype(dtype)
        return self

    def with_row_splits_dtype(self, dtype):
        """This RaggedTensor with its row partitions (at every ragged level) held as ``dtype``."""
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Argument `row_splits` dtype must be int32 or int64. Received {dtype!r}.")
        values = self._values.with_row_splits_dtype(dtype) if isinstance(self._values, RaggedTensor) else self._values
        result = RaggedTensor(values, self._splits, internal=True)._with_splits_dtype(dtype)
        result._uniform = self._uniform
        return result

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        lengths = np.asarray(row_lengths, np.int64).reshape(-1)
        if (lengths < 0).any():
            raise errors.InvalidArgumentError(None, None, f"RaggedTensor: row_lengths must be >= 0, got {lengths}")
        return cls.from_row_splits(values, np.concatenate([[0], np.cumsum(lengths)]),
                                   validate=validate)._with_splits_dtype(_splits_dtype(row_lengths))

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        ids = np.asarray(value_rowids, np.int64).reshape(-1)
        if len(ids) and (np.diff(ids) < 0).any():
            raise errors.InvalidArgumentError(None, None, "RaggedTensor: value_rowids must be sorted")
        n = int(nrows) if nrows is not None else (int(ids[-1]) + 1 if len(ids) else 0)
        return cls.from_row_lengths(values, np.bincount(ids, minlength=n)[:n] if len(ids) else np.zeros(n, np.int64),
                                    validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        starts = np.asarray(row_starts, np.int64).reshape(-1)
        return cls.from_row_splits(values, np.concatenate([starts, [_length(_as_values(values))]]),
                                   validate=validate)._with_splits_dtype(_splits_dtype(row_starts))

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        return cls.from_row_splits(values, np.concatenate([[0], np.asarray(row_limits, np.int64).reshape(-1)]),
                                   validate=validate)._with_splits_dtype(_splits_dtype(row_limits))

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = _as_values(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        splits = [np.concatenate([[0], np.cumsum(np.asarray(l, np.int64).reshape(-1))]) for l in nested_row_lengths]
        return cls.from_nested_row_splits(flat_values, splits, validate=validate)

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=dtypes.int64):
        """Rows of a dense tensor, each cut to its length (or before its trailing padding)."""
        if ragged_rank != 1:
            raise errors.UnimplementedError(None, None, "RaggedTensor.from_tensor: only ragged_rank=1")
        t = _as_values(tensor)
        dense = np.asarray(t._value if isinstance(t, StringTensor) else t)
        n, width = dense.shape[0], dense.shape[1] if dense.ndim > 1 else 0
        if lengths is not None:
            row_lengths = np.minimum(np.asarray(lengths, np.int64).reshape(-1), width)
        elif padding is not None:
            pad = np.asarray(padding)
            row_lengths = np.zeros(n, np.int64)
            for i in range(n):
                keep = ~np.all((dense[i] == pad).reshape(width, -1), axis=1)
                row_lengths[i] = (np.flatnonzero(keep)[-1] + 1) if keep.any() else 0
        else:
            row_lengths = np.full(n, width, np.int64)
        positions = np.concatenate([i * width + np.arange(k) for i, k in enumerate(row_lengths)]).astype(np.int64) \
            if n else np.zeros(0, np.int64)
        rows = _reshape_rows(t, n * width)
        result = cls.from_row_lengths(_take(rows, positions), row_lengths)._with_splits_dtype(row_splits_dtype)
        if lengths is None and padding is None:  # TF keeps a uniform row length: the static shape knows it
            result._uniform = width
        return result

    # -- what it holds
    values = property(lambda self: self._values)
    row_splits = property(lambda self: convert_to_tensor(self._splits.astype(self._splits_dtype.as_numpy_dtype),
                                                         dtype=self._splits_dtype))
    row_splits_dtype = property(lambda self: self._splits_dtype)
    dtype = property(lambda self: self.flat_values.dtype)
    ragged_rank = property(lambda self: 1 + (self._values.ragged_rank if isinstance(self._values, RaggedTensor) else 0))

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensor):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self.row_splits], self._values
        while isinstance(v, RaggedTensor):
            out.append(v.row_splits)
            v = v._values
        return tuple(out)

    @property
    def shape(self):
        inner = list(self.flat_values.shape[1:])
        return TensorShape([self._nrows(), self._uniform] + [None] * (self.ragged_rank - 1) + inner)

    def nrows(self, out_type=None, name=None):
        """The number of rows, a scalar tensor of ``out_type`` (default: the row_splits dtype), as TF."""
        out_type = self._splits_dtype if out_type is None else dtypes.as_dtype(out_type)
        if out_type not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"RaggedTensor.nrows: out_type must be int32 or int64, got {out_type.name}")
        return convert_to_tensor(self._nrows(), dtype=out_type)

    def _nrows(self):
        return len(self._splits) - 1

    def _positions(self, array):
        return convert_to_tensor(np.asarray(array).astype(self._splits_dtype.as_numpy_dtype), dtype=self._splits_dtype)

    def row_lengths(self, axis=1, name=None):
        return self._positions(np.diff(self._splits))

    def nested_row_lengths(self, name=None):
        return tuple(self._positions(np.diff(np.asarray(s))) for s in self.nested_row_splits)

    def value_rowids(self, name=None):
        return self._positions(np.repeat(np.arange(self._nrows()), np.diff(self._splits)))

    def row_starts(self, name=None):
        return self._positions(self._splits[:-1])

    def row_limits(self, name=None):
        return self._positions(self._splits[1:])

    def bounding_shape(self, axis=None, name=None, out_type=dtypes.int64):
        shape = [self._nrows(), int(np.diff(self._splits).max()) if self._nrows() else 0]
        inner = self._values.bounding_shape().numpy().tolist()[1:] if isinstance(self._values, RaggedTensor) else \
            list(self._values.shape[1:])
        return convert_to_tensor(np.asarray(shape[:1] + [max(shape[1], 0)] + inner, np.int64))

    def with_values(self, new_values):
        return RaggedTensor(_as_values(new_values), self._splits, internal=True)._with_splits_dtype(self._splits_dtype)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # -- conversions
    def to_list(self):
        values = self._values.to_list() if isinstance(self._values, RaggedTensor) else (
            list(self._values._value) if isinstance(self._values, StringTensor) else self._values.numpy().tolist())
        return [values[a:b] for a, b in zip(self._splits[:-1], self._splits[1:])]

    def numpy(self):
        """The rows as NumPy, as TF gives them: an object array of row arrays, or one regular array when every
        row has the same length."""
        v = self._values
        inner = v.numpy() if isinstance(v, RaggedTensor) else np.asarray(v._value, dtype=object) if isinstance(
            v, StringTensor) else np.asarray(v)
        rows = [inner[a:b] for a, b in zip(self._splits[:-1], self._splits[1:])]
        if not rows:
            return np.zeros((0, 0) + inner.shape[1:], dtype=inner.dtype)
        if all(len(r) == len(rows[0]) for r in rows):
            return np.array(rows)
        out = np.empty(len(rows), dtype=object)
        for i, r in enumerate(rows):
            out[i] = r
        return out

    def to_tensor(self, default_value=None, name=None, shape=None):
        """The rows padded with default_value (0, or b"" for strings) to the longest, or to shape."""
        bound = [int(d) for d in np.asarray(self.bounding_shape())]
        if shape is not None:
            bound = [b if s is None or s == -1 else int(s) for b, s in zip(bound, list(shape))]
        flat = self._values.to_tensor(default_value, shape=bound[1:] if shape is not None else None) \
            if isinstance(self._values, RaggedTensor) else self._values
        positions = [(i, j) for i in range(self._nrows()) for j in range(self._splits[i + 1] - self._splits[i])]
        keep = [k for k, (i, j) in enumerate(positions) if i < bound[0] and j < bound[1]]
        index = np.asarray([positions[k] for k in keep], np.int64).reshape(-1, 2)
        rows = _take(flat, np.asarray(keep, np.int64)) if len(keep) != len(positions) else flat
        if isinstance(flat, StringTensor):
            out = np.full(bound, b"" if default_value is None else default_value, dtype=object)
            values = np.asarray(rows._value, dtype=object)
            for (i, j), v in zip(index, values):
                out[i, j] = v
            return string_constant(out)
        dense = scatter_nd(convert_to_tensor(index), rows, bound[:2] + list(rows.shape[1:]), False)
        if default_value is None or (not isinstance(default_value, Tensor) and default_value == 0):
            return dense
        filled = np.zeros(bound[:2], bool)
        filled[tuple(index.T)] = True
        mask = filled.reshape(bound[:2] + [1] * (len(dense.shape) - 2))
        return select(convert_to_tensor(np.broadcast_to(mask, dense.shape)), dense,
                      cast(convert_to_tensor(default_value), dense.dtype))

    # -- indexing and arithmetic
    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            i = int(key) + (self._nrows() if key < 0 else 0)
            if not 0 <= i < self._nrows():
                raise errors.InvalidArgumentError(None, None, f"RaggedTensor: row {key} of {self._nrows()}")
            return _row(self._values, int(self._splits[i]), int(self._splits[i + 1]))
        if isinstance(key, slice):
            rows = range(*key.indices(self._nrows()))
            starts, limits = self._splits[:-1][list(rows)], self._splits[1:][list(rows)]
            positions = np.concatenate([np.arange(a, b) for a, b in zip(starts, limits)]).astype(np.int64) \
                if len(rows) else np.zeros(0, np.int64)
            return RaggedTensor.from_row_lengths(_take(self._values, positions),
                                                 limits - starts)._with_splits_dtype(self._splits_dtype)
        raise errors.UnimplementedError(None, None, f"RaggedTensor indexing with {key!r} (an int or a slice of rows)")

    def _flat_op(self, other, op, symbol):
        if isinstance(other, RaggedTensor):
            if not all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in
                       zip(self.nested_row_splits, other.nested_row_splits)) or self.ragged_rank != other.ragged_rank:
                raise errors.InvalidArgumentError(None, None, f"RaggedTensor {symbol}: the operands' rows differ")
            return self.with_flat_values(op(self.flat_values, other.flat_values))
        other_t = convert_to_tensor(other, dtype=self.dtype) if not isinstance(other, Tensor) else other
        if other_t.shape.rank not in (0, None) and len(other_t.shape) > len(self.flat_values.shape) - 1:
            raise errors.UnimplementedError(None, None, f"RaggedTensor {symbol} of a tensor of shape "
                                                        f"{tuple(other_t.shape)} (a scalar or the inner dimensions)")
        return self.with_flat_values(op(self.flat_values, other_t))

    def __add__(self, other):
        return self._flat_op(other, lambda a, b: a + b, "+")

    def __sub__(self, other):
        return self._flat_op(other, lambda a, b: a - b, "-")

    def __mul__(self, other):
        return self._flat_op(other, lambda a, b: a * b, "*")

    def __truediv__(self, other):
        return self._flat_op(other, lambda a, b: a / b, "/")

    __radd__, __rmul__ = __add__, __mul__

    def __neg__(self):
        return self.with_flat_values(-self.flat_values)

    def __repr__(self):
        return f"<tf.RaggedTensor {self.to_list()}>"

    __str__ = __repr__


def _reshape_rows(t, n):
    if isinstance(t, StringTensor):
        return string_constant(np.asarray(t._value, dtype=object).reshape((n,) + np.asarray(t._value).shape[2:]))
    return _raw.Reshape(t, shape=[n] + list(t.shape[2:]))


def _take(values, positions):
    if isinstance(values, RaggedTensor):
        starts, limits = values._splits[:-1][positions], values._splits[1:][positions]
        inner = np.concatenate([np.arange(a, b) for a, b in zip(starts, limits)]).astype(np.int64) \
            if len(positions) else np.zeros(0, np.int64)
        return RaggedTensor.from_row_lengths(_take(values._values, inner),
                                             limits - starts)._with_splits_dtype(values._splits_dtype)
    if isinstance(values, StringTensor):
        return string_constant(np.asarray(values._value, dtype=object)[positions])
    return _raw.GatherV2(values, convert_to_tensor(np.asarray(positions, np.int64)), axis=0, batch_dims=0)


def _row(values, start, limit):
    return _take(values, np.arange(start, limit, dtype=np.int64))


class RaggedTensorSpec:
    """The type of a RaggedTensor: shape (None for ragged dimensions), dtype, ragged_rank."""

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None, row_splits_dtype=dtypes.int64,
                 flat_values_spec=None):
        self.shape, self.dtype = TensorShape(shape), dtypes.as_dtype(dtype)
        self.ragged_rank = (len(self.shape) - 1 if ragged_rank is None and self.shape.rank is not None else ragged_rank)
        self.row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor (its dimensions as its static shape knows them)."""
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits_dtype)

    def is_compatible_with(self, spec_or_value):
        other = spec_or_value if isinstance(spec_or_value, RaggedTensorSpec) else (
            RaggedTensorSpec.from_value(spec_or_value) if isinstance(spec_or_value, RaggedTensor) else None)
        return other is not None and (other.dtype, other.ragged_rank, other.row_splits_dtype) == (
            self.dtype, self.ragged_rank, self.row_splits_dtype) and self.shape.is_compatible_with(other.shape)

    def _key(self):
        return (self.shape.as_list() if self.shape.rank is not None else None, self.dtype, self.ragged_rank,
                self.row_splits_dtype)

    def __eq__(self, other):
        return isinstance(other, RaggedTensorSpec) and self._key() == other._key()

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"RaggedTensorSpec(TensorShape({self.shape.as_list() if self.shape.rank is not None else None}), " \
               f"tf.{self.dtype.name}, {self.ragged_rank}, tf.{self.row_splits_dtype.name})"

