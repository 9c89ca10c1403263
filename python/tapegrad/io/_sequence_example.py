"""tf.io.parse_single_sequence_example and parse_sequence_example: tf.train.SequenceExample protos
(serialized) to tensors, the context by Example's feature configs, the feature lists by sequence configs.

Note [Sequence example parsing]: a SequenceExample holds ``context`` (a Features map, parsed as an
Example's: FixedLenFeature, VarLenFeature, RaggedFeature) and ``feature_lists`` (key -> a list of
Features, one a time step). A FixedLenSequenceFeature of shape s takes exactly prod(s) values a step and
gives [steps] + s (a batch padded with 0 or b"" to its most steps; parse_sequence_example's third result
gives each example's steps, int64, for these keys alone); its default_value must be None, and a missing
list raises unless allow_missing (then it has no steps). A VarLenFeature gives a SparseTensor indexed
(example, step, value). A RaggedFeature cuts each step's values by its partitions, read from the same
step of the partition keys' lists (Note [Ragged features]), the steps making one more ragged dimension.
parse_sequence_example also takes one scalar record, giving unbatched results (scalar lengths).
"""
import numpy as np

from tapegrad import _protos, dtypes, errors
from tapegrad._ops.composite.sparse_tensor import SparseTensor
from tapegrad._tensor.tensor import constant
from tapegrad.io._example import check_features, parse_feature_maps, serialized_records
from tapegrad.io._feature_columns import (
    pad_rows,
    ragged_examples,
    ragged_from_examples,
    sparse_tensor,
    tensor_of,
)
from tapegrad.io._feature_configs import (
    KIND_NAMES,
    KINDS,
    FixedLenFeature,
    FixedLenSequenceFeature,
    KindMismatch,
    VarLenFeature,
    as_array,
    feature_values,
    np_dtype,
)
from tapegrad.io._ragged_feature import RaggedFeature, join_levels

__all__ = ["parse_sequence_example", "parse_single_sequence_example"]

_CONTEXT = (FixedLenFeature, VarLenFeature, RaggedFeature)
_SEQUENCE = (FixedLenSequenceFeature, VarLenFeature, RaggedFeature)


def _configs(context_features, sequence_features):
    if context_features is None and sequence_features is None:
        raise ValueError("Both `context_features` and `sequence_features` argument are None, but at least one should "
                         "have values.")
    context = check_features(context_features, _CONTEXT) if context_features else {}
    sequence = check_features(sequence_features, _SEQUENCE, sequence=True) if sequence_features else {}
    for key, (config, _, _) in sequence.items():
        if isinstance(config, FixedLenSequenceFeature) and config.default_value is not None:
            raise ValueError(f"Value feature_list.dense_defaults[{key}] must be None")
    return context, sequence


def _decode(data):
    try:
        proto = _protos.SequenceExample.FromString(bytes(data))
    except Exception:  # noqa: BLE001 -- protobuf's DecodeError and its relatives: not a SequenceExample
        raise errors.InvalidArgumentError(None, None, "Invalid protocol message input, example id: <unknown>") from None
    return proto.context.feature, proto.feature_lists.feature_list


def _steps(lists, key, dtype, index):
    """The key's steps as 1-D arrays (None: no such list)."""
    if key not in lists:
        return None
    out = []
    for step in lists[key].feature:
        try:
            values = feature_values({key: step}, key, dtype)
        except KindMismatch as e:
            raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Feature list: {key}, Index: {index}.  "
                                              f"Data types don't match. Expected type: {KINDS[dtype][1]}, "
                                              f"Actual type: {KIND_NAMES[e.args[0]]}") from None
        out.append(as_array(() if values is None else values, dtype))
    return out


