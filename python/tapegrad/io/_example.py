"""tf.io.parse_single_example and parse_example: tf.train.Example protos (serialized) to tensors, by a dict
of feature configs (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature as a tf.SparseTensor; Sparse and
Ragged features raise UnimplementedError naming the feature).

Note [Example parsing]: each key's Feature holds one of a float_list (float32), an int64_list (int64) or
a bytes_list (tf.string); a Feature with none of them counts as missing. A FixedLenFeature of shape s
takes exactly prod(s) values, or its default_value (reshaped to s) when the key is missing; without a
default a missing key raises. A FixedLenSequenceFeature of shape s takes any multiple of prod(s)
values, n rows of s; parse_example pads every example's rows to the batch's most, with default_value
(or 0, b""), and allow_missing=True makes a missing key zero rows. Errors are TF's classes and texts
(InvalidArgumentError "Feature: x (data type: float) is required but could not be found.", ...).
"""
import collections

import numpy as np

from tapegrad import _protos, dtypes, errors
from tapegrad._ops.composite.sparse_tensor import SparseTensor
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor, constant
from tapegrad.io._args import kernel_dtype_name

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "SparseFeature", "RaggedFeature",
           "parse_single_example", "parse_example"]

_KINDS = {dtypes.float32: ("float_list", "float"), dtypes.int64: ("int64_list", "int64"),
          dtypes.string: ("bytes_list", "string")}
_KIND_NAMES = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


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


class SparseFeature(collections.namedtuple("SparseFeature", ["index_key", "value_key", "dtype", "size",
                                                             "already_sorted"])):
    def __new__(cls, index_key, value_key, dtype, size, already_sorted=False):
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


class RaggedFeature(collections.namedtuple("RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype",
                                                             "validate"])):
    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32, validate=False):
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


def _dims(shape, key, config):
    dims = list(shape) if isinstance(shape, (list, tuple)) else list(getattr(shape, "as_list", lambda: shape)())
    if dims and dims[0] is None:
        raise ValueError(f"First dimension of shape for feature {key} unknown. Consider using "
                         f"FixedLenSequenceFeature. Received feature={config}.")
    if any(d is None or not isinstance(d, (int, np.integer)) or d < 0 for d in dims):
        raise ValueError(f"Feature {key}: shape must be fully defined non-negative ints, got {shape!r}")
    return [int(d) for d in dims]


def _check_features(features):
    if not isinstance(features, dict) or not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    out = {}
    for key, config in features.items():
        if isinstance(config, (SparseFeature, RaggedFeature)):
            raise errors.UnimplementedError(None, None, f"parse_example: feature {key!r} is a "
                                            f"{type(config).__name__}, which tapegrad does not parse yet; use "
                                            "VarLenFeature, FixedLenFeature or FixedLenSequenceFeature")
        if not isinstance(config, (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature)):
            raise TypeError(f"parse_example: feature {key!r} must be a FixedLenFeature, FixedLenSequenceFeature or "
                            f"VarLenFeature, got {type(config).__name__}")
        dtype = dtypes.as_dtype(config.dtype)
        if dtype not in _KINDS:
            raise errors.InvalidArgumentError(None, None, f"Value for attr 'Tdense' of {kernel_dtype_name(dtype)} is "
                                              "not in the list of allowed values: float, int64, string")
        if isinstance(config, VarLenFeature):
            dims = None
        elif isinstance(config, FixedLenSequenceFeature):
            dims = [int(d) for d in config.shape]
        else:
            dims = _dims(config.shape, key, config)
        out[key] = (config, dtype, dims)
    return out


def _default(config, dtype, dims):
    if config.default_value is None:
        return None
    values = np.asarray(config.default_value.numpy() if isinstance(config.default_value, Tensor)
                        else config.default_value, dtype=object if dtype is dtypes.string else dtype.as_numpy_dtype)
    if dtype is dtypes.string:
        values = np.vectorize(lambda v: v.encode() if isinstance(v, str) else bytes(v), otypes=[object])(values)
    want = int(np.prod(dims, dtype=np.int64))
    if isinstance(config, FixedLenSequenceFeature):
        return values.reshape(-1)[0] if values.size else None
    if values.size != want:
        raise errors.InvalidArgumentError(None, None, f"Input to reshape is a tensor with {values.size} values, but "
                                          f"the requested shape has {want}")
    return values.reshape(dims)


def _serialized_list(serialized, single):
    if isinstance(serialized, StringTensor):
        value = np.asarray(serialized._value, dtype=object)
    elif isinstance(serialized, (bytes, str)):
        value = np.asarray(serialized.encode() if isinstance(serialized, str) else serialized, dtype=object)
    elif isinstance(serialized, Tensor):
        raise TypeError(f"parse_example: serialized must be a tf.string tensor, got {serialized.dtype.name}")
    else:
        value = np.asarray(string_constant(serialized)._value, dtype=object)
    if single and value.ndim != 0:
        raise ValueError("Input serialized must be a scalar")
    if value.ndim > 1:
        raise ValueError(f"parse_example: serialized must be a scalar or a vector, got shape {value.shape}")
    return value


def _parse_proto(data):
    try:
        return _protos.Example.FromString(bytes(data)).features.feature
    except Exception:  # noqa: BLE001 -- protobuf's DecodeError and its relatives: not an Example
        text = bytes(data)[:64].decode("latin-1")
        raise errors.InvalidArgumentError(None, None, f"Could not parse example input, value: '{text}'") from None


