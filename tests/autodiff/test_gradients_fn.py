"""tf.gradients without TensorFlow: eagerly TF's RuntimeError; inside a tf.function, the gradients of
the trace's tape (recording_for_gradients) on the first call and on later calls of the graph, with
grad_ys, unconnected_gradients, variables, intermediates, control flow and second order.

Until tapegrad._function.function opens recording_for_gradients around a trace's body, the
``recording`` fixture wraps the body the same way (Function._traced_function)."""
import inspect

import numpy as np
import pytest

import tapegrad as tf
from tapegrad._autodiff import gradients as grads_module
from tapegrad._function import function as function_module


@pytest.fixture
def recording(monkeypatch):
    if "recording_for_gradients" in inspect.getsource(function_module):
        return
    original = function_module.Function._traced_function

    def traced_function(self):
        body = original(self)

        def run(*args, **kwargs):
            with grads_module.recording_for_gradients(self.python_function, args, kwargs):
                return body(*args, **kwargs)
        return run

    monkeypatch.setattr(function_module.Function, "_traced_function", traced_function)


def _values(out):
    return [None if g is None else g.numpy() for g in out]


def test_eagerly_it_is_tfs_runtime_error():
    with pytest.raises(RuntimeError, match="tf.gradients is not supported when eager execution is enabled. "
                                           "Use tf.GradientTape instead."):
        tf.gradients(tf.constant(1.0), tf.constant(1.0))


def test_a_single_y_and_x_on_every_call(recording):
    f = tf.function(lambda x: tf.gradients(x * x * x, x))
    assert _values(f(tf.constant(2.0))) == [12.0]
    assert _values(f(tf.constant(3.0))) == [27.0]  # the graph, not the trace
    assert _values(f(tf.constant(1.0))) == [3.0]


def test_ys_are_summed_weighted_by_grad_ys(recording):
    f = tf.function(lambda x: tf.gradients([x * x, 2.0 * x], [x], grad_ys=[tf.constant(2.0), None]))
    assert _values(f(tf.constant(3.0))) == [14.0]
    assert _values(f(tf.constant(1.0))) == [6.0]


def test_variables_intermediates_and_unconnected(recording):
    w = tf.Variable([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        h = x * 2.0
        y = tf.reduce_sum(w * h) + h * h
        return (tf.gradients(y, [w, h, x, tf.constant(1.0)]),
                tf.gradients(y, [tf.constant([1.0, 2.0])], unconnected_gradients="zero"))

    connected, zeros = f(tf.constant(1.0))
    np.testing.assert_array_equal(connected[0].numpy(), [2.0, 2.0, 2.0])
    assert connected[1].numpy() == 10.0 and connected[2].numpy() == 20.0 and connected[3] is None
    np.testing.assert_array_equal(zeros[0].numpy(), [0.0, 0.0])
    connected, _ = f(tf.constant(2.0))
    np.testing.assert_array_equal(connected[0].numpy(), [4.0, 4.0, 4.0])
    assert connected[2].numpy() == 6.0 * 2 + 8.0 * 2


def test_integer_and_python_values_get_none(recording):
    f = tf.function(lambda x: tf.gradients([tf.cast(x, tf.int32), 1.0], [x, 2.0]))
    assert f(tf.constant(3.0)) == [None, None]
    assert tf.function(lambda x: tf.gradients(x, []))(tf.constant(1.0)) == []


def test_second_order_and_a_while_loop(recording):
    second = tf.function(lambda x: tf.gradients(tf.gradients(x * x * x, x)[0], x))
    assert _values(second(tf.constant(3.0))) == [18.0]
    assert _values(second(tf.constant(1.0))) == [6.0]

    @tf.function
    def loop(x):
        _, y = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, x])
        return tf.gradients(y, x)

    assert _values(loop(tf.constant(3.0))) == [108.0]  # d x^4 / dx
    assert _values(loop(tf.constant(1.0))) == [4.0]


def test_argument_errors(recording):
    def call(**kwargs):
        return tf.function(lambda x: tf.gradients(x * x, x, **kwargs))(tf.constant(1.0))

    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients: 'foo'"):
        call(unconnected_gradients="foo")
    with pytest.raises(ValueError, match="Length mismatch. Passed 2 grad_ys for 1 ys"):
        call(grad_ys=[1.0, 2.0])
    with pytest.raises(TypeError, match="grad_ys\\[0\\] has dtype int32"):
        call(grad_ys=tf.constant(1))
    with pytest.raises(ValueError, match="grad_ys\\[0\\] has shape"):
        call(grad_ys=tf.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="no_such_argument"):
        call(no_such_argument=1)
    assert _values(call(gate_gradients=True, aggregation_method=0)) == [2.0]


def _helper(y, x):  # names no `gradients` the caller's code can see
    return tf.gradients(y, x)


def test_a_call_the_trace_cannot_see_is_unimplemented(recording):
    f = tf.function(lambda x: _helper(x * x, x))
    with pytest.raises(tf.errors.UnimplementedError, match="whose own code names `gradients`"):
        f(tf.constant(1.0))


def test_mentions_gradients():
    assert grads_module.mentions_gradients(lambda x: tf.gradients(x, x))
    assert grads_module.mentions_gradients(lambda x: (lambda: tf.gradients(x, x))())
    assert not grads_module.mentions_gradients(lambda x: x)


@pytest.mark.skipif("recording_for_gradients" in inspect.getsource(function_module),
                    reason="tf.function records its traces for tf.gradients")
def test_without_the_trace_recording_it_is_unimplemented():
    with pytest.raises(tf.errors.UnimplementedError, match="tf.gradients: "):
        tf.function(lambda x: tf.gradients(x * x, x))(tf.constant(1.0))
