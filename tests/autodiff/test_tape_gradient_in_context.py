"""Note [Gradients inside the context]: gradient() on a persistent tape inside its `with` block is
recorded on that tape, so later gradients differentiate it (values as TF gives them)."""
import numpy as np

import tapegrad as tf

X = np.array([0.5, 0.1])


def test_derivatives_of_derivatives_taken_inside_the_block():
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = tf.sin(x) * x
        u_x = tape.gradient(u, x)
        inside = tape.gradient(u_x, x)
        u_xx = tape.gradient(u_x, x)
    u_xxx = tape.gradient(u_xx, x)
    np.testing.assert_allclose(u_x.numpy(), np.cos(X) * X + np.sin(X), rtol=1e-14)
    np.testing.assert_allclose(inside.numpy(), -np.sin(X) * X + 2 * np.cos(X), rtol=1e-14)
    np.testing.assert_allclose(u_xx.numpy(), inside.numpy(), rtol=1e-14)
    np.testing.assert_allclose(u_xxx.numpy(), -np.cos(X) * X - 3 * np.sin(X), rtol=1e-14)


def test_a_pinn_residual_with_slices_and_a_variable():
    xt = tf.constant(np.array([[0.3, 0.7], [0.9, 0.2]]))
    w = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xt)
        x, t = xt[:, 0:1], xt[:, 1:2]
        u = tf.sin(w[0] * x) * tf.exp(w[1] * t)
        u_x = tape.gradient(u, xt)[:, 0:1]
        u_t = tape.gradient(u, xt)[:, 1:2]
        u_xx = tape.gradient(u_x, xt)[:, 0:1]
        loss = tf.reduce_sum((u_t - u_xx) ** 2)
    grad = tape.gradient(loss, w).numpy()
    a, b = 1.0, 2.0
    xs, ts = xt.numpy()[:, :1], xt.numpy()[:, 1:]
    r = (b + a * a) * np.sin(a * xs) * np.exp(b * ts)  # u_t - u_xx
    dr_da = (2 * a * np.sin(a * xs) + (b + a * a) * xs * np.cos(a * xs)) * np.exp(b * ts)
    dr_db = (1 + (b + a * a) * ts) * np.sin(a * xs) * np.exp(b * ts)
    np.testing.assert_allclose(grad, [np.sum(2 * r * dr_da), np.sum(2 * r * dr_db)], rtol=1e-12)


def test_jacobians_taken_inside_the_block():
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        j = tape.jacobian(tf.sin(x) * x, x)
    second = -np.sin(X) * X + 2 * np.cos(X)  # d/dx of the diagonal; the sum over j's rows is the same
    np.testing.assert_allclose(tape.gradient(j, x).numpy(), second, rtol=1e-14)
    xb = tf.constant(X[:, None])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xb)
        bj = tape.batch_jacobian(tf.sin(xb) * xb, xb)
    np.testing.assert_allclose(tape.gradient(bj, xb).numpy().ravel(), second, rtol=1e-14)


def test_variables_and_tf_function():
    w = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        g = tape.gradient(tf.reduce_sum(w ** 3), w)
        n = tf.reduce_sum(g ** 2)
    np.testing.assert_allclose(tape.gradient(n, w).numpy(), [36.0, 288.0])

    @tf.function
    def second(x):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            u_x = tape.gradient(tf.exp(2 * x), x)
        return tape.gradient(u_x, x)
    np.testing.assert_allclose(second(tf.constant(X)).numpy(), 4 * np.exp(2 * X), rtol=1e-14)


def test_not_recorded_under_stop_recording_or_outside_the_block():
    x = tf.constant(X)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = tf.sin(x)
        with tape.stop_recording():
            u_x = tape.gradient(u, x)
        n = tape._num_entries
    assert tape.gradient(u_x, x) is None and tape._num_entries == n
    after = tape.gradient(u, x)  # outside the block: nothing recorded either
    assert tape.gradient(after, x) is None and tape._num_entries == n
    with tf.GradientTape() as once:  # a non-persistent tape may be asked inside its block too
        once.watch(x)
        y = tf.sin(x)
        np.testing.assert_allclose(once.gradient(y, x).numpy(), np.cos(X))
