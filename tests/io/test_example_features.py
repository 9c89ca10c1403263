"""RaggedFeature and SparseFeature in tf.io.parse_example (Notes [Ragged features], [Sparse features]) and
tf.io.parse_sequence_example (Note [Sequence example parsing]): the values TF 2.21 gives for the same
records, and the errors for inconsistent partitions, bad configs and bad indices. TF's side:
test_tf_oracle_example_ragged.py and test_tf_oracle_sequence_example.py."""
import numpy as np
import pytest

import tapegrad as tf
from example_records import example, feature  # noqa: F401

F = tf.io.RaggedFeature


S1 = example(v=[1.0, 2.0, 3.0, 4.0, 5.0], l=[2, 3], sp=[0, 2, 5], ids=[0, 0, 2, 2, 2], l2=[1, 1], i=[3, 1],
             j=[0, 2], x=[10.0, 20.0])
S2 = example(v=[6.0], l=[1], sp=[0, 1], ids=[0], l2=[1], i=[0], j=[1], x=[5.0])


def splits(r):
    return [np.asarray(s).tolist() for s in r.nested_row_splits]


def test_a_ragged_feature_without_partitions_is_dense_alone_and_ragged_in_a_batch():
    one = tf.io.parse_single_example(S1, {"v": F(tf.float32)})["v"]
    assert isinstance(one, tf.Tensor) and one.numpy().tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]
    batch = tf.io.parse_example([S1, S2], {"v": F(tf.float32)})["v"]
    assert isinstance(batch, tf.RaggedTensor) and batch.to_list() == [[1.0, 2.0, 3.0, 4.0, 5.0], [6.0]]
    assert batch.dtype == tf.float32 and splits(batch) == [[0, 5, 6]]


@pytest.mark.parametrize("partition,rows", [
    (F.RowLengths("l"), [[1.0, 2.0], [3.0, 4.0, 5.0]]), (F.RowSplits("sp"), [[1.0, 2.0], [3.0, 4.0, 5.0]]),
    (F.RowLimits("sp"), None), (F.ValueRowIds("ids"), [[1.0, 2.0], [], [3.0, 4.0, 5.0]]),
])
def test_each_partition_cuts_rows_as_tf(partition, rows):
    spec = {"r": F(tf.float32, value_key="v", partitions=[partition])}
    if rows is None:  # row limits [0, 2, 5] make a first, empty row
        rows = [[], [1.0, 2.0], [3.0, 4.0, 5.0]]
    assert tf.io.parse_single_example(S1, spec)["r"].to_list() == rows
    assert tf.io.parse_example([S1, S1], spec)["r"].to_list() == [rows, rows]


def test_row_starts_nesting_and_uniform_rows_as_tf():
    starts = tf.io.parse_single_example(example(v=[1.0, 2.0, 3.0], s=[0, 2]), {"r": F(
        tf.float32, value_key="v", partitions=[F.RowStarts("s")])})["r"]
    assert starts.to_list() == [[1.0, 2.0], [3.0]]
    nested = tf.io.parse_example([S1, S2], {"r": F(tf.float32, value_key="v", partitions=[
        F.RowLengths("l2"), F.RowLengths("l")])})["r"]
    assert nested.to_list() == [[[[1.0, 2.0]], [[3.0, 4.0, 5.0]]], [[[6.0]]]]
    assert splits(nested) == [[0, 2, 3], [0, 1, 2, 3], [0, 2, 5, 6]]
    uniform = tf.io.parse_single_example(S1, {"r": F(tf.float32, value_key="v", partitions=[F.UniformRowLength(1)])})
    assert isinstance(uniform["r"], tf.Tensor) and uniform["r"].shape == (5, 1)
    inner = tf.io.parse_example([S1, S2], {"r": F(tf.float32, value_key="v", partitions=[
        F.RowLengths("l"), F.UniformRowLength(1)])})["r"]
    assert inner.flat_values.shape == (6, 1) and splits(inner) == [[0, 2, 3], [0, 2, 5, 6]]
    outer = tf.io.parse_single_example(S1, {"r": F(tf.float32, value_key="v", partitions=[
        F.UniformRowLength(2), F.RowLengths("l")])})["r"]
    assert outer.shape.as_list() == [1, 2, None] and outer.to_list() == [[[1.0, 2.0], [3.0, 4.0, 5.0]]]


