"""ForwardAccumulator semantics: watching, structures, unconnected targets, nesting with tapes and
other accumulators, custom gradients, and memory of intermediate tangents."""
import numpy as np
import pytest

import tapegrad as tf

ForwardAccumulator = tf.autodiff.ForwardAccumulator
ZERO = tf.UnconnectedGradients.ZERO


def test_basic_jvp():
    x, v = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, -1.0, 0.5])
    with ForwardAccumulator(x, v) as acc:
        y = 3.0 * x ** 2
    np.testing.assert_allclose(acc.jvp(y).numpy(), 6 * x.numpy() * v.numpy(), rtol=1e-6)
    np.testing.assert_allclose(acc.jvp(x).numpy(), v.numpy())  # a watched primal's tangent


def test_tf_doc_example():
    v = tf.Variable([1.0, 2.0])
    with ForwardAccumulator(v, tf.constant([1.0, 3.0])) as acc:
        y = v * v
    np.testing.assert_allclose(acc.jvp(y).numpy(), [2.0, 12.0])


def test_nested_structures():
    a, b = tf.constant(2.0), tf.constant([1.0, 2.0])
    with ForwardAccumulator({"a": a, "b": [b]}, {"a": tf.constant(1.0), "b": [tf.constant([0.0, 1.0])]}) as acc:
        y = a * b
        z = tf.reduce_sum(b)
    out = acc.jvp({"y": y, "pair": (z, a)})
    np.testing.assert_allclose(out["y"].numpy(), [1.0 + 0.0, 2.0 + 2.0])   # da * b + a * db
    np.testing.assert_allclose(out["pair"][0].numpy(), 1.0)
    np.testing.assert_allclose(out["pair"][1].numpy(), 1.0)
    assert isinstance(out["pair"], tuple)


def test_python_values_as_tangents():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    s = tf.constant(2.0)
    with ForwardAccumulator([x, s], [np.ones(2, np.float32), 1]) as acc:   # converted to each primal's dtype
        y = tf.exp(x)
        z = s * s
    assert acc.jvp(y).dtype == tf.float64
    np.testing.assert_allclose(acc.jvp(y).numpy(), np.exp([1.0, 2.0]))
    assert float(acc.jvp(z)) == 4.0


def test_unconnected_and_unwatched():
    x, c = tf.constant([1.0, 2.0]), tf.constant([5.0, 6.0])
    with ForwardAccumulator(x, tf.ones([2])) as acc:
        y = c * 2.0
        i = tf.argmax(x)                 # integer output: no tangent
        s = tf.stop_gradient(x) * 3.0    # stop_gradient cuts the tangent, as it cuts gradients
    assert acc.jvp(y) is None
    assert acc.jvp(i) is None
    assert acc.jvp(s) is None
    np.testing.assert_allclose(acc.jvp(y, unconnected_gradients=ZERO).numpy(), [0.0, 0.0])
    assert acc.jvp([y, x], unconnected_gradients="zero")[1] is not None


def test_only_ops_inside_the_context_are_pushed_forward():
    x = tf.constant(2.0)
    acc = ForwardAccumulator(x, tf.constant(1.0))
    before = x * x
    with acc:
        inside = x * x
    after = x * x
    assert acc.jvp(before) is None and acc.jvp(after) is None
    assert float(acc.jvp(inside)) == 4.0
    assert acc.jvp(inside * 1.0) is None   # ops after exit are not pushed forward, even on tangents


def test_bad_arguments():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="ForwardAccumulator"):
        ForwardAccumulator(x, tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="ForwardAccumulator"):
        ForwardAccumulator(tf.constant([1, 2]), tf.constant([1, 1]))
    with pytest.raises(ValueError, match="structure"):
        ForwardAccumulator([x, x], [x])
    with pytest.raises(TypeError, match="primals must be Tensors"):
        ForwardAccumulator([1.0], [1.0])
    acc = ForwardAccumulator(x, x)
    with acc:
        with pytest.raises(RuntimeError, match="already active"):
            acc.__enter__()
    with pytest.raises(ValueError, match="unconnected_gradients"):
        acc.jvp(x, unconnected_gradients="sometimes")
    with pytest.raises(TypeError, match="jvp"):
        acc.jvp([x, "y"])
    assert tf.autodiff.GradientTape is tf.GradientTape


