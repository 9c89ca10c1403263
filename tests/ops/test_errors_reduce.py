"""Bad inputs to the reduction ops raise InvalidArgumentError naming the op; edge values stay finite."""
import numpy as np
import pytest

import tapegrad as tf

E = tf.errors.InvalidArgumentError
X = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
B = tf.constant([[True, False], [False, False]])


@pytest.mark.parametrize("fn,op", [(tf.reduce_sum, "Sum"), (tf.reduce_mean, "Mean"), (tf.reduce_max, "Max"),
                                   (tf.reduce_min, "Min"), (tf.reduce_prod, "Prod")])
def test_numeric_reductions_reject_bad_axis_and_bool(fn, op):
    for axis in (2, -3, [0, 5]):
        with pytest.raises(E, match=f"{op}: axis .* out of range .*float32\\(2, 3\\)"):
            fn(X, axis=axis)
    with pytest.raises(E, match=f"{op}: expected a numeric tensor, got bool\\(2, 2\\)"):
        fn(B)


@pytest.mark.parametrize("fn,op", [(tf.reduce_any, "Any"), (tf.reduce_all, "All")])
def test_bool_reductions_reject_numbers_and_bad_axis(fn, op):
    with pytest.raises(E, match=f"{op}: expected a bool tensor, got float32\\(2, 3\\)"):
        fn(X)
    with pytest.raises(E, match=f"{op}: axis 2 is out of range"):
        fn(B, axis=2)


@pytest.mark.parametrize("fn,op", [(tf.argmax, "ArgMax"), (tf.argmin, "ArgMin")])
def test_arg_reductions_reject_bad_input(fn, op):
    with pytest.raises(E, match=f"{op}: axis 2 is out of range for input float32\\(2, 3\\)"):
        fn(X, axis=2)
    with pytest.raises(E, match=f"{op}: axis 0 is out of range for input float32\\(\\)"):
        fn(tf.constant(1.0))
    with pytest.raises(E, match=f"{op}: reduction axis 1 is empty in input float32\\(2, 0\\)"):
        fn(tf.zeros((2, 0)), axis=1)
    with pytest.raises(E, match=f"{op}: expected a numeric tensor, got bool"):
        fn(B)
    with pytest.raises(E, match=f"{op}: output_type must be int32 or int64"):
        fn(X, output_type=tf.float32)


def test_cumsum_rejects_bad_input():
    with pytest.raises(E, match="Cumsum: axis 2 is out of range for input float32\\(2, 3\\)"):
        tf.cumsum(X, axis=2)
    with pytest.raises(E, match="Cumsum: axis 0 is out of range for input float32\\(\\)"):
        tf.cumsum(tf.constant(1.0))
    with pytest.raises(E, match="Cumsum: expected a numeric tensor, got bool"):
        tf.cumsum(B)


def test_prod_others_rejects_scalars():
    with pytest.raises(E, match="ProdOthers: expected a tensor of rank >= 1, got float32\\(\\)"):
        tf._core.op("ProdOthers")(tf.constant(2.0))


@pytest.mark.parametrize("fn", [tf.reduce_logsumexp, tf.math.reduce_variance, tf.math.reduce_std])
def test_float_only_composites_reject_integers(fn):
    with pytest.raises(TypeError, match=f"{fn.__name__}: expected a float tensor, got int32"):
        fn(tf.constant([1, 2, 3]))


# Edge values: results and gradients stay finite and exact.

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
