"""tf.SparseTensor, tf.sparse and tf.sets without TF: NumPy references, gradients to the values, and the
refusals (tests/oracle/test_tf_oracle_sparse.py checks all of them against TF)."""
import numpy as np
import pytest

import tapegrad as tf

SP = tf.SparseTensor([[0, 1], [1, 0], [1, 2]], [1.0, 2.0, 3.0], [2, 3])
DENSE = np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]], np.float32)


def test_dense_round_trip_and_attributes():
    np.testing.assert_array_equal(tf.sparse.to_dense(SP).numpy(), DENSE)
    back = tf.sparse.from_dense(DENSE)
    np.testing.assert_array_equal(back.indices.numpy(), SP.indices.numpy())
    assert SP.shape == (2, 3) and SP.dtype == tf.float32 and SP.indices.dtype == tf.int64
    np.testing.assert_array_equal(tf.sparse.to_dense(SP, default_value=-1.0).numpy(),
                                  np.where(DENSE == 0, -1.0, DENSE))


def test_reductions_and_matmul_against_numpy():
    np.testing.assert_allclose(tf.sparse.reduce_sum(SP, axis=0).numpy(), DENSE.sum(0))
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(SP, b).numpy(), DENSE @ b)
    np.testing.assert_allclose(tf.sparse.sparse_dense_matmul(SP, b.T.copy(), adjoint_b=True).numpy(), DENSE @ b)
    np.testing.assert_array_equal(tf.sparse.to_dense(tf.sparse.transpose(SP)).numpy(), DENSE.T)
    np.testing.assert_array_equal(tf.sparse.to_dense(tf.sparse.reshape(SP, [3, 2])).numpy(), DENSE.reshape(3, 2))


def test_gradients_reach_the_values():
    values = tf.Variable([1.0, 2.0, 3.0])
    b = tf.constant(np.ones((3, 2), np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.sparse.sparse_dense_matmul(tf.SparseTensor(SP.indices, values * 1.0, [2, 3]), b) ** 2)
    # d/dv_i of sum over output rows of (sum_j v_j b_j)^2, rows 0 = [v0], 1 = [v1 + v2]: 2 * 2 * row sum
    np.testing.assert_allclose(tape.gradient(y, values).numpy(), [4.0, 20.0, 20.0])


def test_sets_of_the_last_dimension():
    a, b = tf.constant([[1, 2, 2, 3], [4, 4, 5, 6]]), tf.constant([[2, 3, 9, 9], [5, 1, 1, 1]])
    inter = tf.sets.intersection(a, b)
    assert inter.values.numpy().tolist() == [2, 3, 5] and inter.dense_shape.numpy().tolist() == [2, 2]
    assert tf.sets.size(tf.sparse.from_dense(a)).numpy().tolist() == [3, 3]


def test_refusals():
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of order"):
        tf.sparse.to_dense(tf.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 2]))
    with pytest.raises(ValueError, match="indices has 1 rows and values 2"):
        tf.SparseTensor([[0, 1]], [1.0, 2.0], [2, 2])
    with pytest.raises((TypeError, ValueError, tf.errors.InvalidArgumentError)):
        tf.add(SP, 1.0)  # no implicit conversion, as TF
    with pytest.raises(TypeError, match="must be a SparseTensor"):
        tf.sparse.to_dense(DENSE)
    with pytest.raises(tf.errors.InvalidArgumentError, match="float32"):
        tf.sets.union(tf.constant([[1.0]]), tf.constant([[2.0]]))
