"""Note [Lazy broadcast gradients]: a reduction's gradient stays one value per reduced slice until
a consumer needs its full shape; every gradient a user sees has its source's shape."""
import numpy as np
import pytest

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


# ---- a lazy gradient already shaped like its input, rules RegisterGradient puts in, edge cases

def _grads(f, *arrays):
    xs = [tf.constant(np.asarray(a, np.float64)) for a in arrays]
    with tf.GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = f(*xs)
    return [g.numpy() for g in tape.gradient(y, xs)]


@pytest.mark.parametrize("xshape,reduce", [
    ((1, 1), lambda z, m: m.reduce_sum(z)),                        # lazy g [1, 1] is x's shape
    ((1,), lambda z, m: m.reduce_sum(z)),
    ((1, 4), lambda z, m: m.reduce_sum(z, axis=0)),                # lazy g [1, 4] is x's shape
    ((1, 4), lambda z, m: m.reduce_sum(z, axis=0, keepdims=True)),
    ((3, 1), lambda z, m: m.reduce_mean(z, axis=1)),
    ((1, 1), lambda z, m: m.reduce_mean(z)),
])
@pytest.mark.parametrize("op", ["add", "multiply", "subtract"])
def test_a_lazy_gradient_shaped_like_its_input_still_counts_the_broadcast(xshape, reduce, op):
    y = np.arange(12.0).reshape(3, 4)
    gx, gy = _grads(lambda a, b: reduce(getattr(tf, op)(a, b), tf), np.ones(xshape), y)
    assert gx.shape == xshape and gy.shape == (3, 4)

    class _np:  # the same reductions in NumPy
        reduce_sum = staticmethod(lambda z, axis=None, keepdims=False: np.sum(z, axis=axis, keepdims=keepdims))
        reduce_mean = staticmethod(lambda z, axis=None, keepdims=False: np.mean(z, axis=axis, keepdims=keepdims))

    def loss(x):
        return np.sum(reduce(getattr(np, op)(x, y), _np))

    want = np.zeros(xshape)  # the loss is linear in x: one unit step per element
    for k in np.ndindex(xshape):
        e = np.zeros(xshape)
        e[k] = 1.0
        want[k] = loss(e) - loss(np.zeros(xshape))
    np.testing.assert_allclose(gx, want)


def test_lazy_gradient_shaped_like_input_in_a_function_and_second_order():
    @tf.function
    def grad(x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.square(x + y))
        return tape.gradient(loss, x)

    x, y = tf.constant([0.5], tf.float64), tf.constant(np.arange(3.0))
    np.testing.assert_allclose(grad(x, y).numpy(), [2 * np.sum(0.5 + np.arange(3.0))])
    with tf.GradientTape() as outer:
        outer.watch(x)
        g = grad(x, y)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [6.0])


def test_registered_rule_of_an_elementwise_op_sees_the_full_gradient():
    seen = []

    @tf.RegisterGradient("Tanh")
    def _tanh_grad(op, grad):  # a rule that depends on the whole upstream gradient
        seen.append(tuple(grad.shape))
        return grad / tf.sqrt(tf.reduce_sum(grad * grad)) * (1 - op.outputs[0] ** 2)

    try:
        x = tf.constant(np.array([0.1, 0.2, 0.3, 0.4]))
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = tf.reduce_sum(tf.tanh(x))
        g = tape.gradient(loss, x)
    finally:
        tf.RegisterGradient.restore("Tanh")
    assert seen == [(4,)]
    np.testing.assert_allclose(g.numpy(), (1 - np.tanh(x.numpy()) ** 2) / 2)


def test_registered_rule_returning_input_shaped_gradients_is_not_scaled():
    @tf.RegisterGradient("Mul")
    def _mul_grad(op, grad):  # TF's convention: each gradient already summed to its input's shape
        a, b = op.inputs
        return tf.reduce_sum(grad * b, axis=0, keepdims=True), grad * a

    try:
        gx, gy = _grads(lambda a, b: tf.reduce_sum(a * b), np.ones((1, 3)), np.arange(6.0).reshape(2, 3))
    finally:
        tf.RegisterGradient.restore("Mul")
    np.testing.assert_array_equal(gx, [[3.0, 5.0, 7.0]])
    np.testing.assert_array_equal(gy, np.ones((2, 3)))


def test_an_empty_broadcast_axis_sums_nothing_even_of_inf():
    x, w = tf.constant([1.0], tf.float64), tf.constant(np.ones(0))
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(x + w) * tf.constant(np.inf, tf.float64)  # d/dx = inf * (a count of 0)
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), [0.0])


def test_a_custom_gradient_may_return_a_gradient_that_broadcasts_to_its_input():
    @tf.custom_gradient
    def scaled(a, b):
        def grad(dy):
            return tf.reduce_sum(dy * b), dy * a  # a's gradient as a 0-d tensor for a [1, 1] input
        return a * b, grad

    x, y = tf.constant([[0.5]], tf.float64), tf.constant(np.arange(6.0).reshape(2, 3))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        loss = tf.reduce_mean(scaled(x, y))
        rows = tf.reduce_sum(scaled(x, y), axis=1)
    gx, gy = tape.gradient(loss, [x, y])
    assert gx.shape == (1, 1)
    np.testing.assert_allclose(gx.numpy(), [[15.0 / 6]])
    np.testing.assert_allclose(gy.numpy(), np.full((2, 3), 0.5 / 6))
    np.testing.assert_allclose(tape.jacobian(rows, x).numpy(), [[[3.0]], [[12.0]]])


def test_a_custom_gradient_of_the_wrong_shape_is_refused_naming_the_shapes():
    @tf.custom_gradient
    def f(a):
        return a * 2.0, lambda dy: tf.ones([5], tf.float64)

    a = tf.constant(np.ones(3))
    with tf.GradientTape() as tape:
        tape.watch(a)
        y = tf.reduce_sum(f(a))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"a gradient of float64\(5,\) cannot be reduced to shape"):
        tape.gradient(y, a)
