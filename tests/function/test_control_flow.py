"""tf.cond and tf.while_loop: Python control flow on the predicate's value (eagerly, and in a trace
when the predicate has a value at tracing time); a traced predicate builds a graph node."""
import collections

import numpy as np
import pytest

import tapegrad as tf


def test_cond_runs_the_chosen_branch_and_differentiates_through_it():
    x = tf.constant(3.0)
    for value, want, dwant in [(3.0, 9.0, 6.0), (-2.0, 2.0, -1.0)]:
        x = tf.constant(value)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cond(x > 0, lambda: x * x, lambda: -x)
        assert float(y) == want and float(tape.gradient(y, x)) == dwant
    assert tf.cond(True, lambda: 1, lambda: 2) == 1


def test_while_loop_structures_gradient_and_maximum_iterations():
    i, x = tf.constant(0), tf.constant(1.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        n, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x), (i, tf.constant(1.0)))
    assert int(n) == 3 and float(y) == pytest.approx(1.5 ** 3)
    assert float(tape.gradient(y, x)) == pytest.approx(3 * 1.5 ** 2)
    single = tf.while_loop(lambda v: v < 100, lambda v: v * 2, tf.constant(3))
    assert int(single) == 192
    capped = tf.while_loop(lambda v: True, lambda v: [v + 1], [tf.constant(0)], maximum_iterations=5)
    assert isinstance(capped, list) and int(capped[0]) == 5
    State = collections.namedtuple("State", "k total")
    out = tf.while_loop(lambda k, total: k < 4, lambda k, total: State(k + 1, total + k), State(0, 0))
    assert out == State(4, 6)


def test_constant_predicates_unroll_inside_a_function():
    @tf.function
    def power(x, n):
        k, y = tf.while_loop(lambda k, y: k < n, lambda k, y: (k + 1, y * x), (0, tf.ones_like(x)))
        return tf.cond(n > 2, lambda: y, lambda: -y)

    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(power(x, 3).numpy(), [1.0, 8.0])
    np.testing.assert_allclose(power(x, 2).numpy(), [-1.0, -4.0])


def test_traced_predicates_build_graph_nodes_that_decide_at_every_call():
    f = tf.function(lambda x: tf.cond(x > 0, lambda: x, lambda: -x))
    assert float(f(tf.constant(1.0))) == 1.0 and float(f(tf.constant(-3.0))) == 3.0
    assert f.experimental_get_tracing_count() == 1
    g = tf.function(lambda x: tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))
    assert float(g(tf.constant(1.0))) == 16.0 and float(g(tf.constant(3.0))) == 12.0
    assert "While" in g.get_concrete_function(tf.constant(1.0)).graph.ops


def test_bad_arguments():
    with pytest.raises(ValueError, match="tf.cond: the predicate must be a boolean scalar"):
        tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(ValueError, match="boolean scalar, got float32"):
        tf.cond(tf.constant(1.0), lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="callables"):
        tf.cond(True, 1, 2)
    with pytest.raises(ValueError, match="body returned 1 values for 2 loop variables"):
        tf.while_loop(lambda a, b: True, lambda a, b: a, (1, 2))


def test_a_variable_predicate_or_bound_inside_a_function_is_read_at_every_call():
    # a Variable not yet read in the trace used to give its tracing-time value, fixed in the graph
    flag, limit = tf.Variable(True), tf.Variable(2)
    f = tf.function(lambda x: tf.cond(flag, lambda: x + 1.0, lambda: x - 1.0))
    assert float(f(tf.constant(0.0))) == 1.0
    flag.assign(False)
    assert float(f(tf.constant(0.0))) == -1.0
    g = tf.function(lambda x: tf.while_loop(lambda v: True, lambda v: v * 2.0, x, maximum_iterations=limit))
    assert float(g(tf.constant(1.0))) == 4.0
    limit.assign(3)
    assert float(g(tf.constant(1.0))) == 8.0
    # eagerly both are read as usual
    assert float(tf.cond(flag, lambda: 1.0, lambda: 2.0)) == 2.0
    assert float(tf.while_loop(lambda v: True, lambda v: v * 2.0, tf.constant(1.0), maximum_iterations=limit)) == 8.0


def test_python_reads_of_a_variable_in_a_trace_raise_instead_of_freezing_its_value():
    v = tf.Variable(2.0)

    @tf.function(autograph=False)  # Python's own float()/bool(); AutoGraph makes float(v) a cast, as TF's does
    def f(x):
        shown = [str(v), repr(v)]
        for read in (float, bool, lambda t: t.numpy()):
            with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Variable"):
                read(v)
        assert all("(traced)" in s for s in shown)
        return x * v

    assert float(f(tf.constant(1.0))) == 2.0
    v.assign(3.0)
    assert float(f(tf.constant(1.0))) == 3.0
    assert str(v) == f"<tf.Variable '{v.name}' shape=() dtype=float32, numpy=3.0>"


@pytest.mark.parametrize("call, error, match", [
    (lambda: tf.switch_case(tf.constant(1.0), [lambda: 1.0]), TypeError, "integer tensor, got float32"),
    (lambda: tf.switch_case(tf.constant([0, 1]), [lambda: 1.0]), ValueError, "integer scalar"),
    (lambda: tf.switch_case(0, []), ValueError, "must not be empty"),
    (lambda: tf.switch_case(0, {0: lambda: 1.0, 2: lambda: 2.0}), ValueError, "branch keys"),
    (lambda: tf.switch_case(0, [1.0]), TypeError, "callables"),
    (lambda: tf.case([]), ValueError, "empty"),
    (lambda: tf.case([(True, lambda: 1.0)], default=1.0), TypeError, "default must be callable"),
])
def test_switch_case_and_case_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()
