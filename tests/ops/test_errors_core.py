"""Error paths of the core ops and the tape: each is fed bad input and must name the op."""
import numpy as np
import pytest

import tapegrad as tf

E = tf.errors.InvalidArgumentError


def test_incompatible_broadcast_names_op_and_shapes():
    with pytest.raises(E, match=r"Add.*\(2, 3\).*\(4,\)"):
        tf.constant(np.ones((2, 3), np.float32)) + tf.constant(np.ones(4, np.float32))


def test_float_op_on_int_tensor():
    with pytest.raises(E, match="Exp.*int32"):
        tf.exp(tf.constant([1, 2]))


def test_logical_op_needs_bool():
    with pytest.raises(E, match="LogicalAnd"):
        tf.logical_and(tf.constant([1.0]), tf.constant([0.0]))


def test_where_condition_must_be_bool():
    with pytest.raises(E, match="Select"):
        tf._core.op("Select")(tf.constant([1.0]), tf.constant([1.0]), tf.constant([2.0]))


def test_reshape_to_wrong_size():
    with pytest.raises(E, match=r"Reshape.*\(2, 3\).*\(4,\)"):
        tf.reshape(tf.zeros([2, 3]), [4])
    with pytest.raises(E, match="Reshape.*-1"):
        tf.reshape(tf.zeros([2, 3]), [-1, -1])


def test_reduce_axis_out_of_range():
    with pytest.raises(E, match="Sum.*axis 2"):
        tf.reduce_sum(tf.zeros([2, 3]), axis=2)


def test_transpose_bad_perm():
    with pytest.raises(E, match="Transpose"):
        tf.transpose(tf.zeros([2, 3]), perm=[0, 0])


def test_matmul_shape_mismatch():
    with pytest.raises(E, match=r"MatMul.*inner dimensions.*\(2, 3\).*\(2, 3\)"):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3]))
    with pytest.raises(E, match="MatMul.*rank"):
        tf.matmul(tf.zeros([3]), tf.zeros([3]))


def test_broadcast_to_bad_shape():
    with pytest.raises(E, match="BroadcastTo"):
        tf.broadcast_to(tf.zeros([3]), [2, 4])


def test_negative_dimension():
    with pytest.raises(E):
        tf.zeros([-1, 2])


def test_unconvertible_values():
    with pytest.raises((E, TypeError)):
        tf.constant(1.0) + "a"
    with pytest.raises(E):
        tf.constant([1, 2], dtype=tf.int32) + np.array([1.5, 2.5])


def test_unknown_op():
    with pytest.raises(E, match="NoSuchOp"):
        tf._core.op("NoSuchOp")


def test_wrong_input_count():
    with pytest.raises(E, match="Exp.*expected 1 inputs"):
        tf._core.op("Exp")(tf.constant(1.0), tf.constant(2.0))


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


def test_shapes_too_large_raise_instead_of_wrapping():
    with pytest.raises(E, match="too many elements"):
        tf.zeros([2 ** 40, 2 ** 40])
    with pytest.raises(E):
        tf.reshape(tf.zeros([4]), [2 ** 40, 2 ** 40, -1])
    with pytest.raises(E):
        tf.tile(tf.zeros([2, 2]), [2 ** 62, 2 ** 62])
    with pytest.raises(tf.errors.ResourceExhaustedError, match=r"Fill: OOM .*shape\[1125899906842624\] and type float"):
        tf.zeros([2 ** 50])
    with pytest.raises(tf.errors.ResourceExhaustedError):
        tf.zeros([2 ** 57])


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


def test_broadcast_like_refuses_shapes_that_do_not_broadcast():
    with pytest.raises(E, match="BroadcastLike.*cannot broadcast"):
        tf._core.op("BroadcastLike")(tf.zeros([3]), tf.zeros([2, 4]))
