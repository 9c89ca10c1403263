"""One feature of a batch of decoded tf.train.Features maps as the tensor TF gives it: a dense tensor
(FixedLenFeature, FixedLenSequenceFeature), a tf.SparseTensor (VarLenFeature, SparseFeature) or a
tf.RaggedTensor (RaggedFeature). Notes [Example parsing], [Sparse features] and [Ragged features]."""
import math

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops.composite.sparse_tensor import SparseTensor
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad.io._feature_configs import (
    KIND_NAMES,
    KINDS,
    KindMismatch,
    as_array,
    default_of,
    feature_values,
    np_dtype,
)
from tapegrad.io._ragged_feature import join_levels, ragged_levels, ragged_tensor
from tapegrad.io._sparse_feature import sparse_entries

__all__ = [
    "fixed_column",
    "ragged_column",
    "sequence_column",
    "sparse_column",
    "sparse_tensor",
    "tensor_of",
    "var_len_column",
]


def tensor_of(array, dtype):
    """A NumPy array of parsed values as a tensor (strings are protobuf's bytes already: no conversion)."""
    if dtype is dtypes.string:
        return StringTensor(np.asarray(array, dtype=object))
    return _core.from_numpy(np.asarray(array, dtype=dtype.as_numpy_dtype), dtype.code)


def _mismatch(key, dtype, kind, index, batched):
    where = f"Name: <unknown>, Key: {key}, Index: {index}." if batched else f"Key: {key}."
    return errors.InvalidArgumentError(None, None, f"{where}  Data types don't match. Data type: "
                                       f"{KIND_NAMES[kind]} but expected type: {KINDS[dtype][1]}")


def _rows(maps, key, dtype, batched):
    """Each map's values for key as a NumPy array, None where it is missing."""
    out = []
    for index, feature_map in enumerate(maps):
        try:
            values = feature_values(feature_map, key, dtype)
        except KindMismatch as e:
            raise _mismatch(key, dtype, e.args[0], index, batched) from None
        out.append(None if values is None else as_array(values, dtype))
    return out


def _typed_rows(maps, key, dtype, batched, first=0):
    """As _rows, missing as empty, a mismatch worded as TF's ragged and sparse parsers word it."""
    out = []
    for index, feature_map in enumerate(maps, first):
        try:
            values = feature_values(feature_map, key, dtype)
        except KindMismatch as e:
            where = f"Name: <unknown>, Key: {key}, Index: {index}." if batched else f"Key: {key}."
            raise errors.InvalidArgumentError(None, None, f"{where}  Data types don't match. Expected type: "
                                              f"{KINDS[dtype][1]}, Actual type: {KIND_NAMES[e.args[0]]}") from None
        out.append(as_array(() if values is None else values, dtype))
    return out


def fixed_column(maps, key, config, dtype, dims, batched):
    """A FixedLenFeature: every example's values gathered into one list, one NumPy conversion at the end."""
    if len(maps) == 1 and not batched:  # parse_single_example's common case: the values, in the shape
        try:
            values = feature_values(maps[0], key, dtype)
        except KindMismatch:
            values = None  # (worded below)
        if values is not None and len(values) == math.prod(dims) and config.default_value is None:
            return tensor_of(as_array(values, dtype).reshape(dims), dtype)
    default = None if config.default_value is None else default_of(config, dtype, dims)
    fill = None if default is None else default.reshape(-1).tolist()
    want, prefix = math.prod(dims), "Name: <unknown>, " if batched else ""
    flat = []
    for index, feature_map in enumerate(maps):
        try:
            values = feature_values(feature_map, key, dtype)
        except KindMismatch as e:
            raise _mismatch(key, dtype, e.args[0], index, batched) from None
        if values is None:
            if fill is None:
                raise errors.InvalidArgumentError(None, None, f"{prefix}Feature: {key} (data type: {KINDS[dtype][1]}) "
                                                  "is required but could not be found.")
            flat.extend(fill)
        elif len(values) != want:
            if batched:
                raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: {index}.  Number "
                                                  f"of {KINDS[dtype][1]} values != expected.  Values size: "
                                                  f"{len(values)} but output shape: {list(dims)}")
            raise errors.InvalidArgumentError(None, None, f"Key: {key}.  Can't parse serialized Example: Some "
                                              f"{KINDS[dtype][0]} slice was not parsed.")
        else:
            flat.extend(values)
    return tensor_of(as_array(flat, dtype).reshape(([len(maps)] if batched else []) + dims), dtype)


