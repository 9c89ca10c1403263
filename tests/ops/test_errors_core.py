"""Error paths of the tape, of unknown ops and of Python values converted for an op's dtype (the op rows'
bad calls are in tests/ops/test_op_errors.py)."""
import numpy as np
import pytest

import tapegrad as tf

E = tf.errors.InvalidArgumentError


def test_unknown_op():
    with pytest.raises(E, match="NoSuchOp"):
        tf._core.op("NoSuchOp")


def test_gradient_of_non_tensor_source():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    with pytest.raises(E, match="source"):
        tape.gradient(y, [x, 3.0])


def test_gradient_target_none():
    with tf.GradientTape() as tape:
        pass
    with pytest.raises(E, match="target"):
        tape.gradient(None, [])


def test_watch_non_tensor():
    with tf.GradientTape() as tape:
        with pytest.raises(E, match="watch"):
            tape.watch("x")


def test_bad_unconnected_gradients():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    with pytest.raises(E, match="unconnected"):
        tape.gradient(y, x, unconnected_gradients="sometimes")


def test_output_gradients_count():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    with pytest.raises(E, match="output_gradients"):
        tape.gradient([y], x, output_gradients=[tf.constant(1.0), tf.constant(2.0)])


def test_tape_entered_twice():
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(RuntimeError):
            tape.__enter__()


@pytest.mark.parametrize("call", [
    lambda t: t - 2.0, lambda t: 2.0 + t, lambda t: t * [1.5, 2.0], lambda t: t / 2.5, lambda t: t ** 0.5,
    lambda t: t < 1.5, lambda t: t // 1.5, lambda t: tf.multiply(t, 1.5), lambda t: tf.maximum(x=t, y=1.5),
    lambda t: tf.concat([t, [1.5]], 0), lambda t: tf.Variable(t).assign([1.5, 2.5]),
    lambda t: tf.constant(True) & 1.5])
def test_a_python_float_for_an_integer_tensor_is_a_type_error(call):
    # TF: "Cannot convert 2.0 to EagerTensor of dtype int32" (TypeError), integral floats included
    with pytest.raises(TypeError, match="Cannot convert"):
        call(tf.constant([1, 2]))


@pytest.mark.parametrize("call", [lambda t: t + 1.5, lambda t: tf.add(t, 2.0), lambda t: tf.add_n([t, 1.5])])
def test_but_add_passes_it_to_the_kernel(call):
    # TF's add and add_n convert the float as float32 and the kernel refuses the mixed dtypes
    with pytest.raises(E):
        call(tf.constant([1, 2]))


def test_a_dtype_hint_is_only_a_preference():
    assert tf.convert_to_tensor(1.5, dtype_hint=tf.int32).dtype == tf.float32


def test_where_converts_python_values_to_the_other_operands_dtype():
    t = tf.constant([1, 2])
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.where([True, False], t, 1.5)
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.where([True, False], 1.5, t)
    assert tf.where([True, False], t, 3).numpy().tolist() == [1, 3]
    assert tf.where([True, False], tf.constant([1.0, 2.0], tf.float64), [7, 8]).dtype == tf.float64
