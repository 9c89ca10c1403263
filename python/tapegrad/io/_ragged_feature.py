"""tf.io.RaggedFeature and its partitions, and how a parsed feature becomes a tf.RaggedTensor.

Note [Ragged features]: a RaggedFeature reads its values from ``value_key`` (the feature's own key when
None) and cuts them by ``partitions``, listed outermost first; each partition but UniformRowLength reads
one more int64 feature (RowSplits, RowLengths, RowStarts, RowLimits, ValueRowIds). The cuts are applied
innermost first, each turning the rows it is given into fewer, longer rows. Here every cut is kept as
row lengths (one level per partition), so that parse_example joins its examples by concatenating each
level's lengths and adding the batch as one more, outermost level; UniformRowLength levels that are
innermost become dense dimensions of the flat values (as in TF: one example without any other partition
parses to a dense tensor). TF checks the partitions only with ``validate=True`` and otherwise may cut
inconsistent ones silently; tapegrad always checks them (an InvalidArgumentError naming the key), as the
partitions of an example must account for every value exactly once. A missing value or partition
feature is empty. The parsed RaggedTensor's row splits have the config's ``row_splits_dtype`` (int32 by
default, as TF's; int32 or int64).
"""
import collections

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops.composite.ragged_tensor import RaggedTensor

__all__ = ["RaggedFeature", "join_levels", "ragged_levels", "ragged_tensor"]


def _partition(name, field):
    return collections.namedtuple(name, [field])


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                                                             "validate"])):
    """A feature parsed to a tf.RaggedTensor: its values cut by ``partitions`` (outermost first)."""

    RowSplits = _partition("RowSplits", "key")
    RowLengths = _partition("RowLengths", "key")
    RowStarts = _partition("RowStarts", "key")
    RowLimits = _partition("RowLimits", "key")
    ValueRowIds = _partition("ValueRowIds", "key")
    UniformRowLength = _partition("UniformRowLength", "length")

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        dtype = dtypes.as_dtype(dtype)
        if dtype not in (dtypes.int64, dtypes.float32, dtypes.string):
            raise ValueError(f"Argument `dtype` must be int64, float32, or bytes; got {dtype!r}")
        row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if row_splits_dtype not in (dtypes.int32, dtypes.int64):
            raise ValueError(f"Argument `row_splits_dtype` must be int32 or int64; got {row_splits_dtype!r}")
        if value_key is not None and (not isinstance(value_key, str) or not value_key):
            raise ValueError(f"Argument `value_key` must be a string; got {value_key!r}")
        kinds = tuple(getattr(cls, n) for n in _KIND_NAMES)
        for p in partitions:
            if not isinstance(p, kinds):
                raise TypeError(f"Argument `partitions` must be a list of partition objects {_KIND_NAMES}; got: {p!r}")
        return super().__new__(cls, dtype, value_key, tuple(partitions), row_splits_dtype, validate)


_KIND_NAMES = ("RowSplits", "RowLengths", "RowStarts", "RowLimits", "ValueRowIds", "UniformRowLength")


def _bad(key, what, values):
    raise errors.InvalidArgumentError(None, None, f"RaggedFeature partition {key!r}: {what}; got "
                                      f"{np.asarray(values).tolist()}")


def _lengths(partition, count, read):
    """The row lengths one partition cuts ``count`` items into (the caller checks they hold them all)."""
    kind = type(partition).__name__
    if kind == "UniformRowLength":
        size = int(partition.length)
        if size < 0 or (size == 0 and count) or (size and count % size):
            _bad("UniformRowLength", f"{count} values are not rows of {size}", [size])
        return np.full(count // size if size else 0, size, np.int64)
    key, values = partition.key, read(partition.key)
    if kind == "ValueRowIds":
        if len(values) != count:
            _bad(key, f"{len(values)} value row ids for {count} values", values)
        if len(values) and (values[0] < 0 or (np.diff(values) < 0).any()):
            _bad(key, "value row ids must be >= 0 and sorted", values)
        return np.bincount(values).astype(np.int64) if len(values) else np.zeros(0, np.int64)
    if kind == "RowLengths":
        lengths = values
    elif kind == "RowSplits":
        if len(values) == 0:
            values = np.zeros(1, np.int64)  # a missing feature: no rows
        if values[0] != 0:
            _bad(key, "row splits must start at 0", values)
        lengths = np.diff(values)
    elif kind == "RowLimits":
        lengths = np.diff(np.concatenate([[0], values]))
    else:  # RowStarts: the last row ends at the last item
        if len(values) and values[0] != 0:
            _bad(key, "row starts must start at 0", values)
        lengths = np.diff(np.concatenate([values, [count]])) if len(values) else np.zeros(0, np.int64)
    if (lengths < 0).any():
        _bad(key, "rows must not have negative lengths", values)
    return lengths.astype(np.int64)


def ragged_levels(values, config, read):
    """One example's (values, levels innermost first as (row lengths, uniform length or None)).

    ``read(key)`` gives a partition feature's int64 values (empty when missing)."""
    levels, count, after_ids = [], len(values), False
    for partition in reversed(config.partitions):
        lengths = _lengths(partition, count, read)
        total = int(lengths.sum())
        if after_ids and total > count:  # value row ids name the last row with values: the outer level says how many
            levels[-1] = (np.concatenate([levels[-1][0], np.zeros(total - count, np.int64)]), None)
            count = total
        if total != count:
            _bad(getattr(partition, "key", "UniformRowLength"), f"the rows hold {total} values, but there are "
                 f"{count}", lengths)
        levels.append((lengths, getattr(partition, "length", None)))
        count, after_ids = len(lengths), type(partition).__name__ == "ValueRowIds"
    return values, levels


def join_levels(examples, partitions):
    """Many examples' (values, levels) as one: each level's lengths concatenated, the batch added outermost
    (``partitions`` give the levels of no examples)."""
    values = [v for v, _ in examples]
    sizes = [getattr(p, "length", None) for p in reversed(partitions)]
    joined = [(np.concatenate([np.zeros(0, np.int64)] + [e[1][d][0] for e in examples]).astype(np.int64), size)
              for d, size in enumerate(sizes)]
    tops = [len(e[1][-1][0]) if sizes else len(e[0]) for e in examples]
    return values, joined + [(np.asarray(tops, np.int64), None)]


def ragged_tensor(flat, levels, make):
    """The tensor for flat values (a NumPy array) cut by levels: dense when no level is ragged."""
    levels = list(levels)
    while levels and levels[0][1] is not None:
        size = levels.pop(0)[1]
        flat = flat.reshape((-1, size) + flat.shape[1:])
    result = make(flat)
    for lengths, size in levels:
        result = RaggedTensor.from_row_lengths(result, lengths, validate=False)
        if size is not None:
            result._uniform = size  # a uniform dimension: its size is in the static shape, as in TF
    return result
