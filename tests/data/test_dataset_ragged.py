"""RaggedTensors through tf.data (slices, batch, unbatch, map, ragged_batch) and RaggedTensor's
row_splits_dtype (constructors, ragged_batch, RaggedFeature parsing), checked by values and specs."""
import numpy as np
import pytest

import tapegrad as tf

ROWS = [[1, 2], [3], [4, 5, 6]]


def _splits(rt):
    return [(s.dtype.name, np.asarray(s).tolist()) for s in rt.nested_row_splits]


def test_slices_of_a_ragged_tensor_are_its_rows():
    ds = tf.data.Dataset.from_tensor_slices(tf.ragged.constant(ROWS))
    assert repr(ds.element_spec) == "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    assert [np.asarray(x).tolist() for x in ds] == ROWS
    assert int(ds.cardinality()) == 3


def test_from_tensors_keeps_the_ragged_tensor():
    ds = tf.data.Dataset.from_tensors(tf.ragged.constant(ROWS))
    assert repr(ds.element_spec) == "RaggedTensorSpec(TensorShape([3, None]), tf.int32, 1, tf.int64)"
    (element,) = list(ds)
    assert element.to_list() == ROWS


def test_batch_makes_one_more_ragged_rank_and_unbatch_undoes_it():
    nested = [[[1, 2], [3]], [[4]], [[5], [6, 7]]]
    ds = tf.data.Dataset.from_tensor_slices(tf.ragged.constant(nested))
    batched = ds.batch(2)
    assert repr(batched.element_spec) == "RaggedTensorSpec(TensorShape([None, None, None]), tf.int32, 2, tf.int64)"
    assert [b.to_list() for b in batched] == [nested[:2], nested[2:]]
    first = next(iter(batched))
    assert _splits(first) == [("int64", [0, 2, 3]), ("int64", [0, 2, 3, 4])]
    assert [r.to_list() for r in batched.unbatch()] == nested
    dropped = ds.batch(2, drop_remainder=True)
    assert repr(dropped.element_spec) == "RaggedTensorSpec(TensorShape([2, None, None]), tf.int32, 2, tf.int64)"
    assert len(list(dropped)) == 1


def test_map_sees_rows_and_a_dict_element_batches_per_component():
    ds = tf.data.Dataset.from_tensor_slices({"r": tf.ragged.constant(ROWS), "y": [10, 20, 30]})
    mapped = ds.map(lambda d: (d["r"] * 2, d["y"]))
    assert repr(mapped.element_spec[0]) == "TensorSpec(shape=(None,), dtype=tf.int32, name=None)"
    assert [np.asarray(r).tolist() for r, _ in mapped] == [[2, 4], [6], [8, 10, 12]]
    batch = next(iter(ds.shuffle(3, seed=1).batch(3)))
    assert sorted(map(tuple, batch["r"].to_list())) == sorted(map(tuple, ROWS))
    order = np.asarray(batch["y"]).tolist()
    assert batch["r"].to_list() == [ROWS[y // 10 - 1] for y in order]


def test_padded_batch_refuses_ragged_elements():
    ds = tf.data.Dataset.from_tensor_slices(tf.ragged.constant(ROWS))
    with pytest.raises(TypeError, match="padded_batch"):
        ds.padded_batch(2)


def test_ragged_batch_of_varying_dense_elements():
    ds = tf.data.Dataset.range(5).map(lambda x: tf.range(x))
    batched = ds.ragged_batch(2, row_splits_dtype=tf.int32)
    assert repr(batched.element_spec) == "RaggedTensorSpec(TensorShape([None, None]), tf.int64, 1, tf.int32)"
    values = list(batched)
    assert [v.to_list() for v in values] == [[[], [0]], [[0, 1], [0, 1, 2]], [[0, 1, 2, 3]]]
    assert _splits(values[1]) == [("int32", [0, 2, 5])]
    fixed = tf.data.Dataset.range(1, 4).map(lambda x: tf.fill([2, x], x)).ragged_batch(2)
    assert repr(fixed.element_spec) == "RaggedTensorSpec(TensorShape([None, 2, None]), tf.int64, 2, tf.int64)"
    assert _splits(next(iter(fixed))) == [("int64", [0, 2, 4]), ("int64", [0, 1, 2, 4, 6])]
    dense = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).ragged_batch(2)
    assert repr(dense.element_spec) == "TensorSpec(shape=(None, 2), dtype=tf.int32, name=None)"
    experimental = ds.apply(tf.data.experimental.dense_to_ragged_batch(3, drop_remainder=True))
    assert [v.to_list() for v in experimental] == [[[], [0], [0, 1]]]
    with pytest.raises(tf.errors.InvalidArgumentError):
        ds.ragged_batch(0)


def test_row_splits_dtype_follows_the_splits_given():
    rt = tf.RaggedTensor.from_row_splits([1, 2, 3], tf.constant([0, 1, 3], tf.int32))
    assert rt.row_splits.dtype == tf.int32 and rt.row_lengths().dtype == tf.int32
    assert rt[0:2].row_splits_dtype == tf.int32
    assert tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 1, 3]).row_splits.dtype == tf.int64
    wide = tf.ragged.constant([[[1], [2, 3]], [[4]]], row_splits_dtype=tf.int32).with_row_splits_dtype(tf.int64)
    assert _splits(wide) == [("int64", [0, 2, 3]), ("int64", [0, 1, 3, 4])]
    assert repr(tf.RaggedTensorSpec.from_value(rt)) == "RaggedTensorSpec(TensorShape([2, None]), tf.int32, 1, tf.int32)"
    with pytest.raises(ValueError, match="int32 or int64"):
        rt.with_row_splits_dtype(tf.float32)


