"""`for x in dataset` inside tf.function (Note [Dataset loops in graphs] in data/_graph_loop.py): one
trace, a While node that pulls elements through host calls, each call iterating the dataset anew."""
import numpy as np
import pytest

import tapegrad as tf


def test_each_call_iterates_the_dataset_again():
    ds = tf.data.Dataset.range(5).shuffle(5, seed=1)

    @tf.function
    def digits(ds):
        s = tf.constant(0, tf.int64)
        for x in ds:
            s = s * 10 + x
        return s

    got = [int(digits(ds)) for _ in range(4)]
    assert digits.experimental_get_tracing_count() == 1
    assert all(sorted(str(g).rjust(5, "0")) == list("01234") for g in got)
    assert len(set(got)) > 1  # reshuffled at every call, not the first trace's order replayed
    assert "While" in list(digits._concrete.values())[0].pretty_printed_graph()


def test_break_and_state_and_variables():
    x = np.arange(10.0, dtype=np.float32).reshape(5, 2)
    ds = tf.data.Dataset.from_tensor_slices((x, np.arange(5))).batch(2, drop_remainder=True)
    w = tf.Variable([1.0, 1.0])

    @tf.function
    def epoch(ds, limit):
        n = tf.constant(0)
        for xb, yb in ds:
            w.assign_add(tf.reduce_sum(xb, 0))
            n += tf.shape(xb)[0]
            if n >= limit:
                break
        return n

    assert int(epoch(ds, tf.constant(4))) == 4
    np.testing.assert_array_equal(w.numpy(), 1 + x[:4].sum(0))
    assert int(epoch(ds, tf.constant(100))) == 4  # two full batches; the fifth row is dropped
    np.testing.assert_array_equal(w.numpy(), 1 + 2 * x[:4].sum(0))
    assert epoch.experimental_get_tracing_count() == 1


def test_a_training_epoch_in_one_graph_matches_eager_steps():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(32, 3)).astype(np.float32), rng.normal(size=(32, 1)).astype(np.float32)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8, drop_remainder=True)

    def make():
        return tf.Variable(np.full((3, 1), 0.1, np.float32)), tf.Variable(np.zeros(1, np.float32))

    def step(w, b, xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((xb @ w + b - yb) ** 2)
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    w1, b1 = make()

    @tf.function
    def epoch(ds):
        total = tf.constant(0.0)
        for xb, yb in ds:
            total += step(w1, b1, xb, yb)
        return total

    w2, b2 = make()
    want = sum(float(step(w2, b2, xb, yb)) for xb, yb in ds)
    np.testing.assert_allclose(float(epoch(ds)), want, rtol=1e-6)
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-6)


def test_unknown_element_shapes_are_refused_with_advice():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(5.0)).batch(2)

    @tf.function
    def total(ds):
        s = tf.constant(0.0, tf.float64)
        for x in ds:
            s += tf.reduce_sum(x)
        return s

    with pytest.raises(tf.errors.UnimplementedError, match="drop_remainder=True"):
        total(ds)


def test_without_autograph_iteration_still_raises():
    ds = tf.data.Dataset.range(3)

    @tf.function(autograph=False)
    def total(ds):
        return sum(x for x in ds)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="AutoGraph"):
        total(ds)