def test_missing_ragged_values_are_empty_and_strings_parse():
    missing = tf.io.parse_example([S1, S2], {"r": F(tf.int64, value_key="zz")})["r"]
    assert missing.to_list() == [[], []] and missing.dtype == tf.int64
    words = tf.io.parse_example([example(s=[b"a", b"b"]), example(s=[b"c"])], {"s": F(tf.string)})["s"]
    assert words.to_list() == [[b"a", b"b"], [b"c"]]


@pytest.mark.parametrize("partitions,text", [
    ([F.RowLengths("l2")], r"'l2': the rows hold 2 values, but there are 5"),
    ([F.RowSplits("l")], r"row splits must start at 0"),
    ([F.UniformRowLength(2)], r"5 values are not rows of 2"),
    ([F.RowLengths("n")], r"negative lengths"),
    ([F.ValueRowIds("m")], r"must be >= 0 and sorted"),
])
def test_inconsistent_partitions_raise_invalid_argument(partitions, text):
    s = example(v=[1.0, 2.0, 3.0, 4.0, 5.0], l=[2, 3], l2=[1, 1], n=[6, -1], m=[1, 1, 1, 0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=text):
        tf.io.parse_single_example(s, {"r": F(tf.float32, value_key="v", partitions=partitions)})


@pytest.mark.parametrize("make,error,text", [
    (lambda: F(tf.int32), ValueError, r"must be int64, float32, or bytes"),
    (lambda: F(tf.float32, row_splits_dtype=tf.float32), ValueError, r"int32 or int64"),
    (lambda: F(tf.float32, partitions=["l"]), TypeError, r"partition objects"),
])
def test_bad_ragged_configs_raise_as_tf(make, error, text):
    with pytest.raises(error, match=text):
        make()


@pytest.mark.parametrize("features,error,text", [
    ({"r": F(tf.int64, value_key="v")}, tf.errors.InvalidArgumentError,
     r"^Name: <unknown>, Key: v, Index: 0\.  Data types don't match\. Expected type: int64, Actual type: float$"),
    ({"r": F(tf.float32, value_key="v"), "v": tf.io.FixedLenFeature([5], tf.float32)}, ValueError,
     r"Dense and ragged keys must not intersect"),
    ({"r": F(tf.float32, value_key="v", partitions=[F.RowLengths("v")])}, ValueError, r"Conflicting type"),
    ({"v": tf.io.FixedLenSequenceFeature([], tf.float32)}, ValueError,
     r"^Unsupported: FixedLenSequenceFeature requires allow_missing to be True\.$"),
    ({"v": tf.io.FixedLenFeature([5], tf.int64)}, tf.errors.InvalidArgumentError,
     r"^Name: <unknown>, Key: v, Index: 0\.  Data types don't match\. Data type: float but expected type: int64$"),
])
def test_mistyped_and_overlapping_features_raise_as_tf(features, error, text):
    with pytest.raises(error, match=text):
        tf.io.parse_example([S1], features)


def sparse_parts(s):
    return np.asarray(s.indices).tolist(), s.values.numpy().tolist(), np.asarray(s.dense_shape).tolist()


def test_sparse_features_sort_their_entries_as_tf():
    one = tf.io.parse_single_example(S1, {"x": tf.io.SparseFeature("i", "x", tf.float32, 4)})["x"]
    assert sparse_parts(one) == ([[1], [3]], [20.0, 10.0], [4])
    grid = tf.io.parse_example([S1, S2], {"x": tf.io.SparseFeature(["i", "j"], "x", tf.float32, [4, 3])})["x"]
    assert sparse_parts(grid) == ([[0, 1, 2], [0, 3, 0], [1, 0, 1]], [20.0, 10.0, 5.0], [2, 4, 3])
    kept = tf.io.parse_single_example(S1, {"x": tf.io.SparseFeature("i", "x", tf.float32, 4, already_sorted=True)})
    assert sparse_parts(kept["x"]) == ([[3], [1]], [10.0, 20.0], [4])
    missing = tf.io.parse_example([S1, S2], {"x": tf.io.SparseFeature("zz", "zy", tf.int64, 3)})["x"]
    assert sparse_parts(missing) == ([], [], [2, 3])


def test_sparse_features_with_bad_indices_raise():
    with pytest.raises(ValueError, match=r"Dimensions 1 and 2 are not compatible"):
        tf.io.parse_single_example(example(i=[0], x=[1.0, 2.0]), {"x": tf.io.SparseFeature("i", "x", tf.float32, 3)})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"index \[-1\] is outside the dense shape \[3\]"):
        tf.io.parse_single_example(example(i=[-1], x=[1.0]), {"x": tf.io.SparseFeature("i", "x", tf.float32, 3)})
    with pytest.raises(TypeError, match=r"vocab_size has to be a Tensor or Python int"):
        tf.io.parse_single_example(S1, {"x": tf.io.SparseFeature("i", "x", tf.float32, None)})


