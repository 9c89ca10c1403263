"""tf.sort / argsort / top_k / in_top_k, is_nan / is_inf / is_finite, random.categorical and
random.shuffle: what the op and oracle tables do not cover (errors, traced graphs, distributions)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad.errors import InvalidArgumentError


def test_sort_is_stable_and_puts_nan_last():
    x = tf.constant([2.0, np.nan, 1.0, 2.0, -np.inf, np.nan])
    np.testing.assert_array_equal(tf.argsort(x).numpy(), [4, 2, 0, 3, 1, 5])
    np.testing.assert_array_equal(tf.argsort(x, direction="DESCENDING").numpy(), [1, 5, 0, 3, 2, 4])
    np.testing.assert_array_equal(tf.sort(x).numpy(), np.sort(x.numpy()))


def test_integer_extremes_sort_without_overflow():
    info = np.iinfo(np.int64)
    x = tf.constant([0, info.max, info.min, -1], tf.int64)
    np.testing.assert_array_equal(tf.sort(x).numpy(), [info.min, -1, 0, info.max])
    np.testing.assert_array_equal(tf.sort(x, direction="DESCENDING").numpy(), [info.max, 0, -1, info.min])


@pytest.mark.parametrize("call, cls, words", [
    (lambda: tf.sort(tf.constant(1.0)), InvalidArgumentError, ["sort", "values", "1-D"]),
    (lambda: tf.sort(tf.constant([True])), InvalidArgumentError, ["sort", "values", "bool"]),
    (lambda: tf.sort(tf.constant([1.0, 2.0]), axis=1), InvalidArgumentError, ["sort", "axis 1"]),
    (lambda: tf.argsort(tf.constant([1.0]), direction="up"), ValueError, ["argsort", "direction"]),
    (lambda: tf.math.top_k(tf.zeros([2, 3]), 4), InvalidArgumentError, ["top_k", "at least k columns"]),
    (lambda: tf.math.top_k(tf.zeros([2, 3]), -1), InvalidArgumentError, ["top_k", "k >= 0"]),
    (lambda: tf.math.top_k(tf.zeros([3]), 1.5), TypeError, ["top_k", "k"]),
    (lambda: tf.math.in_top_k(tf.constant([0]), tf.zeros([1, 2], tf.float64), 1), InvalidArgumentError,
     ["in_top_k", "predictions", "float64"]),
    (lambda: tf.math.is_nan(tf.constant([1, 2])), InvalidArgumentError, ["is_nan", "x", "int32"]),
    (lambda: tf.random.categorical(tf.zeros([3]), 2), InvalidArgumentError, ["categorical", "matrix"]),
    (lambda: tf.random.categorical(tf.zeros([1, 3]), -1), InvalidArgumentError, ["categorical", "num_samples"]),
    (lambda: tf.random.categorical(tf.zeros([1, 3]), 2, dtype=tf.float32), ValueError, ["categorical", "dtype"]),
    (lambda: tf.random.categorical(tf.zeros([2, 0]), 2), InvalidArgumentError, ["categorical", "num_classes"]),
])
def test_errors_name_the_function_and_argument(call, cls, words):
    with pytest.raises(cls) as e:
        call()
    for w in words:
        assert w in str(e.value)


def test_sorted_values_differentiate_to_second_order():
    x = tf.Variable([3.0, 1.0, 2.0])
    w = tf.constant([1.0, 10.0, 100.0])
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.sort(x) ** 2 * w)
        g = inner.gradient(y, x)
    np.testing.assert_allclose(g.numpy(), [2 * 3 * 100, 2 * 1 * 1, 2 * 2 * 10])
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), [200.0, 2.0, 20.0])


def test_top_k_gradient_reaches_only_the_chosen_entries():
    x = tf.Variable([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
    with tf.GradientTape() as tape:
        values, indices = tf.math.top_k(x, k=2)
        y = tf.reduce_sum(values * tf.constant([1.0, 10.0]))
    np.testing.assert_array_equal(indices.numpy(), [[1, 2], [2, 0]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0.0, 1.0, 10.0], [10.0, 0.0, 1.0]])


def test_traced_functions_serve_new_values_and_lengths():
    @tf.function(reduce_retracing=True)
    def f(x, k):
        values, _ = tf.math.top_k(x, k)
        return tf.sort(x, direction="DESCENDING"), values, tf.math.is_finite(x)

    for n in (4, 6):
        x = np.random.default_rng(n).normal(size=n).astype(np.float32)
        s, v, fin = f(tf.constant(x), 2)
        np.testing.assert_array_equal(s.numpy(), np.sort(x)[::-1])
        np.testing.assert_array_equal(v.numpy(), np.sort(x)[::-1][:2])
        assert fin.numpy().all()


def test_in_top_k_counts_ties_for_the_target():
    p = tf.constant([[0.5, 0.5, 0.1], [0.2, 0.9, 0.3], [np.nan, 1.0, 2.0]])
    got = tf.math.in_top_k(tf.constant([1, 2, 0]), p, 1).numpy()
    np.testing.assert_array_equal(got, [True, False, False])
    np.testing.assert_array_equal(tf.nn.in_top_k(tf.constant([5, 2, 2]), p, 2).numpy(), [False, True, False])
    # (a NaN anywhere in a row makes it False, as TF)


def test_categorical_follows_the_probabilities():
    tf.random.set_seed(7)
    p = np.array([0.1, 0.6, 0.3])
    draws = tf.random.categorical(tf.constant(np.log(p)[None, :], tf.float32), 30000).numpy()
    assert draws.dtype == np.int64 and draws.shape == (1, 30000)
    np.testing.assert_allclose(np.bincount(draws[0], minlength=3) / 30000, p, atol=0.015)


def test_categorical_never_draws_forbidden_classes_and_marks_empty_rows():
    logits = tf.constant([[0.0, -np.inf, np.nan], [-np.inf, -np.inf, -np.inf]])
    draws = tf.random.categorical(logits, 200, dtype=tf.int32).numpy()
    assert (draws[0] == 0).all()
    assert (draws[1] == 3).all()  # no class to draw: TF's kernel gives num_classes


def test_categorical_is_reproducible_after_set_seed_and_traces():
    tf.random.set_seed(3)
    a = tf.random.categorical(tf.zeros([2, 5]), 8, seed=1).numpy()
    tf.random.set_seed(3)
    b = tf.random.categorical(tf.zeros([2, 5]), 8, seed=1).numpy()
    np.testing.assert_array_equal(a, b)
    f = tf.function(lambda logits: tf.random.categorical(logits, 4))
    assert f(tf.zeros([3, 2])).shape == (3, 4)
    assert f(tf.zeros([3, 2])).numpy().max() <= 1


def test_shuffle_permutes_rows_and_passes_gradients():
    x = tf.Variable(np.arange(12.0).reshape(6, 2))
    with tf.GradientTape() as tape:
        y = tf.random.shuffle(x)
        loss = tf.reduce_sum(y * y)
    rows = sorted(map(tuple, y.numpy().tolist()))
    assert rows == sorted(map(tuple, x.numpy().tolist()))
    np.testing.assert_array_equal(tape.gradient(loss, x).numpy(), 2 * x.numpy())
    assert float(tf.random.shuffle(tf.constant(3.0))) == 3.0
    assert tf.random.shuffle(tf.zeros([0, 2])).shape == (0, 2)


def test_float_classes():
    x = tf.constant([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-45, 3.0])
    np.testing.assert_array_equal(tf.math.is_nan(x).numpy(), np.isnan(x.numpy()))
    np.testing.assert_array_equal(tf.math.is_inf(x).numpy(), np.isinf(x.numpy()))
    np.testing.assert_array_equal(tf.math.is_finite(x).numpy(), np.isfinite(x.numpy()))


def test_categorical_with_huge_logits_still_follows_their_differences():
    tf.random.set_seed(5)
    draws = tf.random.categorical(tf.constant([[1e7, 1e7 + 1.0]]), 40000).numpy()[0]
    # p(1) = e / (1 + e) = 0.731: the noise must not be rounded away next to 1e7
    np.testing.assert_allclose(np.mean(draws == 1), 0.731, atol=0.015)
