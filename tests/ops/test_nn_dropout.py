"""tf.nn.dropout: kept entries scaled by 1/(1-rate), reproducible with a seed, mask shared along noise_shape."""
import numpy as np

import tapegrad as tf


def test_kept_entries_are_scaled_and_dropped_are_zero():
    y = tf.nn.dropout(tf.ones((200, 50)), 0.25, seed=1).numpy()
    assert set(np.unique(y)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((y == 0).mean() - 0.25) < 0.02


def test_rate_zero_returns_input():
    x = tf.constant([[1.0, 2.0]])
    np.testing.assert_array_equal(tf.nn.dropout(x, 0.0).numpy(), x.numpy())


def test_seed_makes_the_mask_reproducible():
    # As TensorFlow: with the global seed set, an op seed fixes the sequence of masks (each call
    # draws the next one).
    x = tf.ones((10, 10))
    tf.random.set_seed(1)
    a = [tf.nn.dropout(x, 0.5, seed=4).numpy() for _ in range(2)]
    tf.random.set_seed(1)
    b = [tf.nn.dropout(x, 0.5, seed=4).numpy() for _ in range(2)]
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a[0], a[1])


def test_noise_shape_shares_the_mask():
    y = tf.nn.dropout(tf.ones((6, 40)), 0.5, noise_shape=[1, 40], seed=2).numpy()
    assert np.all(y == y[0])
    y = tf.nn.dropout(tf.ones((6, 40)), 0.5, noise_shape=[6, None], seed=2).numpy()
    assert y.shape == (6, 40)


def test_gradient_is_the_scaled_mask():
    x = tf.constant(np.arange(1.0, 13.0).reshape(3, 4))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5, seed=5)
    assert y.dtype == tf.float64
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.where(y.numpy() != 0, 2.0, 0.0))
