"""tf.io.SparseFeature: a tf.SparseTensor from index features and a value feature of one example each.

Note [Sparse features]: ``index_key`` names one int64 feature per dense dimension (a string for one
dimension), ``value_key`` the values, ``size`` the dense shape; entry i is values[i] at (index_0[i],
index_1[i], ...). Unless ``already_sorted``, each example's entries are sorted by their index (stably:
repeated indices keep their order, as TF's). parse_example puts the example's number first in every
index and the batch size first in the dense shape. Index and value counts must agree (TF's ValueError
"Dimensions a and b are not compatible"); an index outside [0, size) is an InvalidArgumentError here,
where TF would make a SparseTensor that later ops refuse.
"""
import collections

import numpy as np

from tapegrad import errors

__all__ = ["SparseFeature", "sparse_entries", "sparse_parts"]


class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size",
                                                             "already_sorted"])):
    """Values at indices, both read from features, as a tf.SparseTensor of dense shape ``size``."""

    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


def sparse_parts(config):
    """The index keys and the dense sizes of a SparseFeature, as lists of the same length."""
    keys = [config.index_key] if isinstance(config.index_key, str) else list(config.index_key)
    if config.size is None or isinstance(config.size, bool):
        raise TypeError(f"vocab_size has to be a Tensor or Python int. Found {type(config.size)}")
    sizes = [int(config.size)] if np.ndim(config.size) == 0 else [int(s) for s in config.size]
    if len(keys) != len(sizes) or not keys:
        raise ValueError(f"SparseFeature: index_key {config.index_key!r} and size {config.size!r} must name as many "
                         "dimensions")
    return keys, sizes


def sparse_entries(indices, values, config, sizes):
    """One example's entries: (indices [n, rank] int64, values), sorted unless already_sorted."""
    for column in indices:
        if len(column) != len(values):
            raise ValueError(f"Dimensions {len(column)} and {len(values)} are not compatible")
    matrix = np.stack(indices, axis=1).astype(np.int64) if indices else np.zeros((len(values), 0), np.int64)
    outside = (matrix < 0) | (matrix >= np.asarray(sizes, np.int64))
    if outside.any():
        where = int(np.flatnonzero(outside.any(axis=1))[0])
        raise errors.InvalidArgumentError(None, None, f"SparseFeature {config.value_key!r}: index "
                                          f"{matrix[where].tolist()} is outside the dense shape {list(sizes)}")
    if not config.already_sorted and len(values) > 1:
        order = np.lexsort(matrix.T[::-1])  # lexsort is stable; its last key is the primary one
        matrix, values = matrix[order], values[order]
    return matrix, values
