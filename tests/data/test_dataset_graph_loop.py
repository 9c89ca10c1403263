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


def test_a_last_smaller_batch_runs_in_the_same_graph():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(5.0)).batch(2)  # batches of 2, 2 and 1

    @tf.function
    def total(ds):
        s = tf.constant(0.0, tf.float64)
        n = tf.constant(0)
        for x in ds:
            s += tf.reduce_sum(x * x)
            n += tf.shape(x)[0]
        return s, n

    for _ in range(2):
        s, n = total(ds)
        assert float(s) == 30.0 and int(n) == 5
    assert total.experimental_get_tracing_count() == 1
    s, n = total(tf.data.Dataset.from_tensor_slices(np.arange(7.0)).batch(3))
    assert float(s) == 91.0 and int(n) == 7


def test_a_training_epoch_with_a_partial_last_batch_matches_eager_steps():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(30, 3)), rng.normal(size=(30, 1))
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)  # 8, 8, 8, 6
    w1, w2 = tf.Variable(np.full((3, 1), 0.1)), tf.Variable(np.full((3, 1), 0.1))

    def step(w, xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((xb @ w - yb) ** 2)
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    @tf.function
    def epoch(ds):
        losses = tf.TensorArray(tf.float64, size=0, dynamic_size=True, element_shape=())
        i = 0
        for xb, yb in ds:
            losses = losses.write(i, step(w1, xb, yb))
            i += 1
        return losses.stack()

    want = [float(step(w2, xb, yb)) for xb, yb in ds]
    got = epoch(ds).numpy()
    assert len(got) == 4
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(w1.numpy(), w2.numpy(), rtol=1e-12)


def test_a_body_that_reads_the_batch_size_as_a_number_is_refused_with_advice():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(5.0)).batch(2)

    @tf.function
    def total(ds):
        s = tf.constant(0.0, tf.float64)
        for x in ds:
            s += tf.reduce_sum(tf.reshape(x, [x.shape[0], 1]))
        return s

    with pytest.raises(tf.errors.UnimplementedError, match="tf.shape"):
        total(ds)


def test_an_element_of_unknown_rank_is_refused():
    ds = tf.data.Dataset.from_generator(lambda: iter([np.ones(2)]),
                                        output_signature=tf.TensorSpec(None, tf.float64))

    @tf.function
    def total(ds):
        s = tf.constant(0.0, tf.float64)
        for x in ds:
            s += tf.reduce_sum(x)
        return s

    with pytest.raises(tf.errors.UnimplementedError, match="known rank"):
        total(ds)


def test_without_autograph_iteration_still_raises():
    ds = tf.data.Dataset.range(3)

    @tf.function(autograph=False)
    def total(ds):
        return sum(x for x in ds)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="AutoGraph"):
        total(ds)


def test_a_keras_epoch_with_a_partial_last_batch_is_one_graph_and_matches_eager():
    # Mean's and the cross-entropy's gradients, BatchNormalization and the metric's count take the
    # batch size at run time (Note [Sizes in traced rules]), so the 2-row last batch runs in the same graph.
    keras = tf.keras
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(50, 6)).astype(np.float32), rng.integers(0, 3, 50)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)

    def make():
        tf.keras.utils.set_random_seed(5)
        model = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.BatchNormalization(),
                                  keras.layers.Dense(3)])
        model(x[:1])
        return (model, keras.optimizers.SGD(0.1), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                keras.metrics.SparseCategoricalAccuracy())

    def step(parts, xb, yb):
        model, opt, loss_fn, acc = parts
        with tf.GradientTape() as tape:
            logits = model(xb, training=True)
            loss = loss_fn(yb, logits)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        acc.update_state(yb, logits)
        return loss

    graph_parts, eager_parts = make(), make()

    @tf.function
    def epoch(ds):
        total = tf.constant(0.0)
        for xb, yb in ds:
            total += step(graph_parts, xb, yb)
        return total

    for _ in range(2):
        got = float(epoch(ds))
        want = sum(float(step(eager_parts, xb, yb)) for xb, yb in ds)
        np.testing.assert_allclose(got, want, rtol=1e-5)
    assert epoch.experimental_get_tracing_count() == 1
    for a, b in zip(graph_parts[0].weights, eager_parts[0].weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-6)
    assert float(graph_parts[3].result()) == float(eager_parts[3].result())


