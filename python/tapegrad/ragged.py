"""tf.ragged: making and combining RaggedTensors (Note [RaggedTensor] in _ops/composite/ragged_tensor.py)."""
import builtins

import numpy as np

from tapegrad import dtypes as _dtypes, errors as _errors
from tapegrad._ops.array.manipulation import concat as _concat
from tapegrad._ops.composite.ragged_tensor import RaggedTensor, RaggedTensorSpec, _take
from tapegrad._tensor.string_tensor import StringTensor as _StringTensor, string_constant as _strings
from tapegrad._tensor.tensor import constant as _constant, convert_to_tensor as _convert

__all__ = ["RaggedTensor", "RaggedTensorSpec", "constant", "map_flat_values", "range", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits", "stack", "boolean_mask"]


def _depth(value):
    """How many list levels a nested Python value has before its scalars (its first non-empty path)."""
    d = 0
    while isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim):
        if not len(value):
            return d + 1
        value, d = value[0], d + 1
    return d


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=_dtypes.int64):
    """A RaggedTensor from a nested Python list; the last len(inner_shape) (or rank - 1 - ragged_rank)
    levels are uniform and stay in the flat values."""
    depth = _depth(pylist)
    inner = len(inner_shape) if inner_shape is not None else (depth - 1 - ragged_rank if ragged_rank is not None else 0)
    rank = depth - inner - 1 if ragged_rank is None else int(ragged_rank)
    if rank < 1:
        return _flat(pylist, dtype)
    nested, level = [], list(pylist)
    for _ in builtins.range(rank):  # (this module's range is tf.ragged.range)
        nested.append(np.concatenate([[0], np.cumsum([len(x) for x in level])]).astype(
            _dtypes.as_dtype(row_splits_dtype).as_numpy_dtype))
        level = [y for x in level for y in x]
    return RaggedTensor.from_nested_row_splits(_flat(level, dtype), nested)


def _flat(items, dtype):
    array = np.asarray(items, dtype=object)
    if array.size and all(isinstance(v, (str, bytes)) for v in array.reshape(-1)):
        return _strings(array)
    return _constant(list(items) if len(items) else np.zeros(0, np.float32), dtype=dtype)


def map_flat_values(op, *args, **kwargs):
    """op applied to the flat values of the RaggedTensors among the arguments (of one row partition)."""
    ragged = [x for x in list(args) + list(kwargs.values()) if isinstance(x, RaggedTensor)]
    if not ragged:
        return op(*args, **kwargs)
    splits = [np.asarray(s) for s in ragged[0].nested_row_splits]
    for other in ragged[1:]:
        if len(other.nested_row_splits) != len(splits) or not all(
                np.array_equal(np.asarray(a), b) for a, b in zip(other.nested_row_splits, splits)):
            raise _errors.InvalidArgumentError(None, None, "map_flat_values: the RaggedTensors' row partitions differ")
    unwrap = lambda x: x.flat_values if isinstance(x, RaggedTensor) else x  # noqa: E731
    return ragged[0].with_flat_values(op(*map(unwrap, args), **{k: unwrap(v) for k, v in kwargs.items()}))


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dtypes.int64):  # noqa: A001
    """Row i: range(starts[i], limits[i], deltas[i]) (with one argument, range(0, starts[i]))."""
    if limits is None:
        starts, limits = 0, starts
    s, l, d = np.broadcast_arrays(*(np.asarray(v).reshape(-1) if np.ndim(v) else np.asarray([v])
                                    for v in (starts, limits, deltas)))
    if (d == 0).any():
        raise _errors.InvalidArgumentError(None, None, "Requires delta != 0")
    rows = [np.arange(a, b, c) for a, b, c in zip(s, l, d)]
    kind = dtype or (_dtypes.float32 if any(np.asarray(v).dtype.kind == "f" for v in (s, l, d)) else _dtypes.int32)
    flat = np.concatenate(rows) if rows else np.zeros(0)
    lengths = np.asarray([len(r) for r in rows], _dtypes.as_dtype(row_splits_dtype).as_numpy_dtype)
    return RaggedTensor.from_row_lengths(_constant(flat.astype(kind.as_numpy_dtype), dtype=kind), lengths)


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    splits = np.asarray(splits, np.int64)
    return _convert(np.repeat(np.arange(len(splits) - 1), np.diff(splits)), dtype=out_type or _dtypes.int64)


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    ids = np.asarray(segment_ids, np.int64)
    n = int(num_segments) if num_segments is not None else (int(ids.max()) + 1 if len(ids) else 0)
    return _convert(np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=n))]), dtype=out_type or _dtypes.int64)


def stack(values, axis=0, name=None):
    """RaggedTensors (or tensors) stacked along axis 0: their rows one after another, each a row of the result."""
    if int(axis) != 0:
        raise _errors.UnimplementedError(None, None, "tf.ragged.stack: only axis=0")
    parts = [v if isinstance(v, RaggedTensor) else RaggedTensor.from_tensor(v) for v in values]
    flat = [p.values for p in parts]
    joined = _strings(np.concatenate([np.asarray(f._value, dtype=object) for f in flat])) if isinstance(
        flat[0], _StringTensor) else _concat(flat, 0)
    lengths = [l for p in parts for l in np.diff(np.asarray(p.row_splits))]
    inner = RaggedTensor.from_row_lengths(joined, lengths)
    return RaggedTensor.from_row_lengths(inner, [p._nrows() for p in parts])


def boolean_mask(data, mask, name=None):
    """The entries of data where mask is true, each row keeping its own (a ragged result per row)."""
    m = np.asarray(mask.to_list() if isinstance(mask, RaggedTensor) else mask, dtype=object)
    if isinstance(data, RaggedTensor):
        rows = [np.flatnonzero(np.asarray(r, bool)) for r in mask.to_list()]
        splits = np.asarray(data.row_splits)
        keep = np.concatenate([splits[i] + r for i, r in enumerate(rows)]).astype(np.int64) if rows else []
        return RaggedTensor.from_row_lengths(_take(data.values, np.asarray(keep, np.int64)), [len(r) for r in rows])
    dense = np.asarray(m, bool)
    if dense.ndim < 2:
        return _take(_convert(data), np.flatnonzero(dense))
    t = _convert(data)
    keep = np.flatnonzero(dense.reshape(-1))
    flat = _take(_convert(np.asarray(t).reshape((-1,) + tuple(t.shape[dense.ndim:]))), keep)
    return RaggedTensor.from_row_lengths(flat, dense.reshape(dense.shape[0], -1).sum(axis=1))
