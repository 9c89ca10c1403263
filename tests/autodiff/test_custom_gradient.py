"""custom_gradient: TF's documented behaviour, variables, several outputs, nesting, errors."""
import numpy as np
import pytest

import tapegrad as tf


def test_replaces_the_gradient():
    @tf.custom_gradient
    def clip_grad(x):
        return x * 1.0, lambda dy: tf.clip_by_value(dy, -0.5, 0.5)

    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = clip_grad(x) * 10.0
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.5])


def test_several_inputs_and_outputs():
    @tf.custom_gradient
    def f(a, b):
        def grad(da, db):
            return da * 2.0 + db, da + db * 3.0
        return (a + b, a * b), grad

    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        s, p = f(a, b)
        loss = s + p
    ga, gb = tape.gradient(loss, [a, b])
    assert (float(ga), float(gb)) == (3.0, 4.0)


def test_unused_output_gets_zero_upstream():
    @tf.custom_gradient
    def f(a):
        def grad(d1, d2):
            assert float(d2) == 0.0
            return d1 * 5.0
        return (a * 1.0, a * 2.0), grad

    a = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y1, _ = f(a)
    assert float(tape.gradient(y1, a)) == 5.0


def test_variables_are_passed_to_grad_fn():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            assert len(variables) == 1 and variables[0] is w
            return dy * 100.0, [dy * 7.0]
        return x * w, grad

    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = scale(x)
    gx, gw = tape.gradient(y, [x, w])
    assert (float(gx), float(gw)) == (100.0, 7.0)


def test_variables_without_variables_argument_raise():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def scale(x):
        return x * w, lambda dy: dy

    with pytest.raises(TypeError, match="variables"):
        scale(tf.constant(1.0))


def test_grad_fn_differentiates_under_nested_tapes():
    @tf.custom_gradient
    def cube(x):
        return x * x * x, lambda dy: dy * 3.0 * x * x

    x = tf.Variable(2.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0  # d/dx 3x^2 = 6x


def test_internals_are_not_recorded():
    calls = []

    @tf.custom_gradient
    def f(x):
        calls.append(1)
        return tf.exp(x), lambda dy: dy * 0.0 + 42.0

    x = tf.Variable(0.5)
    with tf.GradientTape() as tape:
        y = f(x)
    assert float(tape.gradient(y, x)) == 42.0 and len(calls) == 1


def test_wrong_number_of_gradients_raises():
    @tf.custom_gradient
    def f(a, b):
        return a + b, lambda dy: dy

    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = f(a, b)
    with pytest.raises(tf.errors.InvalidArgumentError, match="2 inputs"):
        tape.gradient(y, [a, b])


def test_bad_return_value_raises():
    @tf.custom_gradient
    def f(a):
        return a

    with pytest.raises(TypeError, match="grad_fn"):
        f(tf.constant(1.0))
