"""fill and linspace are differentiable in their values (as TF): while a tape records they are built
from ops; otherwise they are constants made at once."""
import numpy as np

import tapegrad as tf


def test_fill_gradient_is_the_upstream_sum():
    v = tf.Variable(2.0, dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.fill([2, 3], v) * tf.constant(np.arange(6.0).reshape(2, 3)))
    assert float(tape.gradient(y, v)) == 15.0


def test_linspace_gradients_match_finite_differences():
    start, stop = tf.Variable([0.0, 1.0], dtype=tf.float64), tf.Variable(3.0, dtype=tf.float64)
    w = tf.constant(np.arange(10.0).reshape(2, 5))

    def f(a, b):
        return tf.reduce_sum(tf.linspace(a, b, 5, axis=1) * w)

    with tf.GradientTape() as tape:
        y = f(start, stop)
    g_start, g_stop = tape.gradient(y, [start, stop])
    eps = 1e-6
    for var, grad in ((start, g_start), (stop, g_stop)):
        base = var.numpy()
        flat = np.atleast_1d(base).astype(float).copy()
        for i in range(flat.size):
            plus, minus = flat.copy(), flat.copy()
            plus[i] += eps
            minus[i] -= eps
            def at(v):
                return float(f(tf.constant(v.reshape(np.shape(base))), stop) if var is start
                             else f(start, tf.constant(v.reshape(np.shape(base)))))
            fd = (at(plus) - at(minus)) / (2 * eps)
            np.testing.assert_allclose(np.atleast_1d(grad.numpy())[i], fd, rtol=1e-6)
    # values equal the constant path's
    with tf.GradientTape():
        recorded = tf.linspace(start, stop, 5, axis=1).numpy()
    np.testing.assert_allclose(recorded, tf.linspace(start.numpy(), 3.0, 5, axis=1).numpy(), rtol=1e-15)