def sequence_example(context, lists):
    return tf.train.SequenceExample(
        context=tf.train.Features(feature={k: feature(v) for k, v in context.items()}),
        feature_lists=tf.train.FeatureLists(feature_list={
            k: tf.train.FeatureList(feature=[feature(s) for s in steps]) for k, steps in lists.items()}),
    ).SerializeToString()


Q1 = sequence_example({"len": [3], "name": [b"a"]}, {"tok": [[1], [2], [3]], "emb": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                                                     "var": [[1, 2], [], [3]], "pl": [[1, 1], [], [1]]})
Q2 = sequence_example({"len": [1], "name": [b"b"]}, {"tok": [[7]], "emb": [[9.0, 9.0]], "var": [[4, 4, 4]],
                                                     "pl": [[2, 1]]})
CONTEXT = {"len": tf.io.FixedLenFeature([], tf.int64), "name": tf.io.FixedLenFeature([], tf.string)}
SEQUENCE = {"tok": tf.io.FixedLenSequenceFeature([], tf.int64), "emb": tf.io.FixedLenSequenceFeature([2], tf.float32),
            "var": tf.io.VarLenFeature(tf.int64)}


def test_a_single_sequence_example_parses_as_tf():
    context, lists = tf.io.parse_single_sequence_example(Q1, CONTEXT, SEQUENCE)
    assert int(context["len"]) == 3 and context["name"].numpy() == b"a"
    assert lists["tok"].numpy().tolist() == [1, 2, 3] and lists["emb"].shape == (3, 2)
    assert sparse_parts(lists["var"]) == ([[0, 0], [0, 1], [2, 0]], [1, 2, 3], [3, 2])