def _example():
    feature = tf.train.Feature
    return tf.train.Example(features=tf.train.Features(feature={
        "v": feature(int64_list=tf.train.Int64List(value=[1, 2, 3])),
        "l": feature(int64_list=tf.train.Int64List(value=[2, 1]))})).SerializeToString()


@pytest.mark.parametrize("given, expected", [(None, "int32"), (tf.int32, "int32"), (tf.int64, "int64")])
def test_ragged_feature_parses_with_its_row_splits_dtype(given, expected):
    kw = {} if given is None else {"row_splits_dtype": given}
    features = {"r": tf.io.RaggedFeature(tf.int64, value_key="v", partitions=[tf.io.RaggedFeature.RowLengths("l")],
                                         **kw)}
    batch = tf.io.parse_example([_example(), _example()], features)["r"]
    assert _splits(batch) == [(expected, [0, 2, 4]), (expected, [0, 2, 3, 5, 6])]
    single = tf.io.parse_single_example(_example(), features)["r"]
    assert _splits(single) == [(expected, [0, 2, 3])] and single.to_list() == [[1, 2], [3]]


def test_unbatching_rows_gives_scalars_that_batch_back_densely():
    scalars = tf.data.Dataset.from_tensor_slices(tf.ragged.constant(ROWS)).unbatch()
    assert repr(scalars.element_spec) == "RaggedTensorSpec(TensorShape([]), tf.int32, -1, tf.int64)"
    assert [int(x) for x in scalars] == [1, 2, 3, 4, 5, 6]
    assert [np.asarray(b).tolist() for b in scalars.batch(4)] == [[1, 2, 3, 4], [5, 6]]


def test_from_generator_with_a_ragged_signature_checks_each_element():
    spec = tf.RaggedTensorSpec([None, None], tf.int32, 1)
    ok = tf.data.Dataset.from_generator(lambda: iter([tf.ragged.constant([[1], [2, 3]])]), output_signature=spec)
    assert [r.to_list() for r in ok] == [[[1], [2, 3]]]
    wrong = tf.data.Dataset.from_generator(lambda: iter([tf.ragged.constant([[1.5]])]), output_signature=spec)
    with pytest.raises(tf.errors.InvalidArgumentError, match="where an element of RaggedTensorSpec"):
        list(wrong)
    as_list = tf.data.Dataset.from_generator(lambda: iter([[[1], [2]]]), output_signature=spec)
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected structure"):
        list(as_list)


def test_concatenate_needs_the_same_ragged_rank():
    rows = tf.data.Dataset.from_tensor_slices(tf.ragged.constant(ROWS))
    joined = rows.concatenate(tf.data.Dataset.from_tensor_slices(tf.ragged.constant([[7], [8, 9]])))
    assert [np.asarray(r).tolist() for r in joined][-2:] == [[7], [8, 9]]
    with pytest.raises(TypeError, match="Incompatible"):
        rows.concatenate(tf.data.Dataset.from_tensor_slices([[7, 8]]))
