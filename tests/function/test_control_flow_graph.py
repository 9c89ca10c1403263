"""Control-flow nodes in traced graphs (Note [Control-flow nodes]): tf.cond / tf.while_loop on traced
values decide at every call, and eager and traced runs give the same values and gradients."""
import collections
import io

import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads, check_second_order

f64 = tf.float64


def c(v, dtype=f64):
    return tf.constant(v, dtype=dtype)


def test_sum_below_n_counts_at_every_call():
    @tf.function
    def total(n):
        s = tf.constant(0)
        for_i = tf.constant(0)
        _, s = tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (for_i, s))
        return s

    assert [int(total(tf.constant(n))) for n in (3, 5, 0, 1)] == [3, 10, 0, 0]
    assert total.experimental_get_tracing_count() == 1
    assert "While" in total.get_concrete_function(tf.constant(3)).graph.ops


def _power(x, n):
    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), (tf.constant(0), tf.ones_like(x)))
    return y


def _both(fn, *args):
    """fn eagerly and traced, with values and tape gradients w.r.t. the float arguments."""
    out = []
    for f in (fn, tf.function(fn)):
        xs = [tf.constant(a) if isinstance(a, np.ndarray) else a for a in args]
        with tf.GradientTape() as t:
            for x in xs:
                if x.dtype.is_floating:
                    t.watch(x)
            y = f(*xs)
        grads = t.gradient(y, [x for x in xs if x.dtype.is_floating], unconnected_gradients=tf.UnconnectedGradients.ZERO)
        out.append((y.numpy(), [g.numpy() for g in grads]))
    return out


def _assert_same(pair):
    (y0, g0), (y1, g1) = pair
    np.testing.assert_allclose(y1, y0, rtol=1e-12)
    for a, b in zip(g1, g0):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_trip_count_from_a_tensor_eager_and_traced_agree():
    x = np.array([0.5, -1.5, 2.0])
    for n in (0, 1, 4):
        _assert_same(_both(_power, x, tf.constant(n)))
    f = tf.function(_power)
    np.testing.assert_allclose(f(c(x), tf.constant(3)).numpy(), x ** 3)
    np.testing.assert_allclose(f(c(x), tf.constant(5)).numpy(), x ** 5)


def test_value_dependent_trip_count_and_finite_difference_gradients():
    def halve_until_small(x):
        # the number of iterations depends on the values of x
        return tf.while_loop(lambda v: tf.reduce_sum(v * v) > 1.0, lambda v: v * 0.5 + tf.sin(v) * 0.1, x)

    f = tf.function(halve_until_small)
    for x in (np.array([3.0, -2.0]), np.array([0.3, 0.1]), np.array([20.0, 1.0])):
        np.testing.assert_allclose(f(c(x)).numpy(), halve_until_small(c(x)).numpy(), rtol=1e-12)
        check_grads(f, [x], {}, [0], np.random.default_rng(0))


def test_cond_gradients_take_each_calls_branch():
    def pick(x, y):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: x * y * y, lambda: tf.exp(x) - y)

    f = tf.function(pick)
    rng = np.random.default_rng(1)
    for x in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        y = np.array([0.5, 3.0])
        _assert_same(_both(pick, x, y))
        check_grads(f, [x, y], {}, [0, 1], rng)
    assert f.experimental_get_tracing_count() == 1


def test_nested_loops_and_cond_inside_while_and_while_inside_cond():
    def nested(x, n):
        def outer_body(i, acc):
            _, inner = tf.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + x * tf.cast(j, f64)), (0, acc))
            return i + 1, tf.cond(i % 2 == 0, lambda: inner * 1.5, lambda: inner - x)
        return tf.while_loop(lambda i, acc: i < n, outer_body, (tf.constant(0), tf.zeros_like(x)))[1]

    def loop_in_cond(x, n):
        return tf.cond(n > 2, lambda: _power(x, n), lambda: x * 10.0)

    x = np.array([0.7, -1.1])
    rng = np.random.default_rng(2)
    for n in (0, 3, 4):
        _assert_same(_both(nested, x, tf.constant(n)))
        _assert_same(_both(loop_in_cond, x, tf.constant(n)))
        if n:  # zero iterations: the result is a constant
            check_grads(tf.function(nested), [x, tf.constant(n)], {}, [0], rng)
        check_grads(tf.function(loop_in_cond), [x, tf.constant(n)], {}, [0], rng)


