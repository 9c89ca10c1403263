"""Numerical stability of the nn built-ins at extreme inputs: finite values and correct gradients."""
import numpy as np
import pytest

import tapegrad as tf

FLOATS = [tf.float32, tf.float64]


def _value_and_grad(fn, x, dtype):
    x = tf.constant(x, dtype=dtype)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return y.numpy(), tape.gradient(y, x).numpy()


@pytest.mark.parametrize("dtype", FLOATS)
def test_softplus_large_positive_is_identity_with_gradient_one(dtype):
    y, g = _value_and_grad(tf.nn.softplus, 100.0, dtype)
    assert y == 100.0
    assert g == 1.0


@pytest.mark.parametrize("dtype", FLOATS)
def test_softplus_large_negative_is_finite_with_gradient_zero(dtype):
    y, g = _value_and_grad(tf.nn.softplus, -100.0, dtype)
    assert np.isfinite(y) and 0.0 <= y < 1e-40
    assert np.isfinite(g) and abs(g) < 1e-40


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("x", [100.0, -100.0])
def test_sigmoid_gradient_finite_in_the_tails(dtype, x):
    y, g = _value_and_grad(tf.sigmoid, x, dtype)
    assert np.isfinite(y) and np.isfinite(g)
    assert 0.0 <= g < 1e-40


@pytest.mark.parametrize("dtype", FLOATS)
def test_log_softmax_of_huge_spread_is_finite_with_correct_gradient(dtype):
    y, g = _value_and_grad(lambda x: tf.reduce_sum(tf.nn.log_softmax(x)), [1000.0, 0.0, -1000.0], dtype)
    np.testing.assert_allclose(tf.nn.log_softmax(tf.constant([1000.0, 0.0, -1000.0], dtype)).numpy(),
                               [0.0, -1000.0, -2000.0])
    assert np.isfinite(y)
    # d/dx sum(log_softmax) = 1 - n softmax(x)
    np.testing.assert_allclose(g, [-2.0, 1.0, 1.0])


@pytest.mark.parametrize("dtype", FLOATS)
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


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("scale", [1e4, 1e30])
def test_softmax_rows_sum_to_one_for_huge_logits(dtype, scale):
    logits = np.random.default_rng(0).uniform(-1, 1, (4, 7)) * scale
    y = tf.nn.softmax(tf.constant(logits, dtype)).numpy()
    assert np.all(np.isfinite(y))
    np.testing.assert_allclose(y.sum(axis=-1), 1.0, rtol=1e-6)
    assert np.all(y.argmax(axis=-1) == logits.argmax(axis=-1))


def _loss_and_grad(fn, logits, dtype=tf.float32):
    logits = tf.constant(logits, dtype)
    with tf.GradientTape() as tape:
        tape.watch(logits)
        loss = fn(logits)
    return loss.numpy(), tape.gradient(loss, logits).numpy()


def test_sparse_cross_entropy_large_logits():
    logits = [[1e4, -1e4, 0.0], [-1e4, 1e4, 0.0]]
    loss, g = _loss_and_grad(lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits([0, 0], x), logits)
    np.testing.assert_allclose(loss, [0.0, 2e4])
    np.testing.assert_allclose(g, [[0.0, 0.0, 0.0], [-1.0, 1.0, 0.0]])


def test_dense_cross_entropy_large_logits():
    logits = [[1e4, -1e4, 0.0], [-1e4, 1e4, 0.0]]
    labels = [[1.0, 0.0, 0.0], [0.5, 0.0, 0.5]]
    loss, g = _loss_and_grad(lambda x: tf.nn.softmax_cross_entropy_with_logits(labels, x), logits)
    np.testing.assert_allclose(loss, [0.0, 0.5 * 2e4 + 0.5 * 1e4])
    # d/dx = softmax(x) sum(labels) - labels
    np.testing.assert_allclose(g, [[0.0, 0.0, 0.0], [-0.5, 1.0, -0.5]])


def test_sigmoid_cross_entropy_large_logits():
    logits = [1e4, 1e4, -1e4, -1e4, 0.0]
    labels = [1.0, 0.0, 1.0, 0.0, 0.25]
    loss, g = _loss_and_grad(lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x), logits)
    np.testing.assert_allclose(loss, [0.0, 1e4, 1e4, 0.0, np.log(2.0)], rtol=1e-6)
    # d/dx = sigmoid(x) - z
    np.testing.assert_allclose(g, [0.0, 1.0, -1.0, 0.0, 0.25])


def test_sigmoid_cross_entropy_keeps_tiny_losses_accurate():
    loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=[1.0], logits=[30.0]).numpy()
    np.testing.assert_allclose(loss, [np.log1p(np.exp(-30.0))], rtol=1e-5)


@pytest.mark.parametrize("fn", [tf.nn.gelu, lambda x: tf.nn.gelu(x, approximate=True), tf.nn.silu],
                         ids=["gelu", "gelu_tanh", "silu"])
def test_gated_activations_finite_at_large_inputs(fn):
    y, g = _value_and_grad(lambda x: tf.reduce_sum(fn(x)), [1e4, -1e4, 80.0, -80.0], tf.float32)
    x = tf.constant([1e4, -1e4, 80.0, -80.0])
    np.testing.assert_allclose(fn(x).numpy(), [1e4, 0.0, 80.0, 0.0], atol=1e-20)
    assert np.isfinite(y)
    np.testing.assert_allclose(g, [1.0, 0.0, 1.0, 0.0], atol=1e-20)
