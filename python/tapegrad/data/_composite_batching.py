"""Dataset.ragged_batch and Dataset.sparse_batch (and tf.data.experimental.dense_to_ragged_batch /
dense_to_sparse_batch): dense elements of varying shapes batched into RaggedTensors or SparseTensors.

ragged_batch, as TF's: a component of a fully known shape batches as ``batch`` stacks it; one with an
unknown dimension becomes a RaggedTensor whose dimensions up to the last unknown one are ragged
(an element of shape [2, None] batches to [batch, 2 (ragged), None], ragged rank 2), its row splits of
``row_splits_dtype``; RaggedTensor and SparseTensor components batch as ``batch`` batches them (Note
[Composite elements]). sparse_batch: each element (one dense component) holds every entry of a row of
dense shape ``row_shape``, zeros included, at its own positions; an element of another rank is TF's
InvalidArgumentError, one larger than ``row_shape`` its DataLossError, both at iteration.
"""
import numpy as np

from tapegrad import errors
from tapegrad._ops.composite.ragged_tensor import RaggedTensor, RaggedTensorSpec
from tapegrad._ops.composite.sparse_tensor import SparseTensor, SparseTensorSpec
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, TensorShape, TensorSpec, convert_to_tensor
from tapegrad.data import _structure as st
from tapegrad.data._batching import _batch_size, _batched_card, _groups, _stack
from tapegrad.data._dataset import Dataset, Mapped
from tapegrad.dtypes import as_dtype, int32, int64

__all__ = ["RaggedBatch", "SparseBatch", "ragged_batch", "sparse_batch", "dense_to_ragged_batch",
           "dense_to_sparse_batch"]


def _ragged_rank(spec):
    """The ragged rank a dense element of ``spec`` takes in ragged_batch (None: it batches densely)."""
    if not isinstance(spec, TensorSpec) or spec.shape.rank is None or spec.shape.is_fully_defined():
        return None
    return max(i for i, d in enumerate(spec.shape.as_list()) if d is None)


def _as_ragged(value, ragged_rank, splits_dtype):
    """A dense element as a RaggedTensor of ``ragged_rank`` (uniform rows; the tensor itself for 0)."""
    dense = value if isinstance(value, (Tensor, StringTensor)) else convert_to_tensor(value)
    dims = list(dense.shape)
    if ragged_rank == 0:
        return dense
    rows = int(np.prod(dims[:ragged_rank + 1]))
    flat_shape = [rows] + dims[ragged_rank + 1:]
    result = string_constant(np.asarray(dense._value, dtype=object).reshape(flat_shape)) if isinstance(
        dense, StringTensor) else convert_to_tensor(np.asarray(dense).reshape(flat_shape))
    for level in reversed(range(ragged_rank)):
        count = int(np.prod(dims[:level + 1]))
        result = RaggedTensor.from_row_lengths(result, np.full(count, dims[level + 1], np.int64))
        result._with_splits_dtype(splits_dtype)
    return result


class RaggedBatch(Dataset):
    def __init__(self, dataset, batch_size, drop_remainder, row_splits_dtype):
        st.require_tensors(dataset, "Dataset.ragged_batch")
        self._input = dataset
        self._size = _batch_size(batch_size, "Dataset.ragged_batch")
        self._drop = bool(drop_remainder)
        splits_dtype = as_dtype(row_splits_dtype)
        if splits_dtype not in (int32, int64):
            raise ValueError(f"Dataset.ragged_batch: `row_splits_dtype` must be int32 or int64, got {splits_dtype!r}")
        dim = self._size if self._drop else None
        self._ranks = [_ragged_rank(s) for s in dataset._specs]
        self._element_specs = [s if r is None else RaggedTensorSpec(s.shape, s.dtype, r, splits_dtype)
                               for s, r in zip(dataset._specs, self._ranks)]
        super().__init__(st.structure_of(dataset.element_spec,
                                         [st.batched_spec(s, dim) for s in self._element_specs]))

    def _card(self):
        return _batched_card(self._input._card(), self._size, self._drop)

    def _batch(self, group):
        out = []
        for i, (spec, rank) in enumerate(zip(self._element_specs, self._ranks)):
            if rank is not None:
                group_i = [(_as_ragged(e[i], rank, spec.row_splits_dtype),) for e in group]
                out.append(_stack(group_i, 0, spec))
            else:
                out.append(_stack(group, i, spec))
        return tuple(out)

    def _flat(self):
        return Mapped(self._batch, _groups(self._input._flat(), self._size, self._drop))