def test_a_cnn_epoch_with_a_partial_last_batch_matches_eager():
    # Conv2D's input gradient, Flatten's reshape and its gradient infer the batch (-1) in such a trace
    keras = tf.keras
    rng = np.random.default_rng(6)
    x, y = rng.normal(size=(20, 10, 10, 1)), rng.integers(0, 3, 20)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)  # 8, 8, 4

    def make():
        tf.keras.utils.set_random_seed(7)
        model = keras.Sequential([keras.layers.Conv2D(4, 3, activation="relu", dtype="float64"),
                                  keras.layers.Conv2D(4, 3, padding="same", dtype="float64"),
                                  keras.layers.MaxPooling2D(2, dtype="float64"), keras.layers.Flatten(dtype="float64"),
                                  keras.layers.Dense(3, dtype="float64")])
        model(x[:1])
        return model, keras.optimizers.SGD(0.05)

    loss_fn = keras.losses.CategoricalCrossentropy(from_logits=True, dtype="float64")  # float32 by default

    def step(parts, xb, yb):
        model, opt = parts
        with tf.GradientTape() as tape:
            loss = loss_fn(tf.one_hot(yb, 3, dtype=tf.float64), model(xb, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    graph_parts, eager_parts = make(), make()

    @tf.function
    def epoch(ds):
        total = tf.constant(0.0, tf.float64)
        for xb, yb in ds:
            total += step(graph_parts, xb, yb)
        return total

    want = sum(float(step(eager_parts, xb, yb)) for xb, yb in ds)
    np.testing.assert_allclose(float(epoch(ds)), want, rtol=1e-12)
    for a, b in zip(graph_parts[0].weights, eager_parts[0].weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_a_tensor_array_without_element_shape_learns_it_from_the_body():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).batch(3)  # 3, 3, 3, 1

    @tf.function
    def sums(d):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        i = 0
        for x in d:
            ta = ta.write(i, tf.reduce_sum(x))
            i += 1
        return ta.stack()

    np.testing.assert_array_equal(sums(ds).numpy(), [3.0, 12.0, 21.0, 9.0])  # TF's result
    np.testing.assert_array_equal(sums(ds).numpy(), [3.0, 12.0, 21.0, 9.0])
    assert sums.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("element_shape", [None, []])
def test_a_dataset_loop_inside_a_traced_conditional(element_shape):
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).batch(3)

    @tf.function
    def f(flag):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=element_shape)
        if flag > 0:
            i = 0
            for x in ds:
                ta = ta.write(i, tf.reduce_sum(x))
                i += 1
        else:
            ta = ta.write(0, 0.0)
        return ta.stack()

    np.testing.assert_array_equal(f(tf.constant(1)).numpy(), [3.0, 12.0, 21.0, 9.0])  # TF's results
    np.testing.assert_array_equal(f(tf.constant(0)).numpy(), [0.0])
    np.testing.assert_array_equal(f(tf.constant(1)).numpy(), [3.0, 12.0, 21.0, 9.0])


def test_a_tensor_array_written_batch_shaped_elements_is_refused_with_advice():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32).reshape(5, 2)).batch(2)

    @tf.function
    def rows(d):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        i = 0
        for x in d:
            ta = ta.write(i, x)
            i += 1
        return ta.concat()

    with pytest.raises(tf.errors.UnimplementedError, match="follows the batch size.*drop_remainder=True"):
        rows(ds)


def test_two_arrays_one_of_them_shaped_and_a_write_under_a_traced_if():
    ds = tf.data.Dataset.from_tensor_slices(np.arange(8, dtype=np.float32).reshape(4, 2)).batch(2)

    @tf.function
    def both(d):
        a = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        b = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[2])
        i = 0
        for x in d:
            a = a.write(i, tf.reduce_sum(x))
            b = b.write(i, tf.reduce_sum(x, axis=0))
            i += 1
        return a.stack(), b.stack()

    a, b = both(ds)
    np.testing.assert_array_equal(a.numpy(), [6.0, 22.0])
    np.testing.assert_array_equal(b.numpy(), [[2.0, 4.0], [10.0, 12.0]])

    @tf.function
    def some(d):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        i = 0
        for x in d:
            if tf.reduce_sum(x) > 5:
                ta = ta.write(i, tf.reduce_sum(x))
                i += 1
        return ta.stack()

    with pytest.raises(ValueError, match="needs its element_shape"):
        some(ds)
