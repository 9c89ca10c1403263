"""Norms at edge values: the Euclidean norm's gradient at zero is exactly 0; an infinite global norm
gives NaN."""
import numpy as np
import pytest

import tapegrad as tf


@pytest.mark.parametrize("fn,want", [
    (tf.norm, 0.0), (lambda x: tf.norm(x, axis=[0, 1]), 0.0), (lambda x: tf.linalg.global_norm([x, None, x]), 0.0),
    (tf.math.reduce_euclidean_norm, 0.0), (lambda x: tf.reduce_sum(tf.clip_by_norm(x, 1.0)), 1.0),
])
def test_norm_gradient_at_zero_is_finite_and_exact(fn, want):
    x = tf.zeros((2, 2), dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    assert float(y) == 0.0
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.full((2, 2), want))


def test_clip_by_global_norm_of_infinite_norm_is_nan_and_passes_none():
    clipped, n = tf.clip_by_global_norm([tf.constant([np.inf, 1.0]), None], 1.0)
    assert float(n) == np.inf
    assert np.all(np.isnan(clipped[0].numpy())) and clipped[1] is None


def test_clip_by_global_norm_leaves_small_tensors_alone():
    (c,), n = tf.clip_by_global_norm([tf.constant([0.3, 0.4])], 1.0)
    np.testing.assert_allclose(c.numpy(), [0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(float(n), 0.5, rtol=1e-6)
