"""The dense and variable-length feature configs of tf.io (FixedLenFeature, FixedLenSequenceFeature,
VarLenFeature) and reading one key's values out of a decoded tf.train.Features map (Note [Example parsing])."""
import collections

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.tensor import Tensor

__all__ = [
    "KINDS",
    "KIND_NAMES",
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "KindMismatch",
    "VarLenFeature",
    "as_array",
    "default_of",
    "feature_values",
    "np_dtype",
]

KINDS = {dtypes.float32: ("float_list", "float"), dtypes.int64: ("int64_list", "int64"),
         dtypes.string: ("bytes_list", "string")}
KIND_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of a fixed shape: exactly prod(shape) values, or default_value when it is missing."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple("FixedLenSequenceFeature",
                                                     ["shape", "dtype", "allow_missing", "default_value"])):
    """Rows of a fixed shape, as many as the values make; padded to the batch's longest by parse_example."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Every value of the feature, as a tf.SparseTensor."""


class KindMismatch(Exception):
    """A feature holds another kind of list than its config's dtype reads; the caller words TF's message."""


def feature_values(feature_map, key, dtype):
    """The key's values (protobuf's repeated field), or None when it is missing; KindMismatch(kind) if mistyped."""
    if key not in feature_map:  # (indexing a protobuf map would add the key)
        return None
    feature = feature_map[key]
    kind = feature.WhichOneof("kind")
    if kind is None:
        return None
    if kind != KINDS[dtype][0]:
        raise KindMismatch(kind)
    return getattr(feature, kind).value


def np_dtype(dtype):
    return object if dtype is dtypes.string else dtype.as_numpy_dtype


def as_array(values, dtype):
    """A list of values (or protobuf's repeated field) as a 1-D NumPy array of the dtype."""
    if dtype is dtypes.string:
        out = np.empty(len(values), object)
        out[:] = list(values)
        return out
    return np.array(values, dtype=dtype.as_numpy_dtype).reshape(-1)


def default_of(config, dtype, dims):
    """A FixedLenFeature's default reshaped to its shape, a FixedLenSequenceFeature's padding value, or None."""
    if config.default_value is None:
        return None
    values = np.asarray(config.default_value.numpy() if isinstance(config.default_value, Tensor)
                        else config.default_value, dtype=np_dtype(dtype))
    if dtype is dtypes.string:
        values = np.vectorize(lambda v: v.encode() if isinstance(v, str) else bytes(v), otypes=[object])(values)
    want = int(np.prod(dims, dtype=np.int64))
    if isinstance(config, FixedLenSequenceFeature):
        return values.reshape(-1)[0] if values.size else None
    if values.size != want:
        raise errors.InvalidArgumentError(None, None, f"Input to reshape is a tensor with {values.size} values, but "
                                          f"the requested shape has {want}")
    return values.reshape(dims)