def test_variables_read_and_assigned_inside_a_body():
    w = tf.Variable(2.0, dtype=f64)
    counter = tf.Variable(0)

    @tf.function
    def f(x, n):
        def body(i, y):
            counter.assign_add(1)
            return i + 1, y * w + x
        return tf.while_loop(lambda i, y: i < n, body, (0, x))[1]

    x = c(1.0)
    assert float(f(x, tf.constant(2))) == 7.0 and int(counter.numpy()) == 2
    w.assign(3.0)
    assert float(f(x, tf.constant(3))) == 40.0 and int(counter.numpy()) == 5
    with tf.GradientTape() as t:
        y = f(x, tf.constant(2))
    assert float(t.gradient(y, w)) == pytest.approx(2 * 3.0 + 1.0)  # d/dw (w^2 + w + 1)
    assert int(counter.numpy()) == 7


def test_a_tape_inside_the_traced_function_around_the_loop():
    w = tf.Variable([0.5, -0.3], dtype=f64)

    @tf.function
    def step(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(_power(x * w, n))
        return y, t.gradient(y, [x, w], unconnected_gradients=tf.UnconnectedGradients.ZERO)

    def eager(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(_power(x * w, n))
        return y, t.gradient(y, [x, w], unconnected_gradients=tf.UnconnectedGradients.ZERO)

    x = c([1.5, 2.0])
    for n in (3, 5, 0, 2):
        (y0, (gx0, gw0)), (y1, (gx1, gw1)) = eager(x, tf.constant(n)), step(x, tf.constant(n))
        np.testing.assert_allclose(y1.numpy(), y0.numpy(), rtol=1e-12)
        np.testing.assert_allclose(gx1.numpy(), gx0.numpy(), rtol=1e-12)
        np.testing.assert_allclose(gw1.numpy(), gw0.numpy(), rtol=1e-12)
    assert step.experimental_get_tracing_count() == 1


def test_a_tape_inside_the_traced_function_around_a_cond():
    @tf.function
    def f(x):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.cond(x > 0, lambda: x * x * x, lambda: -x)
        return t.gradient(y, x)

    assert float(f(c(2.0))) == 12.0 and float(f(c(-2.0))) == -1.0


def test_second_order_gradient_of_a_loop():
    x = np.array([0.8, -1.3])
    rng = np.random.default_rng(3)
    check_second_order(tf.function(_power), [x, tf.constant(3)], {}, [0], rng)

    @tf.function
    def hessian_diag(x, n):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(_power(x, n))
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    for n in (2, 4):
        np.testing.assert_allclose(hessian_diag(c(x), tf.constant(n)).numpy(), n * (n - 1) * x ** (n - 2))


def test_forward_mode_through_a_loop():
    f = tf.function(_power)
    x, v = c([0.5, 2.0]), c([1.0, -1.0])
    for n in (3, 4):
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = f(x, tf.constant(n))
        np.testing.assert_allclose(acc.jvp(y).numpy(), n * x.numpy() ** (n - 1) * v.numpy())


def test_maximum_iterations_and_back_prop():
    @tf.function
    def f(x, limit):
        return tf.while_loop(lambda v: True, lambda v: v * 2.0, x, maximum_iterations=limit)

    assert float(f(c(1.0), tf.constant(3))) == 8.0 and float(f(c(1.0), tf.constant(0))) == 1.0
    g = tf.function(lambda x, n: tf.while_loop(lambda v: v < 1e9, lambda v: v * x, x, back_prop=False,
                                               maximum_iterations=n))
    x = c(3.0)
    with tf.GradientTape() as t:
        t.watch(x)
        y = g(x, tf.constant(2))
    assert float(y) == 27.0 and t.gradient(y, x) is None


def test_print_inside_a_body_runs_every_iteration():
    out = io.StringIO()

    @tf.function
    def f(n):
        def body(i):
            tf.print("step", i, output_stream=out)
            return i + 1
        return tf.while_loop(lambda i: i < n, body, [tf.constant(0)])

    f(tf.constant(2))
    f(tf.constant(3))
    assert out.getvalue().split("\n")[:-1] == ["step 0", "step 1", "step 0", "step 1", "step 2"]


def test_structures_of_loop_variables():
    State = collections.namedtuple("State", "i total")

    @tf.function
    def f(n, x):
        def body(i, total, d):
            return i + 1, total + x, {"a": d["a"] * 2.0, "b": d["b"] - 1}
        return tf.while_loop(lambda i, total, d: i < n, body, (0, tf.zeros_like(x), {"a": x, "b": tf.constant(5)}))

    i, total, d = f(tf.constant(3), c([1.0, 2.0]))
    assert int(i) == 3 and d["b"].numpy() == 2
    np.testing.assert_allclose(total.numpy(), [3.0, 6.0])
    np.testing.assert_allclose(d["a"].numpy(), [8.0, 16.0])

    @tf.function
    def g(n):
        return tf.while_loop(lambda i, total: i < n, lambda i, total: State(i + 1, total + i), State(0, 0))

    s = g(tf.constant(4))
    assert isinstance(s, State) and int(s.total) == 6


def test_shape_changes_need_shape_invariants():
    @tf.function
    def grow(n):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.concat([v, v], 0)), (0, tf.ones([1])))

    with pytest.raises(ValueError, match="shape_invariants"):
        grow(tf.constant(3))

    @tf.function
    def grow2(n):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, tf.concat([v, v], 0)), (0, tf.ones([1])),
                             shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))

    assert grow2(tf.constant(3))[1].shape == (8,)
    assert grow2(tf.constant(1))[1].shape == (2,)


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="type int32, but has type float32"):
        tf.function(lambda n: tf.while_loop(lambda i: i < n, lambda i: tf.cast(i, tf.float32) + 1.0, [0]))(
            tf.constant(2))
    with pytest.raises(TypeError, match="same dtypes"):
        tf.function(lambda x: tf.cond(x > 0, lambda: x, lambda: tf.cast(x, tf.int32)))(tf.constant(1.0))
    with pytest.raises(ValueError, match="structure"):
        tf.function(lambda x: tf.cond(x > 0, lambda: (x, x), lambda: x))(tf.constant(1.0))


