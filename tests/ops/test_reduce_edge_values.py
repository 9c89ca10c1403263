"""Reductions at edge values: results and gradients stay finite and exact."""
import numpy as np

import tapegrad as tf


def test_logsumexp_of_huge_inputs_and_its_gradient_are_finite():
    x = tf.constant([1e30, 1e30, -1e30], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_logsumexp(x)
    np.testing.assert_allclose(float(y), 1e30)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 0.5, 0.0])


def test_logsumexp_of_all_minus_inf_is_minus_inf():
    assert float(tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf]))) == -np.inf


def test_prod_gradient_with_zeros_is_the_product_of_the_others():
    x = tf.constant([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x, axis=1)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0]])


def test_any_all_of_empty_axes_are_the_identities():
    empty = tf.zeros((2, 0), dtype=tf.bool)
    assert tf.reduce_any(empty, axis=1).numpy().tolist() == [False, False]
    assert tf.reduce_all(empty, axis=1).numpy().tolist() == [True, True]
