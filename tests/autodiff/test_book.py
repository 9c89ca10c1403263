"""The book's autodiff examples, unchanged but for the import."""
import numpy as np

import tapegrad as tf


def f(w1, w2):
    return 3 * w1 ** 2 + 2 * w1 * w2


def test_finite_difference_approximation():
    w1, w2 = 5, 3
    eps = 1e-6
    assert abs((f(w1 + eps, w2) - f(w1, w2)) / eps - 36) < 1e-4
    assert abs((f(w1, w2 + eps) - f(w1, w2)) / eps - 10) < 1e-4


def test_gradient_tape():
    w1, w2 = tf.Variable(5.), tf.Variable(3.)
    with tf.GradientTape() as tape:
        z = f(w1, w2)
    gradients = tape.gradient(z, [w1, w2])
    assert [float(g) for g in gradients] == [36.0, 10.0]
    assert gradients[0].dtype == tf.float32
    assert repr(gradients[0]) == "<tf.Tensor: shape=(), dtype=float32, numpy=36.0>"


def test_persistent_tape_and_del():
    w1, w2 = tf.Variable(5.), tf.Variable(3.)
    with tf.GradientTape(persistent=True) as tape:
        z = f(w1, w2)
    dz_dw1 = tape.gradient(z, w1)
    dz_dw2 = tape.gradient(z, w2)
    del tape
    assert (float(dz_dw1), float(dz_dw2)) == (36.0, 10.0)


def test_constants_not_tracked_unless_watched():
    c1, c2 = tf.constant(5.), tf.constant(3.)
    with tf.GradientTape() as tape:
        z = f(c1, c2)
    assert tape.gradient(z, [c1, c2]) == [None, None]
    with tf.GradientTape() as tape:
        tape.watch(c1)
        tape.watch(c2)
        z = f(c1, c2)
    assert [float(g) for g in tape.gradient(z, [c1, c2])] == [36.0, 10.0]


def test_gradient_of_vector_of_losses():
    w1, w2 = tf.Variable(5.), tf.Variable(3.)
    with tf.GradientTape() as tape:
        z1 = f(w1, w2 + 2.)
        z2 = f(w1, w2 + 5.)
        z3 = f(w1, w2 + 7.)
    g = tape.gradient([z1, z2, z3], [w1, w2])
    assert [float(v) for v in g] == [136.0, 30.0]


def test_stop_gradient_variant():
    def f2(w1, w2):
        return 3 * w1 ** 2 + tf.stop_gradient(2 * w1 * w2)

    w1, w2 = tf.Variable(5.), tf.Variable(3.)
    with tf.GradientTape() as tape:
        z = f2(w1, w2)
    gradients = tape.gradient(z, [w1, w2])
    assert float(gradients[0]) == 30.0 and gradients[1] is None


def test_my_softplus_gives_nan_at_100():
    def my_softplus(z):
        return tf.math.log(tf.exp(z) + 1.0)

    x = tf.Variable([100.])
    with tf.GradientTape() as tape:
        z = my_softplus(x)
    assert np.isnan(tape.gradient(z, [x])[0].numpy()).all()


def test_my_better_softplus_custom_gradient():
    @tf.custom_gradient
    def my_better_softplus(z):
        exp = tf.exp(z)

        def my_softplus_gradients(grad):
            return grad / (1 + 1 / exp)

        return tf.math.log(exp + 1), my_softplus_gradients

    x = tf.Variable([100.])
    with tf.GradientTape() as tape:
        z = my_better_softplus(x)
    np.testing.assert_allclose(tape.gradient(z, [x])[0].numpy(), [1.0])


def test_tf_reference_log1pexp():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    x = tf.constant(100.)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    assert float(tape.gradient(y, x)) == 1.0
