"""Datasets that combine or split elements along a new first dimension: batch, unbatch, padded_batch."""
import functools

import numpy as np

from tapegrad import errors
from tapegrad._ops.array.manipulation import concat, reshape
from tapegrad._tensor.tensor import Tensor, TensorSpec
from tapegrad.data import _composites as composites, _structure as st
from tapegrad.data._dataset import UNKNOWN_CARDINALITY, Dataset, Mapped, check_count

__all__ = ["Batch", "Unbatch", "PaddedBatch"]


def _batch_size(batch_size, op):
    size = check_count(batch_size, "batch_size", op)
    if size <= 0:
        raise errors.InvalidArgumentError(None, None, f"{op}: Batch size must be greater than zero, got {size}.")
    return size


def _batched_card(n, size, drop_remainder):
    if n < 0:
        return n
    return n // size if drop_remainder else -(-n // size)


def gatherer(column):
    """The fastest call gathering rows of ``column`` by an index array (``take`` beats ``[]`` on 2-D)."""
    if isinstance(column, np.ndarray) and column.ndim > 1:
        return functools.partial(column.take, axis=0)
    return column.__getitem__


class _groups:  # noqa: N801 -- used as the generator it replaces
    """Lists of `size` consecutive elements (the last one shorter unless drop_remainder). Not a
    generator: an element that raises drops its group and the next call starts a new one (Note
    [Element errors] in _functions.py)."""

    def __init__(self, elements, size, drop_remainder):
        self._source, self._size, self._drop, self._done = elements, size, drop_remainder, False
        self._next = iter(elements).__next__

    def __iter__(self):
        return self

    def close(self):
        close = getattr(self._source, "close", None)
        if close is not None:
            close()

    def __next__(self):
        group = []
        while len(group) < self._size and not self._done:
            try:
                group.append(self._next())
            except StopIteration:
                self._done = True
        if not group or (self._done and len(group) < self._size and self._drop):
            raise StopIteration
        return group


def _stack(group, component, spec=None):
    leaves = [e[component] for e in group]
    if composites.is_composite(spec):  # Note [Composite elements]
        return composites.batch_values(leaves, spec, component)
    first = leaves[0]
    if isinstance(first, Tensor) and first._shape and all(
            isinstance(t, Tensor) and t._shape == first._shape for t in leaves):
        # tensors from a map function: one concat in C++ beats a NumPy view of each
        return reshape(concat(leaves, 0), [len(leaves)] + list(first._shape))
    arrays = [np.asarray(a) for a in leaves]
    first = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != first:
            raise errors.InvalidArgumentError(
                None, None, f"Dataset.batch: Cannot batch tensors with different shapes in component {component}. "
                f"First element had shape {list(first)} and element {i} had shape {list(a.shape)}.")
    return np.stack(arrays)


