"""tf.io.parse_single_example and parse_example: tf.train.Example protos (serialized) to tensors, by a dict
of feature configs (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature and SparseFeature as a
tf.SparseTensor, RaggedFeature as a tf.RaggedTensor: Notes [Sparse features] and [Ragged features]).

Note [Example parsing]: each key's Feature holds one of a float_list (float32), an int64_list (int64) or
a bytes_list (tf.string); a Feature with none of them counts as missing. A FixedLenFeature of shape s
takes exactly prod(s) values, or its default_value (reshaped to s) when the key is missing; without a
default a missing key raises. A FixedLenSequenceFeature of shape s takes any multiple of prod(s)
values, n rows of s; parse_example pads every example's rows to the batch's most, with default_value
(or 0, b""); it must have allow_missing=True (TF's ValueError otherwise), and a missing key is zero
rows. Errors are TF's classes and texts (InvalidArgumentError "Feature: x (data type: float) is
required but could not be found.", ...).
A batch of FixedLenFeatures is read by NumPy in one pass (Note [Parsing a batch in one pass]); otherwise
each record is decoded once by protobuf, and each feature's values of the whole batch are gathered into
one list before one NumPy conversion.
"""
import contextlib
import copy

import numpy as np

from tapegrad import _protos, dtypes, errors
from tapegrad._ops.composite.ragged_tensor import RaggedTensor
from tapegrad._tensor.string_tensor import StringTensor, string_constant
from tapegrad._tensor.tensor import Tensor
from tapegrad.io._args import kernel_dtype_name
from tapegrad.io._feature_columns import (
    fixed_column,
    ragged_column,
    sequence_column,
    sparse_column,
    tensor_of,
    var_len_column,
)
from tapegrad.io._feature_configs import (
    KINDS,
    FixedLenFeature,
    FixedLenSequenceFeature,
    VarLenFeature,
)
from tapegrad.io._ragged_feature import RaggedFeature
from tapegrad.io._sparse_feature import SparseFeature, sparse_parts
from tapegrad.io._wire_batch import fixed_features

__all__ = [
    "FixedLenFeature",
    "FixedLenSequenceFeature",
    "RaggedFeature",
    "SparseFeature",
    "VarLenFeature",
    "check_features",
    "parse_example",
    "parse_feature_maps",
    "parse_single_example",
    "serialized_records",
]


def _dims(shape, key, config):
    dims = list(shape) if isinstance(shape, (list, tuple)) else list(getattr(shape, "as_list", lambda: shape)())
    if dims and dims[0] is None:
        raise ValueError(f"First dimension of shape for feature {key} unknown. Consider using "
                         f"FixedLenSequenceFeature. Received feature={config}.")
    if any(d is None or not isinstance(d, (int, np.integer)) or d < 0 for d in dims):
        raise ValueError(f"Feature {key}: shape must be fully defined non-negative ints, got {shape!r}")
    return [int(d) for d in dims]


_CONFIGS = (FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, SparseFeature, RaggedFeature)


def check_features(features, allowed=_CONFIGS, sequence=False):
    """{key: (config, dtype, dims)} for a dict of feature configs, checked as TF checks them (``sequence``:
    the feature lists of a SequenceExample)."""
    if not isinstance(features, dict) or not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    out = {}
    for key, config in features.items():
        if not isinstance(config, _CONFIGS):
            raise TypeError(f"parse_example: feature {key!r} must be a FixedLenFeature, FixedLenSequenceFeature, "
                            f"VarLenFeature, SparseFeature or RaggedFeature, got {type(config).__name__}")
        if not isinstance(config, allowed):
            raise ValueError(f"Unsupported {type(config).__name__} {config} for key '{key}'")  # noqa: TRY004 -- TF's class
        dtype = dtypes.as_dtype(config.dtype)
        if dtype not in KINDS:
            raise errors.InvalidArgumentError(None, None, f"Value for attr 'Tdense' of {kernel_dtype_name(dtype)} is "
                                              "not in the list of allowed values: float, int64, string")
        if isinstance(config, FixedLenSequenceFeature):
            if not (sequence or config.allow_missing):
                raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be True.")
            dims = [int(d) for d in config.shape]
        elif isinstance(config, FixedLenFeature):
            dims = _dims(config.shape, key, config)
        elif isinstance(config, SparseFeature):
            dims = sparse_parts(config)
        else:
            dims = None
        out[key] = (config, dtype, dims)
    _check_keys(out)
    return out


