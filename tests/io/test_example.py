"""tf.train.Example and tf.io.parse_single_example / parse_example (Note [Example parsing]): the protos
round-trip, features parse to TF's dtypes and shapes, defaults and padding as TF's, and TF's errors for
missing keys, wrong types and counts, and bytes that are no Example. TF's side: test_tf_oracle_example.py."""
import numpy as np
import pytest

import tapegrad as tf


def example(**features):
    out = {}
    for key, values in features.items():
        if not values:
            out[key] = tf.train.Feature()
        elif isinstance(values[0], float):
            out[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        elif isinstance(values[0], int):
            out[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        else:
            out[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    return tf.train.Example(features=tf.train.Features(feature=out)).SerializeToString()


SPEC = {"a": tf.io.FixedLenFeature([2], tf.float32), "b": tf.io.FixedLenFeature([], tf.int64),
        "c": tf.io.FixedLenFeature([], tf.string)}


def test_the_protos_round_trip_as_tf_writes_them():
    s = example(a=[1.0, 2.0], b=[3], c=[b"x"])
    parsed = tf.train.Example.FromString(s)
    assert list(parsed.features.feature["a"].float_list.value) == [1.0, 2.0]
    assert parsed.features.feature["c"].bytes_list.value[0] == b"x"
    # TF 2.21's bytes for one float feature: field 1 (features) > map entry > key "a", Feature > FloatList
    one = tf.train.Example(features=tf.train.Features(feature={"a": tf.train.Feature(
        float_list=tf.train.FloatList(value=[1.0, 2.0]))})).SerializeToString()
    assert one == b"\n\x13\n\x11\n\x01a\x12\x0c\x12\n\n\x08\x00\x00\x80?\x00\x00\x00@"


def test_fixed_len_features_parse_to_tfs_dtypes_and_shapes():
    out = tf.io.parse_single_example(example(a=[1.0, 2.0], b=[3], c=[b"x"]), SPEC)
    assert out["a"].dtype == tf.float32 and out["a"].shape == (2,) and out["a"].numpy().tolist() == [1.0, 2.0]
    assert out["b"].dtype == tf.int64 and out["b"].shape == () and int(out["b"]) == 3
    assert out["c"].dtype == tf.string and out["c"].numpy() == b"x"
    edge = tf.io.parse_single_example(example(a=[float("nan"), -0.0], b=[-(2 ** 63)], c=[b"\x00"]), SPEC)
    assert np.isnan(edge["a"].numpy()[0]) and np.signbit(edge["a"].numpy()[1]) and int(edge["b"]) == -(2 ** 63)
    batch = tf.io.parse_example([example(a=[1.0, 2.0], b=[3], c=[b"x"]), example(a=[5.0, 6.0], b=[1], c=[b"yy"])],
                                SPEC)
    assert batch["a"].shape == (2, 2) and batch["b"].numpy().tolist() == [3, 1]
    assert batch["c"].numpy().tolist() == [b"x", b"yy"]
    grid = tf.io.parse_single_example(example(a=[1.0, 2.0]), {"a": tf.io.FixedLenFeature([1, 2], tf.float32)})
    assert grid["a"].shape == (1, 2)


def test_defaults_and_sequences_as_tf():
    s = example(a=[1.0, 2.0, 3.0], e=[])
    assert float(tf.io.parse_single_example(s, {"z": tf.io.FixedLenFeature([], tf.float32, default_value=7.0)})["z"]) \
        == 7.0
    assert float(tf.io.parse_single_example(s, {"e": tf.io.FixedLenFeature([], tf.float32, default_value=3.0)})["e"]) \
        == 3.0  # a Feature holding no list is missing
    strings = tf.io.parse_single_example(s, {"z": tf.io.FixedLenFeature([2], tf.string, default_value=["a", "b"])})
    assert strings["z"].numpy().tolist() == [b"a", b"b"]
    seq = tf.io.parse_example([s, example(a=[1.0])], {"a": tf.io.FixedLenSequenceFeature(
        [], tf.float32, allow_missing=True, default_value=-1.0)})
    assert seq["a"].numpy().tolist() == [[1.0, 2.0, 3.0], [1.0, -1.0, -1.0]]
    rows = tf.io.parse_example([example(a=[1.0, 2.0]), example(b=[1])], {"a": tf.io.FixedLenSequenceFeature(
        [2], tf.float32, allow_missing=True)})
    assert rows["a"].shape == (2, 1, 2) and rows["a"].numpy().tolist() == [[[1.0, 2.0]], [[0.0, 0.0]]]
    assert tf.io.parse_single_example(s, {"a": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True)}
                                      )["a"].numpy().tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("serialized,features,error,text", [
    (example(a=[1.0]), {"z": tf.io.FixedLenFeature([], tf.float32)}, tf.errors.InvalidArgumentError,
     r"^Feature: z \(data type: float\) is required but could not be found\.$"),
    (example(a=[1.0, 2.0, 3.0]), {"a": tf.io.FixedLenFeature([2], tf.float32)}, tf.errors.InvalidArgumentError,
     r"Key: a\.  Can't parse serialized Example: Some float_list slice was not parsed\."),
    (example(a=[1.0]), {"a": tf.io.FixedLenFeature([], tf.int64)}, tf.errors.InvalidArgumentError,
     r"Key: a\.  Data types don't match\. Data type: float but expected type: int64"),
    (example(a=[1.0]), {"a": tf.io.FixedLenFeature([], tf.int32)}, tf.errors.InvalidArgumentError,
     r"Value for attr 'Tdense' of int32 is not in the list of allowed values: float, int64, string"),
    (example(a=[1.0]), {"a": tf.io.FixedLenFeature([None], tf.float32)}, ValueError,
     r"First dimension of shape for feature a unknown\. Consider using FixedLenSequenceFeature"),
    (b"garbage", {"a": tf.io.FixedLenFeature([], tf.float32)}, tf.errors.InvalidArgumentError,
     r"Could not parse example input, value: 'garbage'"),
    (example(a=[1.0]), {}, ValueError, r"features cannot be empty"),
    ([example(a=[1.0])], {"a": tf.io.FixedLenFeature([], tf.float32)}, ValueError, r"Input serialized must be a scalar"),
    (example(i=[5], v=[1.0]), {"a": tf.io.SparseFeature("i", "v", tf.float32, 3)}, tf.errors.InvalidArgumentError,
     r"index \[5\] is outside the dense shape \[3\]"),
    (example(a=[1.0]), {"z": tf.io.FixedLenFeature([2], tf.float32, default_value=1.5)},
     tf.errors.InvalidArgumentError, r"Input to reshape is a tensor with 1 values, but the requested shape has 2"),
])
def test_bad_examples_and_configs_raise_as_tf(serialized, features, error, text):
    with pytest.raises(error, match=text):
        tf.io.parse_single_example(serialized, features)


def test_batched_errors_name_the_example_as_tf():
    s = example(a=[1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Name: <unknown>, Key: a, Index: 0\.  Number of float "
                                                             r"values != expected\.  Values size: 3 but output shape: \[2\]"):
        tf.io.parse_example([s, s], {"a": tf.io.FixedLenFeature([2], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a multiple of stride length"):
        tf.io.parse_example([s], {"a": tf.io.FixedLenSequenceFeature([2], tf.float32, allow_missing=True)})


def test_records_of_examples_through_a_dataset(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(5):
            w.write(example(x=[float(i), float(i) * 2], y=[i % 2]))
    spec = {"x": tf.io.FixedLenFeature([2], tf.float32), "y": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path).map(lambda r: tf.io.parse_single_example(r, spec)).batch(2)
    batches = list(ds)
    assert [b["y"].numpy().tolist() for b in batches] == [[0, 1], [0, 1], [0]]
    assert batches[1]["x"].numpy().tolist() == [[2.0, 4.0], [3.0, 6.0]]
