"""enable_check_numerics: the first non-finite value or gradient raises, naming op and line."""
import numpy as np
import pytest

import tapegrad as tf


@pytest.fixture
def numerics():
    tf.debugging.enable_check_numerics()
    yield
    tf.debugging.disable_check_numerics()


def test_forward_nan_names_op_and_line(numerics):
    x = tf.constant([-1.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tf.sqrt(x)  # the line the message must name
    msg = str(e.value)
    assert "Sqrt" in msg and "test_check_numerics.py:" in msg


def test_backward_inf_names_op_and_forward_line(numerics):
    x = tf.Variable([0.0, 1.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x ** 0.5)  # forward is finite, d/dx at 0 is inf
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        tape.gradient(y, x)
    msg = str(e.value)
    assert "the gradient of Pow" in msg and "test_check_numerics.py:26" in msg


def test_off_by_default():
    assert not tf._core._check_numerics_enabled()
    assert np.isnan(tf.sqrt(tf.constant(-1.0)).numpy())


def test_check_numerics_function():
    t = tf.constant([1.0, 2.0])
    assert tf.debugging.check_numerics(t, "ok") is t
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad values : Tensor had NaN"):
        tf.debugging.check_numerics(tf.constant([np.nan]), "bad values")


def test_check_numerics_checks_at_every_call_of_a_traced_function():
    f = tf.function(lambda x: tf.debugging.check_numerics(x * 2, "bad x"))
    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad x : Tensor had NaN values"):
        f(tf.constant([1.0, np.nan]))
    assert f.experimental_get_tracing_count() == 1