def _row_shape(row_shape):
    if isinstance(row_shape, Tensor):
        row_shape = np.asarray(row_shape).tolist()
    dims = TensorShape(row_shape).as_list() if not isinstance(row_shape, TensorShape) else row_shape.as_list()
    for d in dims:
        if d is not None and d < 0:
            raise ValueError(f"Dimension {d} must be >= 0")
    return dims


class SparseBatch(Dataset):
    def __init__(self, dataset, batch_size, row_shape):
        specs = dataset._specs
        if len(specs) != 1:
            kinds = ", ".join(f"tf.{getattr(s, 'dtype', None).name}" for s in specs)
            raise TypeError(f"`dense_to_sparse_batch` requires an input dataset whose elements have a single "
                            f"component, but the given dataset has the following component types: ({kinds}).")
        if not isinstance(specs[0], TensorSpec):
            raise TypeError(f"Dataset.sparse_batch: the elements must be dense tensors, got {specs[0]!r}")
        self._input = dataset
        self._size = _batch_size(batch_size, "Dataset.sparse_batch")
        self._row = _row_shape(row_shape)
        super().__init__(SparseTensorSpec([None] + self._row, specs[0].dtype))

    def _card(self):
        return _batched_card(self._input._card(), self._size, False)

    def _batch(self, group):
        arrays = [np.asarray(e[0]._value if isinstance(e[0], StringTensor) else e[0], dtype=object
                             if isinstance(e[0], StringTensor) else None) for e in group]
        row = self._row
        for a in arrays:
            if a.ndim != len(row):
                raise errors.InvalidArgumentError(None, None, f"Input element had shape ({_text(a.shape)}) that is "
                                                  f"incompatible with the row shape ({_text(row)}).")
            if any(r is not None and d > r for d, r in zip(a.shape, row)):
                raise errors.DataLossError(None, None, f"Input element had shape ({_text(a.shape)}) that is larger "
                                           f"than the row shape ({_text(row)}).")
        shape = [len(arrays)] + [r if r is not None else max(a.shape[k] for a in arrays) for k, r in enumerate(row)]
        indices = [np.concatenate([np.full((a.size, 1), i, np.int64), np.argwhere(np.ones(a.shape, bool))], axis=1)
                   for i, a in enumerate(arrays)]
        flat = np.concatenate([a.reshape(-1) for a in arrays])
        values = string_constant(flat) if flat.dtype == object else convert_to_tensor(flat)
        return (SparseTensor(np.concatenate(indices).reshape(-1, len(shape)), values, shape),)

    def _flat(self):
        return Mapped(self._batch, _groups(self._input._flat(), self._size, False))


def _text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=int64, name=None):
    """Batches of ``batch_size`` elements; components of varying shapes become RaggedTensors."""
    return RaggedBatch(self, batch_size, drop_remainder, row_splits_dtype)


def sparse_batch(self, batch_size, row_shape, name=None):
    """Batches of ``batch_size`` dense elements as SparseTensors of dense shape [batch] + ``row_shape``."""
    return SparseBatch(self, batch_size, row_shape)


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=int64):
    """For ``dataset.apply``: ``dataset.ragged_batch(...)``."""
    return lambda dataset: RaggedBatch(dataset, batch_size, drop_remainder, row_splits_dtype)


def dense_to_sparse_batch(batch_size, row_shape):
    """For ``dataset.apply``: ``dataset.sparse_batch(...)``."""
    return lambda dataset: SparseBatch(dataset, batch_size, row_shape)


Dataset.ragged_batch = ragged_batch
Dataset.sparse_batch = sparse_batch
