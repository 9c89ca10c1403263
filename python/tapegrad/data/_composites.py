"""RaggedTensors and SparseTensors as tf.data elements: their specs, slices, batches and rows.

Note [Composite elements]: in an element's flat form (Note [Flat elements]) a RaggedTensor or a
SparseTensor is one leaf, the value itself, and its spec a RaggedTensorSpec or SparseTensorSpec; it
passes every conversion to tensors as it is. As in TF, a row of a RaggedTensor of ragged rank 1 is a
dense tensor, and its spec a RaggedTensorSpec of ragged rank 0; batching such rows makes a
RaggedTensor again (one ragged rank more), and batching SparseTensors makes a SparseTensor with a
leading batch dimension, the largest dense shape of the batch. Slicing a SparseTensor re-bases each
row's indices on the row. Functions of composite elements run eagerly (a graph holds no composite),
their element_spec taken from calls on the first two elements (Note [String elements]).
"""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops.array.manipulation import concat, stack
from tapegrad._ops.composite.ragged_tensor import RaggedTensor, RaggedTensorSpec, _take
from tapegrad._ops.composite.sparse_tensor import SparseTensor, SparseTensorSpec
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, TensorSpec, convert_to_tensor

__all__ = ["is_composite", "is_composite_value", "spec_of_value", "slice_column", "batched_spec", "unbatched_spec",
           "batch_values", "rows_of", "merge", "example", "conformed", "compatible",
           "as_numpy"]


def is_composite(spec):
    return isinstance(spec, (RaggedTensorSpec, SparseTensorSpec))


def is_composite_value(value):
    return isinstance(value, (RaggedTensor, SparseTensor))


def _dims(shape):
    return None if shape.rank is None else shape.as_list()


def spec_of_value(value):
    """The spec of a RaggedTensor or SparseTensor (its static shape)."""
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    return SparseTensorSpec(value.shape, value.dtype)


def batched_spec(spec, size):
    """The spec of a batch of ``size`` (None: unknown) elements of ``spec``."""
    shape = None if spec.shape.rank is None else [size] + spec.shape.as_list()
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(shape, spec.dtype)
    return RaggedTensorSpec(shape, spec.dtype, spec.ragged_rank + 1, spec.row_splits_dtype)


def unbatched_spec(spec):
    shape = None if spec.shape.rank is None else spec.shape.as_list()[1:]
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(shape, spec.dtype)
    return RaggedTensorSpec(shape, spec.dtype, spec.ragged_rank - 1, spec.row_splits_dtype)  # rank -1: scalars, as TF


def compatible(a, b):
    """Whether two composite specs could describe the same value (concatenate, choose_from_datasets)."""
    if type(a) is not type(b) or a.dtype != b.dtype or not a.shape.is_compatible_with(b.shape):
        return False
    return isinstance(a, SparseTensorSpec) or (a.ragged_rank, a.row_splits_dtype) == (b.ragged_rank,
                                                                                      b.row_splits_dtype)


def merge(a, b):
    """One spec for two composite specs of the same kind (dimensions that differ become None)."""
    sa, sb = _dims(a.shape), _dims(b.shape)
    shape = None if sa is None or sb is None or len(sa) != len(sb) else [x if x == y else None for x, y in zip(sa, sb)]
    if isinstance(a, SparseTensorSpec):
        return SparseTensorSpec(shape, a.dtype)
    return RaggedTensorSpec(shape, a.dtype, a.ragged_rank, a.row_splits_dtype)


