"""tf.IndexedSlices without TF: when a variable's gradient is one (Note [Sparse variable gradients]), what it
holds, how it converts, and Keras's sparse Adam step (Note [Sparse updates]) against NumPy."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

TABLE = np.arange(15, dtype=np.float32).reshape(5, 3) / 10


def _grad(f, *sources, **kwargs):
    with tf.GradientTape(persistent=True) as tape:
        y = f()
    return tape.gradient(y, list(sources) if len(sources) > 1 else sources[0], **kwargs)


def test_a_gathered_variable_gets_its_rows_apart():
    v = tf.Variable(TABLE)
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, [1, 4, 1]) ** 2), v)
    assert isinstance(g, tf.IndexedSlices)
    assert g.indices.numpy().tolist() == [1, 4, 1] and g.dense_shape.numpy().tolist() == [5, 3]
    np.testing.assert_allclose(g.values.numpy(), 2 * TABLE[[1, 4, 1]])
    dense = np.zeros_like(TABLE)
    np.add.at(dense, [1, 4, 1], 2 * TABLE[[1, 4, 1]])
    np.testing.assert_allclose(tf.convert_to_tensor(g).numpy(), dense)
    assert g.shape == (5, 3) and g.dtype == tf.float32
    np.testing.assert_allclose((-g).values.numpy(), -g.values.numpy())
    assert repr(g).startswith("IndexedSlices(indices=")


def test_several_gathers_and_index_dtypes_concatenate():
    v = tf.Variable(TABLE)
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, tf.constant([[0], [2]]))) + tf.reduce_sum(
        tf.gather(v, tf.constant([2], tf.int64)) * 3.0), v)
    assert g.indices.dtype == tf.int64 and g.indices.numpy().tolist() == [0, 2, 2]
    np.testing.assert_allclose(g.values.numpy(), [[1] * 3, [1] * 3, [3] * 3])


def test_any_other_read_makes_it_dense_and_ops_take_it_dense():
    v = tf.Variable(TABLE)
    g = _grad(lambda: tf.reduce_sum(tf.gather(v, [1])) + tf.reduce_sum(v * 2.0), v)
    assert type(g).__name__ == "Tensor"
    s = _grad(lambda: tf.reduce_sum(tf.gather(v, [1, 1])), v)
    np.testing.assert_allclose(tf.add(s, 0.0).numpy()[1], [2, 2, 2])  # an op densifies it
    unconnected = _grad(lambda: tf.reduce_sum(tf.gather(v, [1])) * 0.0 + 1.0, tf.Variable(TABLE))
    assert unconnected is None


def test_inside_tf_function():
    v = tf.Variable(TABLE)

    @tf.function
    def step(ids):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(tf.gather(v, ids) ** 2)
        g = tape.gradient(y, v)
        return g.values, g.indices

    values, indices = step(tf.constant([3, 3]))
    np.testing.assert_allclose(values.numpy(), 2 * TABLE[[3, 3]])
    assert indices.numpy().tolist() == [3, 3]


def test_adam_squares_each_occurrence_as_keras_on_tf():
    v, ids, w = tf.Variable(TABLE), [1, 1, 2], np.array([[1.0, -2.0, 0.5]] * 3, np.float32)
    opt = keras.optimizers.Adam(0.1)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, ids) * w)
    opt.apply_gradients([(tape.gradient(y, v), v)])
    g_sum, g_sq = np.zeros_like(TABLE), np.zeros_like(TABLE)
    np.add.at(g_sum, ids, w)
    np.add.at(g_sq, ids, w * w)
    m, s = 0.1 * g_sum, 0.001 * g_sq  # one step from zeros
    alpha = 0.1 * np.sqrt(1 - np.float32(0.999)) / (1 - np.float32(0.9))
    np.testing.assert_allclose(v.numpy(), TABLE - alpha * m / (np.sqrt(s) + 1e-7), rtol=1e-5)


def test_a_slices_gradient_of_another_shape_is_refused():
    v = tf.Variable(TABLE)
    bad = tf.IndexedSlices(tf.ones((1, 3)), tf.constant([0]), tf.constant([6, 3], tf.int64))
    with pytest.raises(ValueError, match="does not match variable"):
        keras.optimizers.Adam().apply_gradients([(bad, v)])
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.IndexedSlices(tf.ones((1, 3)), tf.constant([0.5]))
    with pytest.raises(ValueError, match="without dense_shape"):
        tf.convert_to_tensor(tf.IndexedSlices(tf.ones((1, 3)), tf.constant([0])))
