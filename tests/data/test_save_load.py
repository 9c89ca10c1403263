"""Dataset.save / Dataset.load and tf.data.experimental.save / load (Note [Saved dataset layout]): nested
elements round-trip with their dtypes, shapes and order, the element_spec and cardinality come from the
saved metadata, shards and reader_func as TF's, compression, a save replacing an earlier one whole, and
TF's errors for a missing folder, a wrong element_spec and a bad shard_func. TF's side:
tests/oracle/test_tf_oracle_save_load.py."""
import collections
import json
import os

import numpy as np
import pytest

import tapegrad as tf

ROWS = {"a": np.arange(12, dtype=np.float32).reshape(3, 2, 2), "b": (np.array([b"x", b"", b"\x00z"]),
                                                                     np.array([-(2 ** 63), 0, 7]))}


def values(dataset):
    return [tf.nest.map_structure(lambda v: np.asarray(v).tolist(), e) for e in dataset.as_numpy_iterator()]


def test_nested_elements_round_trip_with_their_spec_and_cardinality(tmp_path):
    ds = tf.data.Dataset.from_tensor_slices(ROWS)
    assert ds.save(str(tmp_path / "s")) is None
    loaded = tf.data.Dataset.load(str(tmp_path / "s"))
    assert loaded.element_spec == ds.element_spec and int(loaded.cardinality()) == 3
    assert values(loaded) == values(ds)
    assert values(loaded)[2]["b"] == (b"\x00z", 7) and values(loaded)[0]["b"][1] == -(2 ** 63)
    first = next(iter(loaded))
    assert first["a"].dtype == tf.float32 and first["a"].shape == (2, 2) and first["b"][0].dtype == tf.string


def test_unknown_dimensions_and_namedtuples_round_trip(tmp_path):
    batches = tf.data.Dataset.range(10).batch(3)
    batches.save(str(tmp_path / "b"))
    loaded = tf.data.Dataset.load(str(tmp_path / "b"))
    assert loaded.element_spec == tf.TensorSpec([None], tf.int64)
    assert values(loaded) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    Point = collections.namedtuple("Point", ["x", "y"])
    points = tf.data.Dataset.from_tensor_slices(Point(np.arange(2.0), np.arange(2)))
    points.save(str(tmp_path / "p"))
    back = tf.data.Dataset.load(str(tmp_path / "p"))
    assert type(back.element_spec).__name__ == "Point" and back.element_spec._fields == ("x", "y")
    assert [(float(e.x), int(e.y)) for e in back] == [(0.0, 0), (1.0, 1)]


def test_the_layout_is_the_documented_one(tmp_path):
    tf.data.Dataset.range(5).save(str(tmp_path / "r"), shard_func=lambda x: x % 2)
    meta = json.loads((tmp_path / "r" / "dataset.json").read_text())
    assert meta["format"] == "tapegrad.data.Dataset.save" and meta["num_elements"] == 5
    assert meta["element_spec"] == {"tensor": "int64", "shape": []}
    assert [count for _, count in meta["shards"]] == [3, 2]
    assert all(os.path.isfile(tmp_path / "r" / name) for name, _ in meta["shards"])


def test_shards_load_interleaved_as_tf_and_by_reader_func(tmp_path):
    path = str(tmp_path / "s")
    tf.data.Dataset.range(12).save(path, shard_func=lambda x: x % 4)
    cycle = os.cpu_count()
    shards = [list(range(s, 12, 4)) for s in range(4)]
    expected = []  # TF's default reader: cpu_count shards at a time, one element from each in turn
    for start in range(0, 4, cycle):
        group = shards[start:start + cycle]
        for i in range(max(map(len, group))):
            expected += [g[i] for g in group if i < len(g)]
    assert [int(x) for x in tf.data.Dataset.load(path)] == expected
    one_by_one = tf.data.Dataset.load(path, reader_func=lambda d: d.interleave(lambda x: x, cycle_length=1))
    assert [int(x) for x in one_by_one] == [x for shard in shards for x in shard]


def test_compression_and_a_save_over_an_earlier_one(tmp_path):
    path = str(tmp_path / "s")
    tf.data.Dataset.range(3).save(path)
    tf.data.experimental.save(tf.data.Dataset.range(5, 7), path, compression="GZIP")
    assert [int(x) for x in tf.data.experimental.load(path, compression="GZIP")] == [5, 6]
    assert len([d for d in os.listdir(path) if d.startswith("run-")]) == 1  # the earlier run is gone
    with pytest.raises(tf.errors.DataLossError, match=r"corrupted record at 0"):
        list(tf.data.Dataset.load(path))  # read as uncompressed, as TF does without compression="GZIP"
    with pytest.raises(ValueError, match=r"compression must be"):
        tf.data.Dataset.range(1).save(str(tmp_path / "t"), compression="BAD")


def test_an_empty_dataset_round_trips(tmp_path):
    tf.data.Dataset.range(0).save(str(tmp_path / "e"))
    loaded = tf.data.Dataset.load(str(tmp_path / "e"))
    assert loaded.element_spec == tf.TensorSpec([], tf.int64) and int(loaded.cardinality()) == 0 and list(loaded) == []


def test_errors_as_tf(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match=r"element_spec file not found"):
        tf.data.Dataset.load(str(tmp_path / "nope"))
    with pytest.raises(tf.errors.NotFoundError, match=r"Could not find metadata file"):
        tf.data.Dataset.load(str(tmp_path / "nope"), element_spec=tf.TensorSpec([], tf.int64))
    tf.data.Dataset.from_tensor_slices(np.arange(3.0, dtype=np.float32)).save(str(tmp_path / "f"))
    wrong = tf.data.Dataset.load(str(tmp_path / "f"), element_spec=tf.TensorSpec([], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Data type mismatch at component 0: expected int64 but "
                                                              r"got float\."):
        list(wrong)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"`shard_func` must return a scalar int64"):
        tf.data.Dataset.range(3).save(str(tmp_path / "g"), shard_func=lambda x: tf.cast(x, tf.int32))
    assert not os.path.exists(tmp_path / "g" / "dataset.json")  # nothing half-written is readable
