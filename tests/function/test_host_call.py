"""Graph nodes that call back into Python and return tensors (Note [Host calls with results] in
cpp/graph/trace.h): how tapegrad.distribute's collectives live in tf.function graphs."""
import concurrent.futures

import numpy as np
import pytest

import tapegrad as tf
from tapegrad.distribute._host import collective

calls = []


_other_thread = concurrent.futures.ThreadPoolExecutor(1)


def doubled(xs):
    """Stands for a collective: reads the values on another thread (no trace there: as the MPI
    thread does) and returns new tensors, running no tensor op on the traced thread."""
    calls.append(len(xs))
    return _other_thread.submit(lambda: [tf.constant(np.asarray(x) * 2) for x in xs]).result()


def test_runs_at_every_call_and_later_ops_read_its_results():
    calls.clear()

    @tf.function
    def f(x):
        y = collective(doubled, [x + 1.0], "Double")[0]
        return y * 3.0

    for v in (1.0, 2.0, 5.0):
        assert float(f(tf.constant(v))) == (v + 1) * 6
    assert f.experimental_get_tracing_count() == 1 and len(calls) == 3
    text = list(f._concrete.values())[0].pretty_printed_graph()
    assert "HostCall Double" in text and "Output 0" in text


def test_a_result_of_another_shape_than_traced_raises():
    state = {"rows": 2}

    def varying(xs):
        return [tf.ones([state["rows"], 3])]

    @tf.function
    def f(x):
        return collective(varying, [x], "Varying")[0] + 1.0

    assert f(tf.constant(1.0)).shape == (2, 3)
    state["rows"] = 4
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Varying:0.*float32\[2, 3\]"):
        f(tf.constant(1.0))


def test_dry_traces_record_without_calling():
    calls.clear()

    @tf.function
    def f(x):
        return collective(doubled, [x], "Double")[0]

    cf = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    assert not calls and "HostCall Double" in cf.pretty_printed_graph()
    assert float(f(tf.constant(2.0))) == 4.0 and calls == [1]

    @tf.function
    def in_a_loop(n):  # a loop body is traced dry: the node runs once per iteration
        x = tf.constant(1.0)
        for _ in tf.range(n):
            x = collective(doubled, [x], "Double")[0]
        return x

    calls.clear()
    assert float(in_a_loop(tf.constant(3))) == 8.0 and len(calls) == 3
    assert float(in_a_loop(tf.constant(5))) == 32.0 and len(calls) == 8
    with pytest.raises(tf.errors.UnimplementedError, match="allgather|shape"):
        tf.function(lambda x: collective(doubled, [x], "Gather", shape_preserving=False)).get_concrete_function(
            tf.TensorSpec([2], tf.float32))


def test_a_tape_outside_the_function_cannot_lose_the_gradient():
    @tf.function
    def f(x):
        return collective(doubled, [x * 1.0], "Double")[0]

    x = tf.Variable(3.0)
    assert float(f(x)) == 6.0
    with tf.GradientTape() as tape:
        with pytest.raises(tf.errors.UnimplementedError, match="gradient cannot flow"):
            f(x)


def test_fewer_results_than_traced_raise():
    state = {"n": 2}

    def some(xs):
        return [tf.ones([2])] * state["n"]

    @tf.function
    def f(x):
        a, b = collective(some, [x], "Some", shape_preserving=False)
        return a + b

    assert f(tf.constant(1.0)).shape == (2,)
    state["n"] = 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="Some:1: the host call returned 1 tensors"):
        f(tf.constant(1.0))


def test_empty_with_view_checks_its_arguments():
    from tapegrad import _core
    with pytest.raises(tf.errors.InvalidArgumentError, match="invalid dtype code 14"):
        _core._empty_with_view([2], 14)
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative dimension -1"):
        _core._empty_with_view([2, -1], 0)