def test_case_and_switch_case_eager_and_traced():
    def by_case(x):
        return tf.case([(x < 0, lambda: -x), (x < 1, lambda: x * 10.0)], default=lambda: x + 100.0)

    def by_switch(i, x):
        return tf.switch_case(i, [lambda: x, lambda: x * 2.0, lambda: x * 3.0])

    fc, fs = tf.function(by_case), tf.function(by_switch)
    for v in (-2.0, 0.5, 3.0):
        assert float(fc(c(v))) == float(by_case(c(v)))
    for i in (0, 1, 2, 7, -1):
        assert float(fs(tf.constant(i), c(1.5))) == float(by_switch(tf.constant(i), c(1.5)))
    assert fc.experimental_get_tracing_count() == 1 and fs.experimental_get_tracing_count() == 1
    assert float(tf.switch_case(1, {0: lambda: 5.0, 1: lambda: 6.0})) == 6.0
    assert float(tf.case([(tf.constant(False), lambda: 1.0), (tf.constant(True), lambda: 2.0)])) == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="none of the 2 conditions"):  # as TF, no default
        tf.case([(tf.constant(False), lambda: 1.0), (tf.constant(False), lambda: 2.0)])


def test_graph_text_shows_the_subgraphs():
    f = tf.function(_power)
    graph = f.get_concrete_function(c([1.0]), tf.constant(2)).graph
    text, dot = str(graph), graph.to_dot()
    assert "While(" in text and "cond: graph(" in text and "body: graph(" in text
    assert 'label="While"' in dot and 'label="body"' in dot and "subgraph cluster_" in dot


def test_a_function_called_in_a_loop_and_a_tape_inside_a_body():
    inner = tf.function(lambda v, x: v * x + 1.0)

    def calls(x, n):
        return tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, inner(v, x)), (0, x * 1.0))[1]

    def descends(x, n):
        def body(i, v):
            with tf.GradientTape() as t:
                t.watch(v)
                y = tf.reduce_sum(tf.sin(v) * v)
            return i + 1, v - 0.1 * t.gradient(y, v)
        return tf.while_loop(lambda i, v: i < n, body, (0, x))[1]

    x = np.array([0.4, -0.9])
    rng = np.random.default_rng(4)
    for n in (1, 3):
        _assert_same(_both(calls, x, tf.constant(n)))
        _assert_same(_both(descends, x, tf.constant(n)))
        check_grads(tf.function(descends), [x, tf.constant(n)], {}, [0], rng)