class Batch(Dataset):
    def __init__(self, dataset, batch_size, drop_remainder):
        st.require_tensors(dataset, "Dataset.batch")
        self._input = dataset
        self._size = _batch_size(batch_size, "Dataset.batch")
        self._drop = bool(drop_remainder)
        dim = self._size if self._drop else None
        super().__init__(st.structure_of(dataset.element_spec, [st.batched_spec(s, dim) for s in dataset._specs]))

    def _card(self):
        return _batched_card(self._input._card(), self._size, self._drop)

    def _flat(self):
        if self._input._columns is not None:
            return self._gathered(self._input._columns, self._input._chunks())
        specs = self._input._specs
        return Mapped(lambda group: tuple(_stack(group, i, s) for i, s in enumerate(specs)),
                      _groups(self._input._flat(), self._size, self._drop))

    def _batch_indices(self, chunks):
        """Index arrays of the batches, in order, over a stream of index chunks."""
        size = self._size
        carry = None
        for chunk in chunks:
            if carry is not None and len(carry):
                chunk = np.concatenate([carry, chunk])
            full = len(chunk) - len(chunk) % size
            for start in range(0, full, size):
                yield chunk[start:start + size]
            carry = chunk[full:]
        if carry is not None and len(carry) and not self._drop:
            yield carry

    def _gathered(self, columns, chunks):
        """Each batch gathered by one index array: one NumPy call per component (Note [Row datasets])."""
        gathers = [gatherer(c) for c in columns]
        for idx in self._batch_indices(chunks):
            yield tuple(g(idx) for g in gathers)

    def _tensors(self):
        columns = self._input._columns
        if columns is None or len(columns) > 2 or self._pack not in (tuple,) and len(columns) != 1 or any(
                st.passes_through(s) for s in self._specs):
            return Dataset._tensors(self)
        return self._gathered_tensors(columns)

    def _gathered_tensors(self, columns):
        """_gathered with the conversion to Tensors inline: the hot loop of an in-memory epoch (one
        generator frame per batch: a batch of 32 rows costs about what NumPy's slicing costs)."""
        convert, size, pack = st.leaf_converter(self._specs), self._size, self._pack
        codes = [s.dtype.code for s in self._specs]
        c0, t0 = gatherer(columns[0]), codes[0]
        c1, t1 = (gatherer(columns[1]), codes[1]) if len(columns) == 2 else (None, None)
        carry = None
        for chunk in self._input._chunks():
            if carry is not None and len(carry):
                chunk = np.concatenate([carry, chunk])
            full = len(chunk) - len(chunk) % size
            if c1 is not None:
                for start in range(0, full, size):
                    idx = chunk[start:start + size]
                    yield convert(c0(idx), t0), convert(c1(idx), t1)
            else:
                for start in range(0, full, size):
                    yield pack((convert(c0(chunk[start:start + size]), t0),))
            carry = chunk[full:]
        if carry is not None and len(carry) and not self._drop:
            yield self._to_tensors(tuple(c[carry] for c in columns))


class Unbatch(Dataset):
    def __init__(self, dataset):
        st.require_tensors(dataset, "Dataset.unbatch")
        for spec in dataset._specs:
            if spec.shape.rank == 0:
                raise ValueError(f"Dataset.unbatch: Cannot unbatch an input with scalar components "
                                 f"(element_spec {dataset.element_spec}).")
        self._input = dataset
        super().__init__(st.structure_of(dataset.element_spec, [st.unbatched_spec(s) for s in dataset._specs]))

    def _card(self):
        n = self._input._card()
        dims = {s.shape[0] for s in self._input._specs}
        if n == UNKNOWN_CARDINALITY or len(dims) != 1 or None in dims:
            return UNKNOWN_CARDINALITY
        return n * dims.pop() if n >= 0 else n

    def _flat(self):
        if any(st.passes_through(s) for s in self._input._specs):
            yield from self._composite_rows()
            return
        for flat in self._input._flat():
            arrays = [np.asarray(a) for a in flat]
            lengths = {a.shape[0] if a.ndim else None for a in arrays}
            if len(lengths) != 1 or None in lengths:
                raise errors.InvalidArgumentError(None, None, f"Dataset.unbatch: the components have different "
                                                  f"first dimensions {[list(a.shape) for a in arrays]}")
            for i in range(lengths.pop()):
                yield tuple(a[i] for a in arrays)

    def _composite_rows(self):
        """Rows of elements that hold RaggedTensors or SparseTensors (Note [Composite elements])."""
        kinds = [composites.is_composite(s) for s in self._input._specs]
        for flat in self._input._flat():
            columns = [composites.rows_of(a) if k else list(np.asarray(a)) for a, k in zip(flat, kinds)]
            if len({len(c) for c in columns}) != 1:
                raise errors.InvalidArgumentError(None, None, f"Dataset.unbatch: the components have different "
                                                  f"first dimensions {[len(c) for c in columns]}")
            yield from zip(*columns)