def sequence_rows(rows, key, config, dtype, dims, index=0):
    """A FixedLenSequenceFeature's values (None: missing) as rows of its shape."""
    stride = math.prod(dims)
    if rows is None:
        if not config.allow_missing:
            raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Feature: {key} (data type: "
                                              f"{KINDS[dtype][1]}) is required but could not be found.")
        rows = np.zeros(0, np_dtype(dtype))
    if stride == 0 or rows.size % stride:
        shape = str(["?"] + list(dims)).replace("'", "")
        raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: {index}.  Number of "
                                          f"{KINDS[dtype][1]} values is not a multiple of stride length. Saw "
                                          f"{rows.size} values but output shape is: {shape}")
    return rows.reshape([rows.size // stride] + dims)


def pad_rows(rows, dims, fill, dtype):
    """Row blocks of different counts padded with fill to the longest, stacked: [len(rows), longest] + dims."""
    longest = max((r.shape[0] for r in rows), default=0)
    out = np.full([len(rows), longest] + dims, fill, dtype=np_dtype(dtype))
    for i, r in enumerate(rows):
        out[i, :r.shape[0]] = r
    return out


def sequence_column(maps, key, config, dtype, dims, batched):
    default = default_of(config, dtype, dims)
    rows = [sequence_rows(r, key, config, dtype, dims, i) for i, r in enumerate(_rows(maps, key, dtype, batched))]
    if not batched:
        return tensor_of(rows[0].astype(np_dtype(dtype)), dtype)
    fill = default if default is not None else (b"" if dtype is dtypes.string else 0)
    return tensor_of(pad_rows(rows, dims, fill, dtype), dtype)


def sparse_tensor(rows, dtype, leading):
    """Rows of values (1-D arrays) as a VarLenFeature's SparseTensor parts: (index columns, the values, the row
    lengths), each value indexed by its row's ``leading`` columns (lists, one entry a row) and its place in the row."""
    lengths = np.asarray([len(r) for r in rows], np.int64)
    values = np.concatenate(rows) if rows else np.zeros(0, np_dtype(dtype))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]) if len(rows) else np.zeros(0, np.int64)
    inner = np.arange(len(values), dtype=np.int64) - np.repeat(starts, lengths)
    columns = [np.repeat(np.asarray(c, np.int64), lengths) for c in leading] + [inner]
    return columns, values, lengths


def var_len_column(maps, key, dtype, batched):
    rows = [np.zeros(0, np_dtype(dtype)) if r is None else r for r in _rows(maps, key, dtype, batched)]
    leading = [np.arange(len(rows))] if batched else []
    columns, values, lengths = sparse_tensor(rows, dtype, leading)
    shape = ([len(rows)] if batched else []) + [int(lengths.max()) if len(lengths) else 0]
    indices = np.stack(columns, axis=1) if columns else np.zeros((0, 1), np.int64)
    return SparseTensor(indices.reshape(-1, len(shape)), tensor_of(values.astype(np_dtype(dtype)), dtype),
                        np.asarray(shape, np.int64))


def sparse_column(maps, key, config, dtype, dims, batched):
    keys, sizes = dims
    index_rows = [_typed_rows(maps, k, dtypes.int64, batched) for k in keys]
    value_rows = _typed_rows(maps, config.value_key, dtype, batched)
    indices, values = [], []
    for b, row in enumerate(value_rows):
        matrix, vals = sparse_entries([column[b] for column in index_rows], row, config, sizes)
        indices.append(np.concatenate([np.full((len(vals), 1), b, np.int64), matrix], axis=1) if batched else matrix)
        values.append(vals)
    width = len(sizes) + (1 if batched else 0)
    matrix = np.concatenate(indices) if indices else np.zeros((0, width), np.int64)
    flat = np.concatenate(values).astype(np_dtype(dtype)) if values else np.zeros(0, np_dtype(dtype))
    shape = ([len(maps)] if batched else []) + list(sizes)
    return SparseTensor(matrix.reshape(-1, width), tensor_of(flat, dtype), np.asarray(shape, np.int64))


def ragged_examples(maps, key, config, dtype, batched):
    """Each map's (values, levels) for a RaggedFeature (Note [Ragged features])."""
    out = []
    for index, feature_map in enumerate(maps):
        values = _typed_rows([feature_map], config.value_key or key, dtype, batched, index)[0]

        def read(name, feature_map=feature_map, index=index):
            return _typed_rows([feature_map], name, dtypes.int64, batched, index)[0]
        out.append(ragged_levels(values, config, read))
    return out


def ragged_from_examples(examples, config, dtype, batched):
    if batched:
        values, levels = join_levels(examples, config.partitions)
        flat = np.concatenate(values) if values else np.zeros(0, np_dtype(dtype))
    else:
        flat, levels = examples[0]
    return ragged_tensor(flat.astype(np_dtype(dtype)), levels, lambda a: tensor_of(a, dtype))


def ragged_column(maps, key, config, dtype, batched):
    return ragged_from_examples(ragged_examples(maps, key, config, dtype, batched), config, dtype, batched)
