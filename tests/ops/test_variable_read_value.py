"""Variable.read_value() / value(): a recorded read (tapes and tf.function graphs see it), not a raw copy.

Expected values are TensorFlow 2.21's for the same code.
"""
import numpy as np

import tapegrad as tf


def test_tape_differentiates_through_read_value_and_value():
    w = tf.Variable([1.0, 2.0])
    for read in (w.read_value, w.value):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(read() * 3.0)
        np.testing.assert_array_equal(tape.gradient(y, w).numpy(), [3.0, 3.0])


def test_read_value_is_a_snapshot():
    w = tf.Variable([1.0, 2.0])
    r = w.read_value()
    w.assign([5.0, 6.0])
    np.testing.assert_array_equal(r.numpy(), [1.0, 2.0])


def test_traced_read_value_sees_each_calls_assignment():
    v = tf.Variable(tf.zeros((2,)), trainable=False)
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def step(e):
        v.assign(e)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(w * v.read_value())
        return y, tape.gradient(y, w), v.value()

    got = [[t.numpy().tolist() for t in step(tf.constant([i + 1.0, 10.0 * (i + 1)]))] for i in range(3)]
    assert got == [[21.0, [1.0, 10.0], [1.0, 10.0]], [42.0, [2.0, 20.0], [2.0, 20.0]],
                   [63.0, [3.0, 30.0], [3.0, 30.0]]]
