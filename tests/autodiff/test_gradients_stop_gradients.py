"""tf.gradients' stop_gradients without TensorFlow: no gradient flows through a listed tensor, whose own
gradient is still computed when it is one of xs (Note [Cutting at stop tensors] in
_autodiff/gradients.py); values worked out by hand, on the first call and on later calls of the graph.
Compared with TF in tests/oracle/test_tf_oracle_stop_gradients.py."""
import numpy as np
import pytest

import tapegrad as tf


def _values(grads):
    return [None if g is None else np.asarray(g.numpy()).tolist() for g in grads]


# a = 2x, b = a^2 + x, c = 3b + a: dc/dx = 3(4a + 1) + 2 through everything
@tf.function
def chain(x):
    a = x * 2.0
    b = a * a + x
    c = b * 3.0 + a
    return {
        "stop_a": tf.gradients(c, [x], stop_gradients=[a]),          # only the x in b: 3
        "stop_b": tf.gradients(c, [x], stop_gradients=[b]),          # only through a: 2
        "stop_both": tf.gradients(c, [x, a, b], stop_gradients=[b, a]),
        "own": tf.gradients(c, [a], stop_gradients=[a]),             # a's own gradient: 3 * 2a + 1
        "source": tf.gradients(b, [x], stop_gradients=[x]),          # a source stopping itself: 4a + 1
        "tensor_not_list": tf.gradients(c, [x, b], stop_gradients=b),
        "several_ys": tf.gradients([b, c], [x, a], stop_gradients=[a]),
        "weighted": tf.gradients([c], [x], grad_ys=[tf.constant(2.0)], stop_gradients=[a]),
        "zero_mode": tf.gradients(c, [x, a], stop_gradients=[a, b], unconnected_gradients="zero"),
        "unrelated_stop": tf.gradients(c, [x], stop_gradients=[tf.constant(5.0)]),
    }


def _expected(x):
    a = 2 * x
    return {
        "stop_a": [3.0], "stop_b": [2.0], "stop_both": [0.0, 1.0, 3.0], "own": [6 * a + 1], "source": [4 * a + 1],
        "tensor_not_list": [2.0, 3.0], "several_ys": [1.0 + 3.0, 2 * a + 3 * 2 * a + 1], "weighted": [6.0],
        "zero_mode": [0.0, 1.0], "unrelated_stop": [3 * (4 * a + 1) + 2],
    }


@pytest.mark.parametrize("x", [1.5, -0.25])  # the second call runs the graph traced by the first
def test_stop_gradients_values(x):
    got = {k: _values(v) for k, v in chain(tf.constant(x)).items()}
    for name, want in _expected(x).items():
        np.testing.assert_allclose(got[name], want, rtol=1e-6, err_msg=name)


def test_stop_gradients_on_tensors_and_variables():
    w = tf.Variable([1.0, -2.0])

    @tf.function
    def f(x):
        h = tf.tanh(w * x)
        y = tf.reduce_sum(h * h) + tf.reduce_sum(w)
        return tf.gradients(y, [w, x, h], stop_gradients=[h])

    gw, gx, gh = f(tf.constant([0.5, 0.3]))
    np.testing.assert_allclose(gw.numpy(), [1.0, 1.0])  # only the reduce_sum(w) term
    # x reaches y only through h: zeros, where TF gives None (the tape cannot tell; see the Note)
    np.testing.assert_allclose(gx.numpy(), [0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(gh.numpy(), 2 * np.tanh(np.array([1.0, -2.0]) * [0.5, 0.3]), rtol=1e-6)


def test_a_stop_between_is_the_subtraction():
    @tf.function
    def f(x):
        a = tf.sin(x)
        b = tf.exp(a) * x
        return tf.gradients(b * b, [x, a], stop_gradients=[a])

    x = 0.7
    gx, ga = f(tf.constant(x))
    b = np.exp(np.sin(x)) * x
    np.testing.assert_allclose(gx.numpy(), 2 * b * np.exp(np.sin(x)), rtol=1e-6)
    np.testing.assert_allclose(ga.numpy(), 2 * b * b, rtol=1e-6)