# ---- slices of one composite value (from_tensor_slices)
class _SparseRows:
    """The rows of a SparseTensor, indexed as an array column: ``rows[i]`` one row, ``rows[index array]``
    a SparseTensor of those rows (Note [Row datasets] in _ordering.py)."""

    def __init__(self, sp):
        self._sp = sp
        self._indices = np.asarray(sp.indices, np.int64)
        self._shape = [int(d) for d in np.asarray(sp.dense_shape)]
        self._by_row = [np.flatnonzero(self._indices[:, 0] == r) for r in range(self._shape[0])]

    def __len__(self):
        return self._shape[0]

    def __getitem__(self, index):
        if np.ndim(index) == 0:
            order = self._by_row[int(index)]
            return SparseTensor(self._indices[order, 1:].reshape(len(order), -1),
                                _take_values(self._sp.values, order), self._shape[1:])
        rows = [self._by_row[int(r)] for r in np.asarray(index).reshape(-1)]
        order = np.concatenate([np.zeros(0, np.int64)] + rows).astype(np.int64)
        new_rows = np.repeat(np.arange(len(rows)), [len(r) for r in rows]).astype(np.int64)
        indices = np.concatenate([new_rows[:, None], self._indices[order, 1:]], axis=1)
        return SparseTensor(indices, _take_values(self._sp.values, order), [len(rows)] + self._shape[1:])


class _RaggedRows:
    """The rows of a RaggedTensor, indexed as an array column (a row, or a RaggedTensor of rows)."""

    def __init__(self, rt):
        self._rt = rt

    def __len__(self):
        return self._rt._nrows()

    def __getitem__(self, index):
        if np.ndim(index) == 0:
            return self._rt[int(index)]
        return _take(self._rt, np.asarray(index, np.int64).reshape(-1))


def slice_column(value):
    """(the column of ``value``'s rows, the spec of one row) for from_tensor_slices."""
    spec = spec_of_value(value)
    if spec.shape.rank == 0 or (isinstance(value, SparseTensor) and not len(spec.shape)):
        raise ValueError("from_tensor_slices: Unbatching a tensor is only supported for rank >= 1")
    column = _RaggedRows(value) if isinstance(value, RaggedTensor) else _SparseRows(value)
    return column, unbatched_spec(spec)


def _take_values(values, order):
    if isinstance(values, StringTensor):
        return string_constant(np.asarray(values._value, dtype=object)[np.asarray(order, np.int64)])
    return _take(values, np.asarray(order, np.int64))


# ---- batches of elements, and the rows of a batch
def _joined(parts):
    """Tensors (or RaggedTensors) of rows, one after another."""
    if isinstance(parts[0], RaggedTensor):
        values = _joined([p.values for p in parts])
        lengths = np.concatenate([np.diff(p._splits) for p in parts]).astype(np.int64)
        return RaggedTensor.from_row_lengths(values, lengths)._with_splits_dtype(parts[0].row_splits_dtype)
    if isinstance(parts[0], StringTensor):
        return string_constant(np.concatenate([np.asarray(p._value, dtype=object) for p in parts]))
    return concat(list(parts), 0)


def _row_count(value):
    return value._nrows() if isinstance(value, RaggedTensor) else int(value.shape[0])


def _batch_ragged(values, spec, component):
    if spec.ragged_rank < 0:  # the scalars unbatch makes of ragged rank 0 rows: they stack (as TF's)
        if isinstance(values[0], StringTensor):
            return string_constant(np.stack([np.asarray(v._value, dtype=object) for v in values]))
        return stack(list(values), 0)
    parts = [v if isinstance(v, (Tensor, StringTensor, RaggedTensor)) else convert_to_tensor(v) for v in values]
    if spec.ragged_rank == 0:
        inner = [tuple(p.shape[1:]) for p in parts]
        for i, shape in enumerate(inner):
            if shape != inner[0]:
                raise errors.InvalidArgumentError(None, None, f"Dataset.batch: Cannot batch RaggedTensor rows with "
                                                  f"different inner shapes in component {component}. First element "
                                                  f"had shape {list(parts[0].shape)} and element {i} had shape "
                                                  f"{list(parts[i].shape)}.")
    lengths = np.asarray([_row_count(p) for p in parts], spec.row_splits_dtype.as_numpy_dtype)
    return RaggedTensor.from_row_lengths(_joined(parts), lengths)._with_splits_dtype(spec.row_splits_dtype)


