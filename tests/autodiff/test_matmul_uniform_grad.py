"""Note [Uniform gradients] (cpp/engine/backprop.cpp): the gradient of reduce_sum(A @ B) reaches
MatMul as one value, and its rule uses row and column sums instead of products with ones."""
import numpy as np
import pytest

import tapegrad as tf


def _grads(ta, tb, upstream, A, B):
    a, b = tf.Variable(A), tf.Variable(B)
    with tf.GradientTape() as tape:
        y = upstream(tf.matmul(a, b, transpose_a=ta, transpose_b=tb))
    return [g.numpy() for g in tape.gradient(y, [a, b])]


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_equals_the_product_with_ones(ta, tb):
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 3) if ta else (3, 4))
    B = rng.normal(size=(5, 4) if tb else (4, 5))
    uniform = _grads(ta, tb, lambda c: tf.reduce_sum(c) * 2.5, A, B)
    dense = _grads(ta, tb, lambda c: tf.reduce_sum(c * tf.ones([3, 5], tf.float64)) * 2.5, A, B)
    ones = np.full((3, 5), 2.5)
    want_a = ones @ (B if tb else B.T)
    want_b = (A if ta else A.T) @ ones
    for got, ref, want in zip(uniform, dense, [want_a.T if ta else want_a, want_b.T if tb else want_b]):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_inf_and_nan_upstream_give_the_products_answer():
    A = np.array([[1.0, 0.0], [2.0, -1.0]])
    B = np.array([[1.0, 0.0], [1.0, -1.0]])
    for c in (np.inf, np.nan):
        got = _grads(False, False, lambda m: tf.reduce_sum(m) * c, A, B)
        with np.errstate(invalid="ignore"):
            want = [np.full((2, 2), c) @ B.T, A.T @ np.full((2, 2), c)]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_second_order_and_traced_graph_has_one_matmul():
    rng = np.random.default_rng(1)
    A, B = tf.Variable(rng.normal(size=(3, 4))), tf.Variable(rng.normal(size=(4, 5)))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(A @ B)
        gA = inner.gradient(y, A)
        s = tf.reduce_sum(gA * gA)
    np.testing.assert_allclose(outer.gradient(s, B).numpy(),
                               np.repeat(2 * 3 * B.numpy().sum(1, keepdims=True), 5, axis=1), rtol=1e-12)

    @tf.function
    def step(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = tf.reduce_sum(a @ b)
        return y, tape.gradient(y, [a, b])

    a, b = tf.constant(A.numpy()), tf.constant(B.numpy())
    y, (ga, gb) = step(a, b)
    np.testing.assert_allclose(ga.numpy(), np.ones((3, 5)) @ B.numpy().T, rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), A.numpy().T @ np.ones((3, 5)), rtol=1e-12)
    text = step.get_concrete_function(a, b).pretty_printed_graph()
    assert text.count("MatMul(") == 1, text


def test_batched_matmul_takes_the_full_gradient():
    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 4, 5))
    a, b = tf.Variable(A), tf.Variable(B)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(a @ b) * 2.0
    ga, gb = tape.gradient(y, [a, b])
    ones = np.full((2, 3, 5), 2.0)
    np.testing.assert_allclose(ga.numpy(), ones @ B.transpose(0, 2, 1), rtol=1e-12)
    np.testing.assert_allclose(gb.numpy(), A.transpose(0, 2, 1) @ ones, rtol=1e-12)
