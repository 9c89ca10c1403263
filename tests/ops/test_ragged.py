"""tf.RaggedTensor and tf.ragged without TF: rows, splits, padding, gradients to the flat values, and the
refusals (tests/oracle/test_tf_oracle_ragged.py checks them against TF)."""
import numpy as np
import pytest

import tapegrad as tf


def test_rows_splits_and_padding():
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    assert rt.to_list() == [[1, 2, 3], [], [4, 5]] and rt.dtype == tf.int32 and rt.shape.as_list() == [3, None]
    assert rt.row_splits.numpy().tolist() == [0, 3, 3, 5] and rt.row_lengths().numpy().tolist() == [3, 0, 2]
    np.testing.assert_array_equal(rt.to_tensor(default_value=-1).numpy(), [[1, 2, 3], [-1, -1, -1], [4, 5, -1]])
    assert rt[2].numpy().tolist() == [4, 5] and rt[1:].to_list() == [[], [4, 5]]
    nested = tf.ragged.constant([[[1], [2, 3]], []])
    assert nested.ragged_rank == 2 and nested.flat_values.numpy().tolist() == [1, 2, 3]


def test_string_batches_split_into_rows():
    rt = tf.strings.split(tf.constant(["a b", "", "c"]))
    assert rt.to_list() == [[b"a", b"b"], [], [b"c"]]


def test_gradients_reach_the_flat_values():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        rt = tf.RaggedTensor.from_row_lengths(v * 1.0, [2, 1])
        y = tf.reduce_sum((rt * rt).to_tensor())
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0, 4.0, 6.0])


def test_refusals():
    with pytest.raises(ValueError, match="constructor is private"):
        tf.RaggedTensor([1], [0, 1])
    with pytest.raises(tf.errors.InvalidArgumentError, match="row_splits end at 5"):
        tf.RaggedTensor.from_row_splits([1, 2], [0, 1, 5])
    with pytest.raises(tf.errors.InvalidArgumentError, match="rows differ"):
        tf.ragged.constant([[1.0]]) + tf.ragged.constant([[1.0, 2.0]])