def _values(feature_map, key, dtype, batch_text):
    """The key's values as a NumPy array, or None when it is missing."""
    if key not in feature_map:
        return None
    feature = feature_map[key]
    kind = feature.WhichOneof("kind")
    if kind is None:
        return None
    want, name = _KINDS[dtype]
    if kind != want:
        raise errors.InvalidArgumentError(None, None, f"{batch_text}Key: {key}.  Data types don't match. Data type: "
                                          f"{_KIND_NAMES[kind]} but expected type: {name}")
    values = getattr(feature, kind).value
    if dtype is dtypes.string:
        return np.array(list(values), dtype=object)
    return np.array(values, dtype=dtype.as_numpy_dtype)


def _fixed(values, key, config, dtype, dims, default, batched):
    prefix = "Name: <unknown>, " if batched else ""
    if values is None:
        if default is None:
            raise errors.InvalidArgumentError(None, None, f"{prefix}Feature: {key} (data type: {_KINDS[dtype][1]}) "
                                              "is required but could not be found.")
        return default
    want = int(np.prod(dims, dtype=np.int64))
    if values.size != want:
        if batched:
            raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: 0.  Number of "
                                              f"{_KINDS[dtype][1]} values != expected.  Values size: {values.size} but "
                                              f"output shape: {list(dims)}")
        raise errors.InvalidArgumentError(None, None, f"Key: {key}.  Can't parse serialized Example: Some "
                                          f"{_KINDS[dtype][0]} slice was not parsed.")
    return values.reshape(dims)


def _sequence(values, key, config, dtype, dims):
    stride = int(np.prod(dims, dtype=np.int64))
    if values is None:
        if not config.allow_missing:
            raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Feature: {key} (data type: "
                                              f"{_KINDS[dtype][1]}) is required but could not be found.")
        values = np.zeros(0, object if dtype is dtypes.string else dtype.as_numpy_dtype)
    if stride == 0 or values.size % stride:
        raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: 0.  Number of "
                                          f"{_KINDS[dtype][1]} values is not a multiple of stride length. Saw "
                                          f"{values.size} values but output shape is: {[None] + list(dims)}".replace(
                                              "None", "?"))
    return values.reshape([values.size // stride] + dims)


def _tensor(array, dtype):
    if dtype is dtypes.string:
        return string_constant(array)
    return constant(array, dtype=dtype)


def _var_len(rows, dtype, batched):
    """A VarLenFeature's values as TF gives them: a SparseTensor [batch, longest] (one example: [count])."""
    np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
    rows = [np.zeros(0, np_dtype) if r is None else r for r in rows]
    values = np.concatenate(rows).astype(np_dtype) if rows else np.zeros(0, np_dtype)
    if batched:
        indices = [[b, j] for b, r in enumerate(rows) for j in range(len(r))]
        shape = [len(rows), max((len(r) for r in rows), default=0)]
    else:
        indices, shape = [[j] for j in range(len(rows[0]))], [len(rows[0])]
    indices = np.asarray(indices, np.int64).reshape(-1, len(shape))
    return SparseTensor(indices, _tensor(values, dtype), np.asarray(shape, np.int64))


def _parse(serialized, features, single):
    configs = _check_features(features)
    records = _serialized_list(serialized, single)
    flat = records.reshape(-1)
    batched = records.ndim == 1
    maps = [_parse_proto(r) for r in flat]
    out = {}
    for key, (config, dtype, dims) in configs.items():
        if isinstance(config, VarLenFeature):
            rows = [_values(m, key, dtype, "Name: <unknown>, " if batched else "") for m in maps]
            out[key] = _var_len(rows, dtype, batched)
            continue
        default = _default(config, dtype, dims)
        rows = []
        for feature_map in maps:
            values = _values(feature_map, key, dtype, "Name: <unknown>, " if batched else "")
            if isinstance(config, FixedLenSequenceFeature):
                rows.append(_sequence(values, key, config, dtype, dims))
            else:
                rows.append(_fixed(values, key, config, dtype, dims, default, batched))
        if isinstance(config, FixedLenSequenceFeature):
            longest = max((r.shape[0] for r in rows), default=0)
            fill = default if default is not None else (b"" if dtype is dtypes.string else 0)
            padded = []
            for r in rows:
                pad = np.full([longest - r.shape[0]] + dims, fill, dtype=r.dtype)
                padded.append(np.concatenate([r, pad]) if len(pad) else r)
            rows = padded
        np_dtype = object if dtype is dtypes.string else dtype.as_numpy_dtype
        if batched:
            shape = [len(rows)] + (list(rows[0].shape) if rows else [0] * 0 + dims)
            array = np.stack(rows).astype(np_dtype) if rows else np.zeros(shape, np_dtype)
        else:
            array = np.asarray(rows[0], dtype=np_dtype)
        out[key] = _tensor(array, dtype)
    return out


def parse_single_example(serialized, features, example_names=None, name=None):
    """One serialized tf.train.Example (a scalar string) as {key: tensor} by ``features``' configs."""
    return _parse(serialized, features, single=True)


def parse_example(serialized, features, example_names=None, name=None):
    """A vector of serialized tf.train.Examples as {key: tensor with a leading batch dimension}."""
    return _parse(serialized, features, single=False)
