"""Gradients stay finite where the math is finite: masked singular lanes give 0, overflow stays NaN, and
log_softmax's second derivative at a huge spread is finite (the ops' edge values and gradients are their
rows' edge samples, tests/opinfo/*_edges.py)."""
import numpy as np
import pytest

import tapegrad as tf

MASKED = {
    "sqrt": lambda x: tf.where(x > 0, tf.sqrt(x), 0.0),
    "log": lambda x: tf.where(x > 0, tf.math.log(x), 0.0),
    "rsqrt": lambda x: tf.where(x > 0, tf.math.rsqrt(x), 0.0),
    "reciprocal": lambda x: tf.where(x > 0, tf.math.reciprocal(x), 0.0),
    "divide": lambda x: tf.where(x > 0, 1.0 / x, 0.0),
    "log1p": lambda x: tf.where(x > -1, tf.math.log1p(x), 0.0),
    "pow_half": lambda x: tf.where(x > 0, x ** 0.5, 0.0),
}


@pytest.mark.parametrize("name", sorted(MASKED))
def test_masked_singular_point_has_finite_gradient(name):
    x = tf.Variable([-1.0, 0.0, 4.0] if name != "log1p" else [-2.0, -1.0, 3.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(MASKED[name](x))
    g = tape.gradient(y, x).numpy()
    assert np.isfinite(g).all(), g
    assert g[0] == 0.0 and g[1] == 0.0 and g[2] != 0.0


def test_norm_at_zero_is_zero_subgradient():
    x = tf.Variable([0.0, 0.0, 0.0])
    with tf.GradientTape() as tape:
        y = tf.norm(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.0, 0.0, 0.0])


def test_overflow_still_gives_nan():
    x = tf.Variable([100.0])
    with tf.GradientTape() as tape:
        z = tf.math.log(tf.exp(x) + 1.0)  # the book's my_softplus
    assert np.isnan(tape.gradient(z, x).numpy()).all()


def test_builtin_softplus_is_stable():
    x = tf.Variable([100.0, -100.0])
    with tf.GradientTape() as tape:
        z = tf.nn.softplus(x)
    np.testing.assert_allclose(z.numpy(), [100.0, 0.0], atol=1e-30)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [1.0, 0.0], atol=1e-30)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_log_softmax_second_derivative_finite(dtype):
    x = tf.constant([1000.0, 0.0, -1000.0], dtype)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.nn.log_softmax(x) * tf.constant([1.0, 0.0, 0.0], dtype))
        g = inner.gradient(y, x)
        gg = tf.reduce_sum(g * g)
    h = outer.gradient(gg, x).numpy()
    assert np.all(np.isfinite(g.numpy())) and np.all(np.isfinite(h))