def _reads(key, config, dims):
    """The (feature key, dtype) pairs a config reads."""
    if isinstance(config, SparseFeature):
        return [(config.value_key, config.dtype)] + [(k, dtypes.int64) for k in dims[0]]
    if isinstance(config, RaggedFeature):
        return [(config.value_key or key, config.dtype)] + [(p.key, dtypes.int64) for p in config.partitions
                                                            if hasattr(p, "key")]
    return [(key, config.dtype)]


def _check_keys(configs):
    groups, read_as = {"dense": set(), "sparse": set(), "ragged": set()}, {}
    for key, (config, dtype, dims) in configs.items():
        reads = _reads(key, config, dims)
        group = "dense" if isinstance(config, (FixedLenFeature, FixedLenSequenceFeature)) else \
            "ragged" if isinstance(config, RaggedFeature) else "sparse"
        groups[group].update([reads[0][0]] if group == "ragged" else [k for k, _ in reads])
        for name, kind in reads:
            kind = dtypes.as_dtype(kind)
            if read_as.setdefault(name, kind) is not kind:
                raise ValueError(f"Conflicting type {read_as[name]!r} vs {kind!r} for feature {name}.")
    for a, b in (("dense", "sparse"), ("dense", "ragged"), ("ragged", "sparse")):
        common = groups[a] & groups[b]
        if common:
            raise ValueError(f"{a.capitalize()} and {b} keys must not intersect; {a}_keys: {sorted(groups[a])}, "
                             f"{b}_keys: {sorted(groups[b])}, intersection: {common}")


def serialized_records(serialized, single):
    """The serialized protos as a NumPy object array: a scalar (single) or a vector."""
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


def _with_splits_dtype(value, dtype):
    """A parsed ragged feature's row partitions as its config's row_splits_dtype (a dense one as it is)."""
    return value.with_row_splits_dtype(dtype) if isinstance(value, RaggedTensor) else value


_COLUMNS = {FixedLenFeature: fixed_column, FixedLenSequenceFeature: sequence_column, SparseFeature: sparse_column}


def parse_feature_maps(maps, configs, batched):
    """{key: tensor} for decoded Features maps (one, or a batch) by checked configs."""
    out = {}
    for key, (config, dtype, dims) in configs.items():
        if isinstance(config, VarLenFeature):
            out[key] = var_len_column(maps, key, dtype, batched)
        elif isinstance(config, RaggedFeature):
            out[key] = _with_splits_dtype(ragged_column(maps, key, config, dtype, batched), config.row_splits_dtype)
        else:
            out[key] = _COLUMNS[type(config)](maps, key, config, dtype, dims, batched)
    return out


# (the features dict checked last, a copy of its configs (lists copied), what checking gave), replaced
# whole, so that threads parsing by different dicts never see one dict's copy with another's result
_LAST = [(None, None, None)]


def _configs_of(features):
    """check_features, skipped when the same dict with equal configs was checked last (a dataset's map
    parses every element by one dict)."""
    last, snapshot, configs = _LAST[0]
    # configs that do not compare (array defaults) are checked again
    with contextlib.suppress(Exception):
        if last is features and [(k, tuple(v)) for k, v in features.items()] == snapshot:
            return configs
    configs = check_features(features)
    try:
        _LAST[0] = (features, [(k, tuple(copy.deepcopy(f) if isinstance(f, list) else f for f in v))
                               for k, v in features.items()], configs)
    except Exception:  # noqa: BLE001 -- configs that do not copy are checked every time
        _LAST[0] = (None, None, None)
    return configs


def _parse(serialized, features, single):
    configs = _configs_of(features)
    records = serialized_records(serialized, single)
    batched = records.ndim == 1
    if batched and all(isinstance(c, FixedLenFeature) for c, _, _ in configs.values()):
        arrays = fixed_features(records.tolist(), {k: (dtype, dims) for k, (_, dtype, dims) in configs.items()})
        if arrays is not None:  # Note [Parsing a batch in one pass]
            return {k: tensor_of(a, configs[k][1]) for k, a in arrays.items()}
    maps = [_parse_proto(r) for r in records.reshape(-1)]
    return parse_feature_maps(maps, configs, batched)


def parse_single_example(serialized, features, example_names=None, name=None):
    """One serialized tf.train.Example (a scalar string) as {key: tensor} by ``features``' configs."""
    return _parse(serialized, features, single=True)


def parse_example(serialized, features, example_names=None, name=None):
    """A vector of serialized tf.train.Examples as {key: tensor with a leading batch dimension}."""
    return _parse(serialized, features, single=False)
