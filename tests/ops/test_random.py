"""tf.random and dropout from the stateful random ops: statistics, seeds, and new draws per traced call."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_uniform_and_normal_statistics(dtype):
    u = tf.random.uniform([200000], dtype=dtype).numpy()
    assert u.dtype == dtype.as_numpy_dtype and u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.005 and abs(u.var() - 1 / 12) < 0.002
    z = tf.random.normal([200001], mean=2.0, stddev=3.0, dtype=dtype).numpy()
    assert abs(z.mean() - 2.0) < 0.03 and abs(z.std() - 3.0) < 0.03
    assert abs(np.mean(((z - 2) / 3) ** 4) - 3.0) < 0.1  # normal kurtosis
    assert abs(np.corrcoef(z[:-1:2], z[1::2])[0, 1]) < 0.01  # the pair halves are independent


def test_uniform_ranges_and_integers():
    u = tf.random.uniform([1000], 2.0, 3.0).numpy()
    assert u.min() >= 2.0 and u.max() < 3.0
    k = tf.random.uniform([5000], 3, 7, dtype=tf.int64).numpy()
    assert k.dtype == np.int64 and set(np.unique(k)) == {3, 4, 5, 6}


def test_set_seed_reproduces_the_sequence():
    tf.random.set_seed(7)
    a = [tf.random.normal([4]).numpy(), tf.random.uniform([3], seed=5).numpy(), tf.random.uniform([3], seed=5).numpy()]
    tf.random.set_seed(7)
    b = [tf.random.normal([4]).numpy(), tf.random.uniform([3], seed=5).numpy(), tf.random.uniform([3], seed=5).numpy()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[1], a[2])  # an op seed is a stream: each call draws new values
    tf.random.set_seed(8)
    assert not np.array_equal(tf.random.normal([4]).numpy(), a[0])


def test_traced_random_draws_new_values_per_call_and_reproduces_after_set_seed():
    f = tf.function(lambda: tf.random.uniform([8]))
    tf.random.set_seed(3)
    first = [f().numpy() for _ in range(3)]
    assert not np.array_equal(first[1], first[2])
    tf.random.set_seed(3)
    again = [f().numpy() for _ in range(3)]
    for x, y in zip(first, again):
        np.testing.assert_array_equal(x, y)
    assert f.experimental_get_tracing_count() == 1


def test_traced_dropout_draws_a_new_mask_per_call():
    x = tf.ones([64, 32])
    layer = keras.layers.Dropout(0.5)
    f = tf.function(lambda x: layer(x, training=True))
    g = tf.function(lambda x: tf.nn.dropout(x, 0.5))
    for fn in (f, g):
        masks = [fn(x).numpy() != 0 for _ in range(3)]
        assert not np.array_equal(masks[0], masks[1]) and not np.array_equal(masks[1], masks[2])
        assert all(abs(m.mean() - 0.5) < 0.06 for m in masks)
        assert fn.experimental_get_tracing_count() == 1


def test_traced_dropout_in_training_step_reproduces_eager_after_set_seed():
    rng = np.random.default_rng(0)
    X, y = tf.constant(rng.normal(size=(8, 5))), tf.constant(rng.normal(size=(8, 1)))

    def run(traced):
        keras.utils.set_random_seed(11)
        model = keras.models.Sequential([keras.layers.Dense(6, activation="relu", dtype="float64"),
                                         keras.layers.Dropout(0.3),
                                         keras.layers.Dense(1, dtype="float64")])
        opt = keras.optimizers.SGD(0.05)

        def step(X, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(X, training=True) - y))
            opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
            return loss
        step = tf.function(step) if traced else step
        return [float(step(X, y)) for _ in range(4)]

    np.testing.assert_allclose(run(True), run(False), rtol=1e-12)


def test_graph_passes_keep_every_random_draw():
    """Two identical random ops are two draws (no CSE), and an unused one still advances the stream."""
    f = tf.function(lambda: (tf.random.uniform([4]), tf.random.uniform([4])))
    a, b = f()
    assert not np.array_equal(a.numpy(), b.numpy())
    assert f.get_concrete_function().graph.ops.count("RandomUniform") == 2

    def draws(unused):
        tf.random.set_seed(2)
        g = tf.function(lambda: (tf.random.normal([2]) if unused else None, tf.random.normal([3]))[1])
        return [g().numpy() for _ in range(2)]

    eager = []
    tf.random.set_seed(2)
    for _ in range(2):
        tf.random.normal([2])
        eager.append(tf.random.normal([3]).numpy())
    np.testing.assert_array_equal(draws(True), eager)


def test_get_concrete_function_draws_nothing():
    # A dry trace runs the random ops to trace them but puts their streams back, as TF's
    # symbolic trace draws nothing: the calls after it see the sequence they would have seen.
    f = tf.function(lambda x: x + tf.random.uniform([4]) + tf.random.normal([4], seed=7))
    x32, x2 = tf.constant(0.0), tf.constant([[0.0], [1.0]])
    tf.random.set_seed(5)
    want = [f(x32).numpy(), f(x32).numpy()]
    tf.random.set_seed(5)
    f.get_concrete_function(tf.constant([1.0, 2.0, 3.0, 4.0]))
    got = [f(x32).numpy()]
    f.get_concrete_function(x2)
    got.append(f(x32).numpy())
    np.testing.assert_array_equal(got, want)


def test_scalar_shapes_and_parameters_draw_scalars():
    # A 0-d draw from NumPy is a Python int: poisson([], 2.0) raised AttributeError.
    assert tf.random.poisson([], 2.0).shape == ()
    assert tf.random.poisson([], 2.0, dtype=tf.int64).dtype == tf.int64
    assert tf.random.stateless_poisson([], [1, 2], 3.0).shape == ()
    assert tf.random.stateless_binomial([], [1, 2], 5.0, 0.5).shape == ()