def _batch_sparse(values, component):
    shapes = [[int(d) for d in np.asarray(v.dense_shape)] for v in values]
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(None, None, f"Dataset.batch: Cannot batch SparseTensors of different ranks "
                                          f"in component {component}: dense shapes {shapes}")
    rank = ranks.pop()
    indices = [np.asarray(v.indices, np.int64).reshape(-1, rank) for v in values]
    rows = np.concatenate([np.full((len(ix), 1), i, np.int64) for i, ix in enumerate(indices)])
    joined = np.concatenate([rows, np.concatenate(indices)], axis=1)
    largest = np.max(np.asarray(shapes, np.int64).reshape(len(values), rank), axis=0)
    return SparseTensor(joined, _joined([v.values for v in values]), [len(values)] + largest.tolist())


def batch_values(values, spec, component):
    """Elements of a composite spec as one batch (Note [Composite elements])."""
    if isinstance(spec, SparseTensorSpec):
        return _batch_sparse(values, component)
    return _batch_ragged(values, spec, component)


def rows_of(value):
    """The rows of one composite element (unbatch)."""
    if isinstance(value, SparseTensor):
        column = _SparseRows(value)
    elif isinstance(value, RaggedTensor):
        column = _RaggedRows(value)
    else:  # a row of ragged rank 0: a dense tensor, whose rows are TF's elements of ragged rank -1
        if isinstance(value, StringTensor):
            return [string_constant(row) for row in np.asarray(value._value, dtype=object)]
        return [value[i] for i in range(int(value.shape[0]))]
    return [column[i] for i in range(len(column))]


def conformed(value, spec, fail):
    """``value`` (a generator's yield) if it is a composite of ``spec``, else ``fail(what)``'s error, as TF's."""
    if is_composite_value(value) or isinstance(value, (Tensor, StringTensor)):
        given = spec_of_value(value) if is_composite_value(value) else TensorSpec(value.shape, value.dtype)
        if compatible(given, spec):
            return value
        raise fail(f"of {given!r} where an element of {spec!r} was expected.")
    raise fail(f"that did not match the expected structure. The expected structure was {spec!r}, but the yielded "
               f"element was {value!r}.")


def as_numpy(value):
    """A composite element as as_numpy_iterator gives it: a RaggedTensor's rows, a SparseTensor dense."""
    if isinstance(value, RaggedTensor):
        return value.numpy()
    positions = np.asarray(value.indices, np.int64)
    values = value.values
    entries = np.asarray(values._value, dtype=object) if isinstance(values, StringTensor) else np.asarray(values)
    dense = np.full([int(d) for d in np.asarray(value.dense_shape)], b"" if entries.dtype == object else 0,
                    dtype=entries.dtype)
    dense[tuple(positions.T)] = entries
    return dense


def example(spec, unknown=1):
    """A value of ``spec`` holding zeros (for a function's dry call on an empty input)."""
    dims = [unknown if d is None else d for d in (_dims(spec.shape) or [unknown])]
    if isinstance(spec, SparseTensorSpec):
        return SparseTensor(np.zeros((0, len(dims)), np.int64), np.zeros(0, spec.dtype.as_numpy_dtype)
                            if spec.dtype is not dtypes.string else string_constant(np.zeros(0, object)), dims)
    flat_shape = [dims[0] * unknown ** spec.ragged_rank] + dims[spec.ragged_rank + 1:]
    if spec.dtype is dtypes.string:
        flat = string_constant(np.full(flat_shape, b"", dtype=object))
    else:
        flat = convert_to_tensor(np.zeros(flat_shape, spec.dtype.as_numpy_dtype))
    value = flat
    for _ in range(spec.ragged_rank):
        value = RaggedTensor.from_row_lengths(value, np.full(_row_count(value) // unknown, unknown, np.int64))
        value._with_splits_dtype(spec.row_splits_dtype)
    return value