def test_only_the_taken_branch_prints_and_assigns():
    out = io.StringIO()
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        def yes():
            tf.print("yes", output_stream=out)
            v.assign_add(1.0)
            return x
        def no():
            tf.print("no", output_stream=out)
            v.assign_sub(1.0)
            return -x
        return tf.cond(x > 0, yes, no)

    f(tf.constant(1.0))
    f(tf.constant(-1.0))
    f(tf.constant(2.0))
    assert out.getvalue().split() == ["yes", "no", "yes"] and float(v.numpy()) == 1.0


def test_a_function_holding_a_loop_called_inside_another_function():
    inner = tf.function(_power)
    inner(c([1.0, 2.0]), tf.constant(2))  # traced and cached on its own first

    @tf.function
    def outer(x, n):
        return inner(x, n) + inner(x, n + 1)

    x = np.array([1.5, -0.5])
    for n in (1, 3):
        np.testing.assert_allclose(outer(c(x), tf.constant(n)).numpy(), x ** n + x ** (n + 1))
    assert outer.experimental_get_tracing_count() == 1
    check_grads(outer, [x, tf.constant(2)], {}, [0], np.random.default_rng(5))


def test_shape_relaxation_and_get_concrete_function():
    def power_from_x(x, n):  # x ** (n + 1), with no constant shaped like x
        return tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), (0, x))[1]

    f = tf.function(power_from_x, reduce_retracing=True)
    for size in (2, 3, 5):
        x = np.linspace(0.5, 1.5, size)
        np.testing.assert_allclose(f(c(x), tf.constant(3)).numpy(), x ** 4)
    assert f.experimental_get_tracing_count() == 2  # the second trace serves every length

    v = tf.Variable(0.0)

    @tf.function
    def bump(n):
        return tf.while_loop(lambda i: i < n, lambda i: (v.assign_add(1.0), i + 1)[1], [tf.constant(0)])

    bump.get_concrete_function(tf.TensorSpec([], tf.int32))
    assert float(v.numpy()) == 0.0  # a dry trace undoes the loop's assignments
    bump(tf.constant(4))
    assert float(v.numpy()) == 4.0


def test_forward_mode_inside_the_traced_function():
    @tf.function
    def jvp(x, v, n):
        with tf.autodiff.ForwardAccumulator(x, v) as acc:
            y = _power(x, n)
            z = tf.cond(n > 2, lambda: tf.sin(y), lambda: y * x)
        return acc.jvp(y), acc.jvp(z)

    x, v = np.array([0.5, 2.0]), np.array([1.0, -1.0])
    for n in (2, 3, 4):
        dy, dz = jvp(c(x), c(v), tf.constant(n))
        np.testing.assert_allclose(dy.numpy(), n * x ** (n - 1) * v)
        want = np.cos(x ** n) * n * x ** (n - 1) * v if n > 2 else (n + 1) * x ** n * v
        np.testing.assert_allclose(dz.numpy(), want)
    assert jvp.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("first_call_under_outer_tape", [True, False])
def test_a_gradient_computed_inside_differentiated_outside(first_call_under_outer_tape):
    @tf.function
    def grad_inside(x, n):
        with tf.GradientTape() as t:
            t.watch(x)
            y = tf.reduce_sum(_power(x, n) * x)
        return t.gradient(y, x)

    x = np.array([0.7, -1.2])
    if not first_call_under_outer_tape:
        grad_inside(c(x), tf.constant(2))
    for n in (2, 3):
        xt = c(x)
        with tf.GradientTape() as outer:
            outer.watch(xt)
            g = grad_inside(xt, tf.constant(n))
        np.testing.assert_allclose(g.numpy(), (n + 1) * x ** n)
        np.testing.assert_allclose(outer.gradient(g, xt).numpy(), (n + 1) * n * x ** (n - 1))
    assert grad_inside.experimental_get_tracing_count() == 1


