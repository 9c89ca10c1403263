"""Note [Lazy broadcast gradients]: a reduction's gradient stays one value per reduced slice until
a consumer needs its full shape; every gradient a user sees has its source's shape."""
import numpy as np

import tapegrad as tf


def test_sum_gradient_has_the_source_shape_and_values():
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    for axis, keep in [(None, False), (0, False), (1, True), ([0, 1], True)]:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x * 2.0, axis=axis, keepdims=keep)
        g = tape.gradient(y, x)
        assert g.shape == (2, 3)
        np.testing.assert_array_equal(g.numpy(), np.full((2, 3), 2.0))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_mean(x)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), np.full((2, 3), 1 / 6))


def test_broadcast_operands_get_their_own_shapes():
    x, y = tf.constant(np.ones((3, 1))), tf.constant(np.arange(4.0).reshape(1, 4))
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.reduce_sum(x + y) + tf.reduce_sum(x * y)
    gx, gy = tape.gradient(z, [x, y])
    assert gx.shape == (3, 1) and gy.shape == (1, 4)
    np.testing.assert_array_equal(gx.numpy(), np.full((3, 1), 4.0 + 6.0))
    np.testing.assert_array_equal(gy.numpy(), np.full((1, 4), 3.0) + 3.0)


def test_other_rules_and_custom_gradients_see_full_shapes():
    seen = []

    @tf.custom_gradient
    def double(v):
        def grad(dy):
            seen.append(tuple(dy.shape))
            return dy * 2.0
        return v * 2.0, grad

    w = tf.constant(np.arange(12.0).reshape(3, 4))
    x = tf.constant(np.ones((2, 3)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        h = tf.matmul(x, w)                       # MatMul's rule needs g as [2, 4]
        y = tf.reduce_sum(tf.reshape(double(h), [8]))
    g = tape.gradient(y, x)
    assert seen == [(2, 4)]
    np.testing.assert_allclose(g.numpy(), np.full((2, 4), 2.0) @ w.numpy().T)


def test_persistent_tape_jacobian_and_second_order():
    x = tf.constant(np.linspace(-1, 1, 5))
    with tf.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.exp(x))
        g = inner.gradient(y, x)
        z = tf.reduce_sum(g * x)
    np.testing.assert_allclose(g.numpy(), np.exp(x.numpy()))
    np.testing.assert_allclose(outer.gradient(z, x).numpy(), np.exp(x.numpy()) * (1 + x.numpy()))
    j = outer.jacobian(g, x)
    np.testing.assert_allclose(j.numpy(), np.diag(np.exp(x.numpy())))
    with tf.GradientTape() as tape:
        tape.watch(x)
        rows = tf.reduce_sum(tf.reshape(tf.tanh(x), [5, 1]) * tf.ones([1, 3], tf.float64), axis=0)
    np.testing.assert_allclose(tape.jacobian(rows, x).numpy(), np.tile(1 - np.tanh(x.numpy()) ** 2, (3, 1)))
