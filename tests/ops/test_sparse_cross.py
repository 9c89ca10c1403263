"""tf.sparse.cross and tf.sparse.cross_hashed: the combinations per row, TF's input order (SparseTensors,
then dense), and hashes equal to TF's (FingerprintCat64 over FarmHash Fingerprint64; values recorded
from TF 2.21)."""
import numpy as np
import pytest

import tapegrad as tf


def _a():
    return tf.sparse.SparseTensor([[0, 0], [1, 0], [1, 1]], [b"a", b"b", b"c"], [2, 2])


def _b():
    return tf.sparse.SparseTensor([[0, 0], [0, 1], [1, 0]], [b"x", b"y", b"z"], [2, 3])


def test_cross_joins_each_rows_combinations():
    r = tf.sparse.cross([_a(), _b(), tf.constant([[7], [8]], tf.int64)])
    assert np.asarray(r.values._value).tolist() == [b"a_X_x_X_7", b"a_X_y_X_7", b"b_X_z_X_8", b"c_X_z_X_8"]
    assert np.asarray(r.indices).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    assert np.asarray(r.dense_shape).tolist() == [2, 2]
    dense_first = tf.sparse.cross([tf.constant([[1], [2]], tf.int32), _a()], separator="#")
    assert np.asarray(dense_first.values._value).tolist() == [b"a#1", b"b#2", b"c#2"]


def test_cross_hashed_matches_tfs_values():
    assert np.asarray(tf.sparse.cross_hashed([_a()]).values).tolist() == [
        3550520439517529108, 5701958020731327761, 5287514571041673476]
    assert np.asarray(tf.sparse.cross_hashed([_a()], num_buckets=100, hash_key=12345).values).tolist() == [69, 78, 8]
    ints = tf.sparse.cross_hashed([tf.constant([[7], [8]], tf.int64)])
    assert np.asarray(ints.values).tolist() == [7129489355927154095, 8054468179830813262]
    mixed = tf.sparse.cross_hashed([tf.constant([["u", "v"], ["w", "q"]]), _a()])
    assert np.asarray(mixed.values).tolist()[:2] == [6979927388258693033, 7735506527500876223]
    assert np.asarray(mixed.dense_shape).tolist() == [2, 4]


def test_cross_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch size"):
        tf.sparse.cross([_a(), tf.constant([[1], [2], [3]], tf.int64)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="matrix"):
        tf.sparse.cross([_a(), tf.constant([1, 2], tf.int64)])
    with pytest.raises(TypeError, match="Tensor or SparseTensor"):
        tf.sparse.cross([_a(), [[b"p"], [b"q"]]])
