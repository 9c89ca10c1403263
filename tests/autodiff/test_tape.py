"""GradientTape behaviour, one TensorFlow rule per test."""
import numpy as np
import pytest

import tapegrad as tf

E = tf.errors.InvalidArgumentError


def test_variables_are_watched_automatically():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = w * w
    assert float(tape.gradient(y, w)) == 4.0
    assert tape.watched_variables() == (w,) or list(tape.watched_variables())[0] is w


def test_constants_need_watch():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


def test_watch_accessed_variables_false():
    w = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = w * w
    assert tape.gradient(y, w) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = w * w
    assert float(tape.gradient(y, w)) == 4.0


def test_untrainable_variable_not_watched():
    w = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        y = w * w
    assert tape.gradient(y, w) is None


def test_nested_sources_keep_structure():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = a * b * c
    g = tape.gradient(y, {"a": a, "rest": [b, (c,)]})
    assert set(g) == {"a", "rest"}
    assert float(g["a"]) == 6.0 and float(g["rest"][0]) == 3.0 and float(g["rest"][1][0]) == 2.0
    assert isinstance(g["rest"], list) and isinstance(g["rest"][1], tuple)


def test_output_gradients_weight_the_target():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=tf.constant([10.0, 100.0]))
    np.testing.assert_allclose(g.numpy(), [20.0, 400.0])


def test_unconnected_gradients():
    x, z = tf.Variable(1.0), tf.Variable(5.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.0
    assert tape.gradient(y, z) is None
    g = tape.gradient(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(g) == 0.0 and g.dtype == tf.float32


def test_gradient_of_vector_is_gradient_of_sum():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_integer_sources_give_none():
    i = tf.constant(3)
    with tf.GradientTape() as tape:
        tape.watch(i)
        y = i * i
    assert tape.gradient(y, i) is None


def test_second_gradient_on_non_persistent_tape_raises():
    w = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = w * w
    tape.gradient(y, w)
    with pytest.raises(RuntimeError):
        tape.gradient(y, w)


def test_persistent_tape_allows_many_gradients():
    w = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        y = w * w
        z = y * w
    assert float(tape.gradient(y, w)) == 6.0
    assert float(tape.gradient(z, w)) == 27.0


def test_stop_recording():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        with tape.stop_recording():
            y = x * x
        z = y * x
    assert float(tape.gradient(z, x)) == 4.0  # y is a constant to the tape


def test_stop_recording_outside_context_raises():
    tape = tf.GradientTape()
    with pytest.raises(RuntimeError):
        tape.stop_recording()


def test_reset_forgets_recorded_ops():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
        tape.reset()
        z = x * 3.0
    assert tape.gradient(y, x) is None or float(tape.gradient(z, x)) == 3.0


def test_stop_gradient():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.stop_gradient(x * x) + x
    assert float(tape.gradient(y, x)) == 1.0


def test_nested_tapes_give_second_and_third_derivatives():
    x = tf.Variable(1.5)
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = x * x * x
            dy = t1.gradient(y, x)
        d2y = t2.gradient(dy, x)
    d3y = t3.gradient(d2y, x)
    assert float(dy) == pytest.approx(3 * 1.5 ** 2)
    assert float(d2y) == pytest.approx(6 * 1.5)
    assert float(d3y) == pytest.approx(6.0)


def test_ops_on_unwatched_inputs_record_nothing():
    a, b = tf.constant(1.0), tf.constant(2.0)
    with tf.GradientTape() as tape:
        for _ in range(10):
            a * b
    assert tape._num_entries == 0


def test_non_persistent_tape_frees_saved_tensors():
    x = tf.Variable(np.ones(1000, np.float32))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.exp(x) * x)
    assert tape.nbytes > 0
    tape.gradient(y, x)
    assert tape.nbytes == 0


def test_variable_value_saved_at_use_time():
    w = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = w * w
    w.assign(100.0)  # the tape keeps the value it read
    assert float(tape.gradient(y, w)) == 4.0


def test_gradient_accumulates_over_uses():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x + x * 2.0 + x
    assert float(tape.gradient(y, x)) == 9.0


def test_gradient_wrt_target_itself():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * 1.0
    assert float(tape.gradient(x, x)) == 1.0


def test_unwatched_constant_gets_none_through_recorded_ops():
    # TF: only what the tape tracks is differentiable; x is watched, c is not.
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    gx, gc = tape.gradient(y, [x, c])
    assert float(gx) == 3.0 and gc is None
    gc = tape.gradient(y, c, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert float(gc) == 0.0
    assert tape.jacobian(y, [x, c])[1] is None


def test_unwatched_variable_gets_none_without_watch_accessed_variables():
    x, v = tf.constant(2.0), tf.Variable(4.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = x * v
    gx, gv = tape.gradient(y, [x, v])
    assert float(gx) == 4.0 and gv is None


def test_non_trainable_variable_gets_none_through_recorded_ops():
    v, frozen = tf.Variable(4.0), tf.Variable(5.0, trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        y = v * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 5.0 and gf is None
    assert [w is v for w in tape.watched_variables()] == [True]
    with tf.GradientTape() as tape:
        tape.watch(frozen)
        y = v * frozen
    assert float(tape.gradient(y, frozen)) == 4.0


def test_recorded_intermediate_is_a_source():
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * c
        z = y * y
    assert float(tape.gradient(z, y)) == 12.0


def test_unwatched_source_that_is_the_target_keeps_its_seed():
    x, c = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * c
    assert float(tape.gradient(c, c)) == 1.0
    assert [float(g) for g in tape.gradient([c, x], [c, x])] == [1.0, 1.0]


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


def test_a_refused_op_leaves_the_tape_usable():
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(E):
            tf.nn.sparse_softmax_cross_entropy_with_logits([0, 9], x)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits([0, 2], x))
    assert tape.gradient(loss, x).shape == (2, 3)
