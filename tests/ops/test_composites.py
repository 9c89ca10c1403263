"""The ops composed in Python (tapegrad/_ops/math/aggregates.py, _ops/nn/statistics_losses.py, _ops/linalg/diag_cross.py) where the
oracle and op tables do not reach: inside tf.function, values that set shapes, the unsupported
arguments, and errors that name the function and the argument."""
import numpy as np
import pytest

import tapegrad as tf


def test_traced_composites_match_eager():
    x = tf.constant(np.linspace(-3.0, 3.0, 24).reshape(1, 2, 3, 4).astype(np.float32))
    calls = {
        "cumulative_logsumexp": lambda t: tf.math.cumulative_logsumexp(t, axis=3, reverse=True),
        "lrn": lambda t: tf.nn.lrn(t, depth_radius=1),
        "space_to_depth": lambda t: tf.nn.space_to_depth(tf.reshape(t, [1, 2, 4, 3]), 2),
        "normalize": lambda t: tf.linalg.normalize(t, axis=-1)[0],
        "xlog1py": lambda t: tf.math.xlog1py(t, tf.abs(t)),
        "zero_fraction": lambda t: tf.math.zero_fraction(tf.nn.relu(t)),
        "count_nonzero": lambda t: tf.math.count_nonzero(tf.nn.relu(t), axis=1),
        "is_non_decreasing": lambda t: tf.math.is_non_decreasing(t),
        "segment_mean": lambda t: tf.math.segment_mean(tf.reshape(t, [6, 4]), tf.constant([0, 0, 1, 3, 3, 3])),
    }
    for name, fn in calls.items():
        np.testing.assert_allclose(tf.function(fn)(x).numpy(), fn(x).numpy(), rtol=1e-6, err_msg=name)


def test_segment_sum_with_traced_ids_counts_at_every_call():
    @tf.function
    def f(data, ids):
        return tf.math.segment_sum(data, ids)

    assert f(tf.constant([1.0, 2.0]), tf.constant([0, 1])).numpy().tolist() == [1.0, 2.0]
    assert f(tf.constant([1.0, 2.0]), tf.constant([0, 3])).numpy().tolist() == [1.0, 0.0, 0.0, 2.0]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids are not increasing"):
        f(tf.constant([1.0, 2.0]), tf.constant([1, 0]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment ids must not be negative"):
        f(tf.constant([1.0, 2.0]), tf.constant([-1, 0]))


def test_segment_sum_gradient_through_function():
    ids = tf.constant([0, 0, 2])
    f = tf.function(lambda d: tf.math.segment_sum(d, ids))
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    with tf.GradientTape() as tape:
        tape.watch(d)
        y = f(d)
    assert y.shape == (3, 2)
    np.testing.assert_array_equal(tape.gradient(y, d).numpy(), np.ones((3, 2)))


def test_invert_permutation_traced():
    f = tf.function(tf.math.invert_permutation)
    np.testing.assert_array_equal(f(tf.constant([2, 0, 1])).numpy(), [1, 2, 0])


def test_cumulative_logsumexp_wide_range_is_finite_with_softmax_gradient():
    x = tf.constant([-1000.0, 1000.0, 999.0], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.math.cumulative_logsumexp(x)
        last = y[2]
    np.testing.assert_allclose(y.numpy(), [-1000.0, 1000.0, 1000.0 + np.log1p(np.exp(-1.0))])
    g = tape.gradient(last, x).numpy()
    np.testing.assert_allclose(g, [0.0, 1 / (1 + np.exp(-1.0)), 1 / (1 + np.exp(1.0))])


def test_sufficient_statistics_without_shift():
    x = np.arange(12.0).reshape(3, 4)
    count, m_ss, v_ss, shift = tf.nn.sufficient_statistics(tf.constant(x), [0])
    assert shift is None and count.dtype == tf.float64 and float(count) == 3.0
    np.testing.assert_allclose(m_ss.numpy(), x.sum(0))
    np.testing.assert_allclose(v_ss.numpy(), (x * x).sum(0))
    mean, var = tf.nn.normalize_moments(count, m_ss, v_ss, None)
    np.testing.assert_allclose(mean.numpy(), x.mean(0))
    np.testing.assert_allclose(var.numpy(), x.var(0))


def test_forward_mode_through_a_composite():
    x = tf.constant([0.5, 1.0, 2.0], tf.float64)
    v = tf.constant([1.0, 0.0, 0.0], tf.float64)
    with tf.autodiff.ForwardAccumulator(x, v) as acc:
        y = tf.math.cumulative_logsumexp(x)
    e = np.exp([0.5, 1.0, 2.0])
    np.testing.assert_allclose(acc.jvp(y).numpy(), e[0] / np.cumsum(e))


@pytest.mark.parametrize("call", [
    lambda: tf.linalg.diag([1.0, 2.0], k=(0, 1)),
    lambda: tf.linalg.diag([1.0, 2.0], k=1, num_rows=4),
    lambda: tf.linalg.set_diag(tf.zeros((2, 2)), [1.0], k=1),
])
def test_unsupported_diagonals_raise_unimplemented(call):
    with pytest.raises(tf.errors.UnimplementedError):
        call()


@pytest.mark.parametrize("call, fn, arg", [
    (lambda: tf.math.cumulative_logsumexp([1.0, 2.0], axis="a"), "cumulative_logsumexp", "axis"),
    (lambda: tf.math.count_nonzero([1, 0], dtype="nope"), "count_nonzero", "dtype"),
    (lambda: tf.nn.crelu([1.0], axis=[0, 1]), "crelu", "axis"),
    (lambda: tf.math.segment_sum([1.0], [object()]), "segment_sum", "segment_ids"),
    (lambda: tf.linalg.diag([1.0, 2.0], num_rows="x"), "diag", "num_rows"),
    (lambda: tf.nn.weighted_moments([1.0, 2.0], "x", [1.0, 1.0]), "weighted_moments", "axes"),
])
def test_argument_errors_name_function_and_argument(call, fn, arg):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert fn in str(info.value) and arg in str(info.value)


def test_value_errors_name_the_function():
    with pytest.raises(tf.errors.InvalidArgumentError, match="segment_sum.*not increasing"):
        tf.math.segment_sum([1.0, 2.0], [1, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="invert_permutation"):
        tf.math.invert_permutation([0, 0])
    with pytest.raises(ValueError, match="log_poisson_loss"):
        tf.nn.log_poisson_loss([1.0, 2.0], [1.0])
    with pytest.raises(tf.errors.FailedPreconditionError, match="cross"):
        tf.linalg.cross([1.0, 2.0], [3.0, 4.0])