def test_random_draws_inside_a_loop_follow_the_eager_sequence():
    def shift_in(n):
        body = lambda i, s: (i + 1, tf.concat([s[1:], tf.random.uniform([1])], 0))  # noqa: E731
        return tf.while_loop(lambda i, s: i < n, body, (0, tf.zeros([3])))[1]

    f = tf.function(shift_in)
    results = []
    for fn in (shift_in, f, f):
        tf.random.set_seed(7)
        results.append(fn(tf.constant(3)).numpy())
    np.testing.assert_array_equal(results[1], results[0])
    np.testing.assert_array_equal(results[2], results[0])


def _rnn_grads(w, u, xs, steps):
    with tf.GradientTape() as tape:
        tape.watch([w, u])
        h = tf.zeros([2, 4], f64)
        for t in tf.range(steps):
            h = tf.tanh(tf.matmul(xs[t], w) + tf.matmul(h, u))
        loss = tf.reduce_sum(h * h)
    return tape.gradient(loss, [w, u])


def test_watched_constants_captured_by_a_loop_get_their_gradient():
    # The loop body reads w and u, constants of the enclosing function watched by its tape: they
    # must be arguments of the While node (they were baked into the body and got None).
    rng = np.random.default_rng(3)
    w, u = c(rng.normal(size=(3, 4)) * 0.3), c(rng.normal(size=(4, 4)) * 0.3)
    xs = c(rng.normal(size=(9, 2, 3)))
    traced = tf.function(lambda xs, steps: _rnn_grads(w, u, xs, steps))
    for n in (5, 7, 2, 9):
        for got, want in zip(traced(xs, tf.constant(n)), _rnn_grads(w, u, xs, tf.constant(n))):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    assert traced.experimental_get_tracing_count() == 1

    @tf.function
    def branch(x, flag):
        with tf.GradientTape() as tape:
            tape.watch(w)
            y = tf.cond(flag, lambda: tf.reduce_sum(tf.matmul(x, w)), lambda: tf.reduce_sum(w * w))
        return tape.gradient(y, w)
    x = c(rng.normal(size=(2, 3)))
    np.testing.assert_allclose(branch(x, tf.constant(True)).numpy(), np.repeat(x.numpy().sum(0)[:, None], 4, 1))
    np.testing.assert_allclose(branch(x, tf.constant(False)).numpy(), 2 * w.numpy())


def test_the_loop_backward_reads_each_steps_result_instead_of_recomputing_it():
    # Note [Given outputs]: tanh's gradient reads the step's result from the loop's history, so the
    # backward body holds only the three gradient matmuls, not the forward's two again.
    rng = np.random.default_rng(4)
    w, u, xs = c(rng.normal(size=(3, 4))), c(rng.normal(size=(4, 4))), c(rng.normal(size=(6, 2, 3)))
    f = tf.function(_rnn_grads)
    for n in (6, 1, 0):
        got = f(w, u, xs, tf.constant(n))
        if n:
            for g, want in zip(got, _rnn_grads(w, u, xs, tf.constant(n))):
                np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-12)
    assert f.get_concrete_function(w, u, xs, tf.constant(6)).graph.to_text().count("MatMul(") == 2 + 3


def test_a_loop_returning_one_value_twice_differentiates_both():
    def f(x, n):
        def body(i, a, b):
            y = tf.sin(a * b)
            return i + 1, y, y
        _, a, b = tf.while_loop(lambda i, a, b: i < n, body, (tf.constant(0), x, x * 2.0))
        return tf.reduce_sum(a * 3.0 + b * b)
    _assert_same(_both(f, np.array([0.3, -0.7]), tf.constant(3)))


def test_a_tensor_array_without_element_shape_learns_it_in_a_graph_loop():
    # TF's tf.function guide pattern: the first iteration is peeled off and its write gives the shape
    @tf.function
    def doubled(x, n):
        ta = tf.TensorArray(f64, size=0, dynamic_size=True)
        for i in tf.range(n):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()

    x = c([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    for n in (3, 1, 2):
        np.testing.assert_array_equal(doubled(x, tf.constant(n)).numpy(), 2 * x.numpy()[:n])
    assert doubled(x, tf.constant(0)).numpy().shape == (0, 2)
    assert doubled.experimental_get_tracing_count() == 1
