"""tf.train.ExponentialMovingAverage without TensorFlow: TF's update rule (1 - decay in float32, the
num_updates cap), shadow names, variables_to_restore, errors, and use inside tf.function
(tests/oracle/test_tf_oracle_ema_gradients.py compares the values with TF's bit for bit)."""
import numpy as np
import pytest

import tapegrad as tf

EMA = tf.train.ExponentialMovingAverage


def test_apply_creates_shadows_then_moves_them():
    v = tf.Variable([1.0, 2.0], name="first")
    ema = EMA(0.9)
    assert ema.apply([v]) is None
    shadow = ema.average(v)
    assert shadow.name == "first/ExponentialMovingAverage:0" and not shadow.trainable
    assert ema.average_name(v) == "first/ExponentialMovingAverage"
    np.testing.assert_array_equal(shadow.numpy(), [1.0, 2.0])
    v.assign([3.0, 4.0])
    ema.apply([v])
    one_minus = np.float32(1) - np.float32(0.9)
    np.testing.assert_array_equal(shadow.numpy(), np.float32([1.0, 2.0]) - (np.float32([1, 2]) - [3, 4]) * one_minus)


def test_float64_variables_see_the_float32_decay():
    h = tf.Variable(0.0, dtype=tf.float64, name="h")
    ema = EMA(0.9)
    ema.apply([h])
    h.assign(1.0)
    ema.apply([h])
    assert ema.average(h).numpy() == np.float64(np.float32(1) - np.float32(0.9))


def test_num_updates_caps_the_decay():
    w = tf.Variable(0.0, dtype=tf.float64, name="w")
    step = tf.Variable(3, dtype=tf.int64)
    ema = EMA(0.9, num_updates=step)
    ema.apply([w])
    w.assign(1.0)
    ema.apply([w])
    expected = np.float32(1) - np.minimum(np.float32(0.9), np.float32(4) / np.float32(13))
    assert ema.average(w).numpy() == np.float64(expected)
    assert step.numpy() == 3  # apply does not advance the step


def test_a_taken_shadow_name_is_numbered_as_tf():
    a, b = tf.Variable(1.0, name="twin"), tf.Variable(2.0, name="twin")
    first, second = EMA(0.5), EMA(0.5)
    first.apply([a])
    second.apply([b])
    assert first.average_name(a) == "twin/ExponentialMovingAverage"
    assert second.average(b).name == "twin/ExponentialMovingAverage_1:0"
    assert second.average_name(b) == "twin/ExponentialMovingAverage_1"
    assert second.average_name(a) == "twin/ExponentialMovingAverage"  # a has no shadow in `second`


def test_repeated_variables_update_twice_and_shadows_are_made_once():
    v = tf.Variable(1.0, name="v")
    ema = EMA(0.5)
    ema.apply([v])
    shadow = ema.average(v)
    v.assign(3.0)
    ema.apply([v, v])
    assert ema.average(v) is shadow and shadow.numpy() == 2.5


def test_names_and_variables_to_restore():
    x, y = tf.Variable(1.0, name="x"), tf.Variable(1.0, name="a/b")
    ema = EMA(0.99, name="avg")
    assert ema.name == "avg" and ema.average_name(y) == "a/b/avg"
    assert ema.variables_to_restore([x]) == {"x/avg": x}
    ema.apply([y])
    assert ema.variables_to_restore()["a/b/avg"] is y
    assert ema.average(x) is None
    assert EMA(0.5).variables_to_restore()["a/b/ExponentialMovingAverage"] is y


def test_refusals():
    ema = EMA(0.5)
    with pytest.raises(TypeError, match="must be half, float, or double: u:0"):
        ema.apply([tf.Variable(1, name="u")])
    with pytest.raises(TypeError, match="does not support non-Variable tensors"):
        ema.apply([tf.constant(1.0)])
    assert ema.apply(None) is None


def test_a_decay_variable_is_read_at_each_apply():
    d = tf.Variable(0.5)
    v = tf.Variable(0.0, name="q")
    ema = EMA(d)
    ema.apply([v])
    v.assign(1.0)
    d.assign(0.75)
    ema.apply([v])
    assert ema.average(v).numpy() == np.float32(0.25)


def test_inside_tf_function_the_graph_updates_the_shadow_each_call():
    v = tf.Variable([1.0, 2.0], name="v")
    ema = EMA(0.5, num_updates=5)  # decay min(0.5, 6 / 15) = 0.4
    ema.apply([v])  # the shadow made eagerly, from the value before the function runs (as TF)

    @tf.function
    def step():
        v.assign_add([1.0, 1.0])
        ema.apply([v])
        return ema.average(v).read_value()

    np.testing.assert_allclose(step().numpy(), [1.6, 2.6], rtol=1e-6)
    np.testing.assert_allclose(step().numpy(), [2.44, 3.44], rtol=1e-6)


def test_a_shadow_made_by_a_trace_is_an_eager_variable():
    v = tf.Variable(2.0, name="v")
    ema = EMA(0.5)

    @tf.function
    def step():
        ema.apply([v])
        return ema.average(v).read_value()

    assert step().numpy() == 2.0 and step().numpy() == 2.0
    v.assign(4.0)
    assert step().numpy() == 3.0