def _padded_shape(padded, spec):
    if isinstance(padded, Tensor):
        padded = padded.numpy().tolist()
    shape = None if padded is None else [None if d is None or d == -1 else int(d) for d in padded]
    if shape is None:
        if spec.shape.rank is None:
            raise ValueError("Dataset.padded_batch: padded_shapes must be given for a component of unknown rank")
        return list(spec.shape)
    if spec.shape.rank is not None and (len(shape) != spec.shape.rank or
                                   any(p is not None and d is not None and p < d for p, d in zip(shape, spec.shape))):
        raise ValueError(f"Dataset.padded_batch: The padded shape {tuple(shape)} is not compatible with the shape "
                         f"{st.shape_text(spec.shape)} of the corresponding input component.")
    return shape


def _padding_value(value, spec):
    if value is None:
        return np.zeros((), spec.dtype.as_numpy_dtype)
    if isinstance(value, Tensor):
        given = value.dtype
    else:
        given = st.spec_of(st.as_array(value, what="Dataset.padded_batch")).dtype
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and spec.dtype.is_floating:
            given = spec.dtype  # 0 pads a float component, as TF converts it
    if given != spec.dtype:
        raise TypeError(f"Dataset.padded_batch: Invalid `padding_values`. `padding_values` values type {given!r} "
                        f"does not match type {spec.dtype!r} of the corresponding input component.")
    array = np.asarray(value.numpy() if isinstance(value, Tensor) else value, spec.dtype.as_numpy_dtype)
    if array.ndim:
        raise ValueError(f"Dataset.padded_batch: a padding value must be a scalar, got shape {array.shape}")
    return array


def _per_component(value, dataset, what):
    """``value`` given per component of the element (nested as it), or one value for all of them."""
    nested = isinstance(dataset.element_spec, (tuple, dict))
    if value is None or not nested or not isinstance(value, (tuple, dict)):
        return [value] * len(dataset._specs)
    flat = st.flatten(value)
    if len(flat) != len(dataset._specs):
        raise ValueError(f"Dataset.padded_batch: `{what}` {value} does not match the element structure "
                         f"{dataset.element_spec}")
    return flat


class PaddedBatch(Dataset):
    def __init__(self, dataset, batch_size, padded_shapes, padding_values, drop_remainder):
        st.require_tensors(dataset, "Dataset.padded_batch")
        for spec in dataset._specs:
            if composites.is_composite(spec):
                raise TypeError(f"`padded_batch` is only supported for datasets that produce tensor elements but "
                                f"type spec of elements in the input dataset is not a subclass of TensorSpec: "
                                f"`{spec!r}`.")
        self._input = dataset
        self._size = _batch_size(batch_size, "Dataset.padded_batch")
        self._drop = bool(drop_remainder)
        shapes = _per_component(padded_shapes, dataset, "padded_shapes")
        self._shapes = [_padded_shape(p, s) for p, s in zip(shapes, dataset._specs)]
        values = _per_component(padding_values, dataset, "padding_values")
        self._values = [_padding_value(v, s) for v, s in zip(values, dataset._specs)]
        dim = self._size if self._drop else None
        super().__init__(st.structure_of(dataset.element_spec, [
            TensorSpec([dim] + shape, s.dtype) for shape, s in zip(self._shapes, dataset._specs)]))

    def _card(self):
        return _batched_card(self._input._card(), self._size, self._drop)

    def _flat(self):
        for group in _groups(self._input._flat(), self._size, self._drop):
            yield tuple(self._pad(group, i) for i in range(len(self._specs)))

    def _pad(self, group, component):
        arrays = [np.asarray(e[component]) for e in group]
        shape = self._shapes[component]
        for a in arrays:
            if a.ndim != len(shape):
                raise errors.InvalidArgumentError(None, None, f"Dataset.padded_batch: component {component} has "
                                                  f"shape {list(a.shape)}, not of rank {len(shape)}")
        target = [p if p is not None else max(a.shape[k] for a in arrays) for k, p in enumerate(shape)]
        out = np.full([len(arrays)] + target, self._values[component])
        for i, a in enumerate(arrays):
            if any(d > t for d, t in zip(a.shape, target)):
                raise errors.DataLossError(None, None, f"Dataset.padded_batch: Attempted to pad to a smaller size "
                                           f"than the input element: shape {list(a.shape)} into {target}.")
            out[(i,) + tuple(slice(0, d) for d in a.shape)] = a
        return out