def test_a_batch_of_sequence_examples_pads_and_counts_steps_as_tf():
    context, lists, lengths = tf.io.parse_sequence_example([Q1, Q2], CONTEXT, SEQUENCE)
    assert context["len"].numpy().tolist() == [3, 1] and context["name"].numpy().tolist() == [b"a", b"b"]
    assert lists["tok"].numpy().tolist() == [[1, 2, 3], [7, 0, 0]]
    assert lists["emb"].numpy().tolist() == [[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [[9.0, 9.0], [0.0, 0.0], [0.0, 0.0]]]
    assert sparse_parts(lists["var"]) == ([[0, 0, 0], [0, 0, 1], [0, 2, 0], [1, 0, 0], [1, 0, 1], [1, 0, 2]],
                                          [1, 2, 3, 4, 4, 4], [2, 3, 3])
    assert sorted(lengths) == ["emb", "tok"] and lengths["tok"].dtype == tf.int64
    assert lengths["tok"].numpy().tolist() == [3, 1]


def test_ragged_sequence_features_cut_each_step_as_tf():
    spec = {"r": F(tf.int64, value_key="var"), "p": F(tf.int64, value_key="var", partitions=[F.RowLengths("pl")])}
    _, lists = tf.io.parse_single_sequence_example(Q1, sequence_features=spec)
    assert lists["r"].to_list() == [[1, 2], [], [3]]
    assert lists["p"].to_list() == [[[1], [2]], [], [[3]]]
    _, lists, lengths = tf.io.parse_sequence_example([Q1, Q2], sequence_features=spec)
    assert lists["p"].to_list() == [[[[1], [2]], [], [[3]]], [[[4, 4], [4]]]] and lengths == {}
    assert splits(lists["p"]) == [[0, 3, 4], [0, 2, 2, 3, 5], [0, 1, 2, 3, 5, 6]]


def test_missing_feature_lists_as_tf():
    allowed = {"zz": tf.io.FixedLenSequenceFeature([], tf.int64, allow_missing=True), "vv": tf.io.VarLenFeature(tf.int64)}
    _, lists, lengths = tf.io.parse_sequence_example([Q1, Q2], sequence_features=allowed)
    assert lists["zz"].shape == (2, 0) and lengths["zz"].numpy().tolist() == [0, 0]
    assert sparse_parts(lists["vv"]) == ([], [], [2, 0, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Feature list 'zz' is required but could not be found"):
        tf.io.parse_single_sequence_example(Q1, sequence_features={"zz": tf.io.FixedLenSequenceFeature([], tf.int64)})


@pytest.mark.parametrize("context,sequence,error,text", [
    (None, None, ValueError, r"Both `context_features` and `sequence_features` argument are None"),
    (None, {"emb": tf.io.FixedLenSequenceFeature([3], tf.float32)}, tf.errors.InvalidArgumentError,
     r"Key: emb, Index: 0\.  Number of values != expected\.  values size: 2 but output shape: \[3\]"),
    (None, {"tok": tf.io.FixedLenSequenceFeature([], tf.float32)}, tf.errors.InvalidArgumentError,
     r"Feature list: tok, Index: 0\.  Data types don't match\. Expected type: float"),
    (None, {"emb": tf.io.FixedLenFeature([2], tf.float32)}, ValueError, r"Unsupported FixedLenFeature"),
    ({"x": tf.io.SparseFeature("len", "len", tf.int64, 3)}, None, ValueError, r"Unsupported SparseFeature"),
    (None, {"tok": tf.io.FixedLenSequenceFeature([], tf.int64, default_value=1)}, ValueError,
     r"feature_list\.dense_defaults\[tok\] must be None"),
])
def test_bad_sequence_configs_and_records_raise_as_tf(context, sequence, error, text):
    with pytest.raises(error, match=text):
        tf.io.parse_sequence_example([Q1], context, sequence)


def test_bytes_that_are_no_sequence_example_raise():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Invalid protocol message input"):
        tf.io.parse_single_sequence_example(b"\xff\xff", CONTEXT)
    with pytest.raises(ValueError, match=r"Input serialized must be a scalar"):
        tf.io.parse_single_sequence_example([Q1], CONTEXT)


def test_a_features_dict_changed_between_calls_is_checked_again():
    spec = {"v": tf.io.FixedLenFeature([5], tf.float32)}
    assert tf.io.parse_single_example(S1, spec)["v"].shape == (5,)
    spec["v"].shape[:] = [1, 5]  # the same config object, its shape list changed in place
    assert tf.io.parse_single_example(S1, spec)["v"].shape == (1, 5)
    spec["l"] = tf.io.FixedLenFeature([2], tf.int64)
    assert sorted(tf.io.parse_single_example(S1, spec)) == ["l", "v"]
    spec["v"] = tf.io.FixedLenFeature([5], tf.int64)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Data types don't match"):
        tf.io.parse_single_example(S1, spec)


def test_an_empty_batch_keeps_every_ragged_dimension_as_tf():
    parts = [F.RowLengths("l"), F.UniformRowLength(2)]
    r = tf.io.parse_example([], {"r": F(tf.float32, value_key="v", partitions=parts)})["r"]
    assert r.ragged_rank == 2 and r.flat_values.shape == (0, 2) and r.to_list() == []
    _, lists, _ = tf.io.parse_sequence_example([], sequence_features={"r": F(tf.int64, value_key="v", partitions=[
        F.RowLengths("l")])})
    assert lists["r"].ragged_rank == 3 and lists["r"].to_list() == []