def _f(W, x):
    return tf.reduce_sum(tf.tanh(tf.linalg.matvec(W, x)) ** 2)


def _nested_tape_hessian(W, x):
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = _f(W, x)
        g = inner.gradient(y, x)
    return outer.jacobian(g, x)


def test_forward_over_reverse_hvp_equals_nested_tape_hessian_times_v():
    rng = np.random.default_rng(0)
    W = tf.constant(rng.standard_normal((6, 5)))
    x, v = tf.constant(rng.standard_normal(5)), tf.constant(rng.standard_normal(5))
    with ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = _f(W, x)
        g = tape.gradient(y, x)
    hvp = acc.jvp(g)
    H = _nested_tape_hessian(W, x).numpy()
    np.testing.assert_allclose(hvp.numpy(), H @ v.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(float(acc.jvp(y)), g.numpy() @ v.numpy(), rtol=1e-12)


def test_reverse_over_forward_hvp():
    rng = np.random.default_rng(1)
    W = tf.constant(rng.standard_normal((4, 3)))
    x, v = tf.constant(rng.standard_normal(3)), tf.constant(rng.standard_normal(3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        with ForwardAccumulator(x, v) as acc:
            y = _f(W, x)
        dy = acc.jvp(y)            # g . v, recorded by the tape
    hvp = tape.gradient(dy, x)
    np.testing.assert_allclose(hvp.numpy(), _nested_tape_hessian(W, x).numpy() @ v.numpy(), rtol=1e-10)


def test_hvp_with_variables():
    rng = np.random.default_rng(2)
    W1, b1 = tf.Variable(rng.standard_normal((3, 4))), tf.Variable(rng.standard_normal(4))
    W2 = tf.Variable(rng.standard_normal((4, 1)))
    X = tf.constant(rng.standard_normal((5, 3)))
    params = [W1, b1, W2]
    vs = [tf.constant(rng.standard_normal(p.shape)) for p in params]

    def loss():
        return tf.reduce_mean(tf.matmul(tf.tanh(tf.matmul(X, W1) + b1), W2) ** 2)

    with ForwardAccumulator(params, vs) as acc:
        with tf.GradientTape() as tape:
            L = loss()
        grads = tape.gradient(L, params)
    hvp = acc.jvp(grads)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            L = loss()
        g = inner.gradient(L, params)
        gv = tf.add_n([tf.reduce_sum(gi * vi) for gi, vi in zip(g, vs)])
    want = outer.gradient(gv, params)
    for h, w in zip(hvp, want):
        np.testing.assert_allclose(h.numpy(), w.numpy(), rtol=1e-9, atol=1e-12)


def test_nested_accumulators_second_derivative():
    x = tf.constant(0.7, dtype=tf.float64)
    with ForwardAccumulator(x, tf.constant(2.0, tf.float64)) as outer:
        with ForwardAccumulator(x, tf.constant(3.0, tf.float64)) as inner:
            y = tf.sin(x)
        dy = inner.jvp(y)                      # cos(x) * 3, computed where `outer` sees it
    np.testing.assert_allclose(float(dy), 3 * np.cos(0.7))
    np.testing.assert_allclose(float(outer.jvp(dy)), -6 * np.sin(0.7))   # d/dx (3 cos x) * 2
    np.testing.assert_allclose(float(outer.jvp(y)), 2 * np.cos(0.7))
    # An inner accumulator does not see the outer one's tangent computations.
    assert inner.jvp(outer.jvp(y)) is None


def test_third_order_forward():
    x = tf.constant(0.3, dtype=tf.float64)
    one = tf.constant(1.0, tf.float64)
    with ForwardAccumulator(x, one) as a1:
        with ForwardAccumulator(x, one) as a2:
            with ForwardAccumulator(x, one) as a3:
                y = x ** 4
            d1 = a3.jvp(y)
        d2 = a2.jvp(d1)
    np.testing.assert_allclose(float(a1.jvp(d2)), 24 * 0.3)


def test_gradients_unchanged_by_an_accumulator():
    x = tf.constant([0.5, -1.0])
    with tf.GradientTape() as t0:
        t0.watch(x)
        y0 = tf.reduce_sum(tf.exp(x) * x)
    with ForwardAccumulator(x, tf.ones([2])):
        with tf.GradientTape() as t1:
            t1.watch(x)
            y1 = tf.reduce_sum(tf.exp(x) * x)
    np.testing.assert_allclose(t1.gradient(y1, x).numpy(), t0.gradient(y0, x).numpy())


def test_custom_gradient_is_used_in_forward_mode():
    @tf.custom_gradient
    def my_better_softplus(z):
        den = 1 + tf.exp(-z)

        def grad(dy):
            return dy / den
        return tf.math.log(1 + tf.exp(z)), grad

    @tf.custom_gradient
    def clip_grad(z):          # identity forward, gradient scaled by 10: the JVP follows the rule
        return tf.identity(z), lambda dy: dy * 10.0

    x = tf.constant(100.0)
    with ForwardAccumulator(x, tf.constant(2.0)) as acc:
        y = my_better_softplus(x)
        z = clip_grad(x)
    assert float(acc.jvp(y)) == pytest.approx(2.0)
    assert float(acc.jvp(z)) == pytest.approx(20.0)


def test_custom_gradient_with_variables_forward_mode():
    w = tf.Variable(3.0)

    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * w, [dy * x]
        return x * w, grad

    x = tf.constant(2.0)
    with ForwardAccumulator([x, w], [tf.constant(1.0), tf.constant(10.0)]) as acc:
        y = scale(x)
    assert float(acc.jvp(y)) == pytest.approx(3.0 * 1.0 + 2.0 * 10.0)


def test_tangents_of_dead_intermediates_are_dropped():
    x = tf.constant([1.0, 2.0])
    acc = ForwardAccumulator(x, tf.ones([2]))
    with acc:
        y = x
        for _ in range(6000):
            y = tf.sin(x) * 1.0   # each step's intermediates die at once
    assert acc._acc._num_tangents < 4096
    np.testing.assert_allclose(acc.jvp(y).numpy(), np.cos([1.0, 2.0]), rtol=1e-6)


def test_jacobian_inside_an_accumulator():
    """Forward over a batched reverse sweep: the JVP of a Jacobian is the Hessian contracted with v."""
    rng = np.random.default_rng(3)
    W = tf.constant(rng.standard_normal((4, 3)))
    x, v = tf.constant(rng.standard_normal(3)), tf.constant(rng.standard_normal(3))
    with ForwardAccumulator(x, v) as acc:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.linalg.matvec(W, x))
        J = tape.jacobian(y, x)
    dJ = acc.jvp(J).numpy()
    eps = 1e-6

    def jac(xx):
        with tf.GradientTape() as t:
            t.watch(xx)
            yy = tf.tanh(tf.linalg.matvec(W, xx))
        return t.jacobian(yy, xx).numpy()
    want = (jac(x + eps * v) - jac(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(dJ, want, rtol=1e-6, atol=1e-8)


def test_forward_mode_through_a_tape_with_a_persistent_accumulator_over_steps():
    """Entering the same accumulator again after exit keeps its tangents (TF allows re-entry)."""
    x = tf.constant(1.5)
    acc = ForwardAccumulator(x, tf.constant(1.0))
    with acc:
        y = x * x
    with acc:
        z = y * x
    assert float(acc.jvp(z)) == pytest.approx(3 * 1.5 ** 2)


def test_function_inside_an_accumulator():
    """A tf.function runs its graph op by op through the accumulator (as it does for a tape)."""
    @tf.function
    def f(x):
        return tf.reduce_sum(tf.sin(x) * x)

    x = tf.constant([0.3, 1.2])
    d = np.cos(x.numpy()) * x.numpy() + np.sin(x.numpy())
    for _ in range(2):  # traced inside the accumulator, then replayed
        with ForwardAccumulator(x, tf.constant([1.0, 2.0])) as acc:
            y = f(x)
        np.testing.assert_allclose(float(acc.jvp(y)), d @ [1.0, 2.0], rtol=1e-5)
    assert f.experimental_get_tracing_count() == 1


def test_fill_and_linspace_carry_a_tangent_with_no_tape_recording():
    # Their eager shortcut (a NumPy fill) once skipped the accumulator: the JVP was None.
    x = tf.constant(2.0)
    with tf.autodiff.ForwardAccumulator(x, tf.constant(1.0)) as acc:
        filled, spaced = tf.fill([3], x), tf.linspace(x, 5.0, 4)
    np.testing.assert_allclose(acc.jvp(filled).numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(acc.jvp(spaced).numpy(), [1.0, 2 / 3, 1 / 3, 0.0], rtol=1e-6)
