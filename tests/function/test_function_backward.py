"""One tape entry per Function call: the backward is a graph built once (Note [Backward graphs])."""
import numpy as np

import tapegrad as tf


def _loss(x, w):
    return tf.reduce_sum(tf.nn.softplus(tf.matmul(x, w)) * tf.tanh(x[:, :1]))


def test_gradients_through_backward_graph_match_eager():
    rng = np.random.default_rng(0)
    x, w0 = tf.constant(rng.normal(size=(5, 3))), rng.normal(size=(3, 2))
    w = tf.Variable(w0)
    f = tf.function(_loss)
    for call in range(3):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x, w)
        gx, gw = tape.gradient(y, [x, w])
        with tf.GradientTape() as tape:
            tape.watch(x)
            ye = _loss(x, w)
        ex, ew = tape.gradient(ye, [x, w])
        np.testing.assert_allclose(y.numpy(), ye.numpy(), rtol=1e-12)
        np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-12, atol=1e-14)
        w.assign_sub(0.1 * gw)  # later calls see the new value; the saved values are this call's
    cf = f.get_concrete_function(x, w)
    assert cf.backward_graph is not None and "Placeholder upstream" in str(cf.backward_graph)


def test_variable_changed_between_forward_and_backward_uses_the_forward_value():
    w = tf.Variable([2.0, 3.0], dtype=tf.float64)
    f = tf.function(lambda x: tf.reduce_sum(w * w * x))
    x = tf.constant([1.0, 1.0], dtype=tf.float64)
    f(x)
    with tf.GradientTape() as tape:
        y = f(x)
    w.assign([10.0, 10.0])
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), [4.0, 6.0])
    assert f.get_concrete_function(x).backward_graph is not None


def test_unconnected_and_integer_sources():
    f = tf.function(lambda x, y, k: tf.reduce_sum(x * 2.0) + tf.cast(k, tf.float64))
    x, y, k = tf.constant([1.0, 2.0], tf.float64), tf.constant([3.0], tf.float64), tf.constant(4)
    f(x, y, k)
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        out = f(x, y, k)
    gx, gy = tape.gradient(out, [x, y])
    np.testing.assert_allclose(gx.numpy(), [2.0, 2.0])
    assert gy is None


def test_nested_tapes_keep_second_order():
    f = tf.function(lambda x: tf.sin(x) * x)
    x = tf.constant(0.7, dtype=tf.float64)
    f(x)
    for _ in range(2):
        with tf.GradientTape() as t2:
            t2.watch(x)
            with tf.GradientTape() as t1:
                t1.watch(x)
                y = f(x)
            dy = t1.gradient(y, x)
        np.testing.assert_allclose(t2.gradient(dy, x).numpy(), -np.sin(0.7) * 0.7 + 2 * np.cos(0.7), rtol=1e-12)


def test_multiple_outputs_and_persistent_tape():
    f = tf.function(lambda x: (tf.reduce_sum(x * x), tf.exp(x)))
    x = tf.constant([0.5, -1.0], tf.float64)
    f(x)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a, b = f(x)
    np.testing.assert_allclose(tape.gradient(a, x).numpy(), 2 * x.numpy())
    np.testing.assert_allclose(tape.gradient(b, x).numpy(), np.exp(x.numpy()))
    np.testing.assert_allclose(tape.gradient([a, b], x).numpy(), 2 * x.numpy() + np.exp(x.numpy()))


def test_fused_forward_values_are_saved_not_captured():
    """A fused group's inner values (softplus(x), tanh(x)) are read by the backward: each call its own."""
    f = tf.function(lambda x: tf.reduce_sum(tf.nn.softplus(x) * tf.tanh(x)))
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = tf.constant(rng.normal(size=4096))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        xn = x.numpy()
        th = np.tanh(xn)
        want = th / (1 + np.exp(-xn)) + np.log1p(np.exp(xn)) * (1 - th ** 2)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-12, atol=1e-14)
    assert f.get_concrete_function(x).backward_graph is not None


def test_a_tensor_passed_as_two_arguments_gets_each_arguments_gradient_once():
    v = tf.Variable(2.0)
    f = tf.function(lambda a, b, w: a * b + w * a)
    x = tf.constant(3.0)
    for build in ("first call under the tape", "plan reused"):  # the plan is built at the first taped call
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x, x, v)
        gx, gv = tape.gradient(y, [x, v])
        assert float(gx) == 2 * 3.0 + 2.0 and float(gv) == 3.0, build
    with tf.GradientTape() as tape:  # a variable passed as an argument and read inside too
        y = tf.function(lambda w: w * v)(v)
    assert float(tape.gradient(y, v)) == 4.0