def _dense(all_lists, key, config, dtype, dims, batched):
    want, blocks = int(np.prod(dims, dtype=np.int64)), []
    for index, lists in enumerate(all_lists):
        steps = _steps(lists, key, dtype, index)
        if steps is None:
            if not config.allow_missing:
                raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Feature list '{key}' is required but "
                                                  "could not be found.  Did you mean to include it in "
                                                  "feature_list_dense_missing_assumed_empty or "
                                                  "feature_list_dense_defaults?")
            steps = []
        for step in steps:
            if step.size != want:
                raise errors.InvalidArgumentError(None, None, f"Name: <unknown>, Key: {key}, Index: {index}.  Number "
                                                  f"of values != expected.  values size: {step.size} but output "
                                                  f"shape: {list(dims)}")
        blocks.append(np.stack(steps).reshape([len(steps)] + dims) if steps else
                      np.zeros([0] + dims, np_dtype(dtype)))
    steps = np.asarray([len(b) for b in blocks], np.int64)
    lengths = constant(steps if batched else steps[0], dtype=dtypes.int64)
    if not batched:
        return tensor_of(blocks[0].astype(np_dtype(dtype)), dtype), lengths
    return tensor_of(pad_rows(blocks, dims, b"" if dtype is dtypes.string else 0, dtype), dtype), lengths


def _var_len(all_lists, key, dtype, batched):
    rows, leading, most_steps = [], [[], []], 0
    for index, lists in enumerate(all_lists):
        steps = _steps(lists, key, dtype, index) or []
        rows.extend(steps)
        leading[0].extend([index] * len(steps))
        leading[1].extend(range(len(steps)))
        most_steps = max(most_steps, len(steps))
    columns, values, lengths = sparse_tensor(rows, dtype, leading if batched else leading[1:])
    shape = ([len(all_lists)] if batched else []) + [most_steps, int(lengths.max()) if len(lengths) else 0]
    indices = np.stack(columns, axis=1) if len(values) else np.zeros((0, len(shape)), np.int64)
    return SparseTensor(indices.reshape(-1, len(shape)), tensor_of(values.astype(np_dtype(dtype)), dtype),
                        np.asarray(shape, np.int64))


class _Stepped:
    """A RaggedFeature's partitions with the steps' level outermost, as join_levels reads them."""

    def __init__(self, partitions):
        self.partitions = (_STEPS,) + tuple(partitions)


_STEPS = RaggedFeature.RowLengths("(the steps)")


def _ragged(all_lists, key, config, dtype, batched):
    names = [config.value_key or key] + [p.key for p in config.partitions if hasattr(p, "key")]
    examples = []
    for lists in all_lists:
        count = len(lists[names[0]].feature) if names[0] in lists else 0
        step_maps = [{n: lists[n].feature[t] for n in names if n in lists and t < len(lists[n].feature)}
                     for t in range(count)]
        values, levels = join_levels(ragged_examples(step_maps, key, config, dtype, True), config.partitions)
        examples.append((np.concatenate(values) if values else np.zeros(0, np_dtype(dtype)), levels))
    return ragged_from_examples(examples, _Stepped(config.partitions), dtype, batched)


def _parse(serialized, context_features, sequence_features, single):
    context_configs, sequence_configs = _configs(context_features, sequence_features)
    records = serialized_records(serialized, single)
    batched = records.ndim == 1
    decoded = [_decode(r) for r in records.reshape(-1)]
    context = parse_feature_maps([c for c, _ in decoded], context_configs, batched) if context_configs else {}
    all_lists = [f for _, f in decoded]
    feature_lists, lengths = {}, {}
    for key, (config, dtype, dims) in sequence_configs.items():
        if isinstance(config, FixedLenSequenceFeature):
            feature_lists[key], lengths[key] = _dense(all_lists, key, config, dtype, dims, batched)
        elif isinstance(config, VarLenFeature):
            feature_lists[key] = _var_len(all_lists, key, dtype, batched)
        else:
            ragged = _ragged(all_lists, key, config, dtype, batched)
            feature_lists[key] = ragged.with_row_splits_dtype(config.row_splits_dtype)
    return context, feature_lists, lengths


def parse_single_sequence_example(serialized, context_features=None, sequence_features=None, example_name=None,
                                  name=None):
    """One serialized tf.train.SequenceExample as (context {key: tensor}, feature_lists {key: tensor})."""
    context, feature_lists, _ = _parse(serialized, context_features, sequence_features, single=True)
    return context, feature_lists


def parse_sequence_example(serialized, context_features=None, sequence_features=None, example_names=None, name=None):
    """A vector of serialized tf.train.SequenceExamples as (context, feature_lists, lengths), each a dict of
    tensors with a leading batch dimension; lengths holds the FixedLenSequenceFeatures' step counts."""
    return _parse(serialized, context_features, sequence_features, single=False)
