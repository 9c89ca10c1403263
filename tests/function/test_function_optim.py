"""Optimizer steps inside tf.function: the Apply* ops replay in the graph with the iteration counter."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from book import book_model, book_step
from tapegrad.datasets import diabetes

OPTIMIZERS = {
    "sgd": lambda: keras.optimizers.SGD(0.05),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "adam": lambda: keras.optimizers.Adam(0.01),
    "adam_amsgrad": lambda: keras.optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1),
    "nadam": lambda: keras.optimizers.Nadam(0.01),
    "rmsprop": lambda: keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda: keras.optimizers.Adagrad(0.1),
    "sgd_schedule": lambda: keras.optimizers.SGD(keras.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)),
    "sgd_clipnorm": lambda: keras.optimizers.SGD(0.1, clipnorm=0.5),
    "sgd_global_clipnorm": lambda: keras.optimizers.SGD(0.1, global_clipnorm=0.5),
}


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    X = tf.constant(rng.normal(size=(16, 4)))
    y = tf.constant(rng.normal(size=(16, 1)))
    return X, y, rng.normal(size=(4, 1)), np.zeros(1)


def _step_fn(opt, w, b):
    def step(X, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(X, w) + b - y))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss
    return step


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_traced_optimizer_step_matches_eager(name):
    X, y, w0, b0 = _problem()
    runs = []
    for traced in (False, True):
        opt, w, b = OPTIMIZERS[name](), tf.Variable(w0), tf.Variable(b0)
        step = _step_fn(opt, w, b)
        step = tf.function(step) if traced else step
        before = len(opt.variables)
        losses = [float(step(X, y)) for _ in range(5)]
        runs.append((losses, w.numpy(), b.numpy(), int(opt.iterations)))
        if traced:  # a first trace that builds the optimizer's slots is traced again, as TF's
            assert step.experimental_get_tracing_count() == (2 if len(opt.variables) > before else 1)
    (le, we, be, ie), (lt, wt, bt, it) = runs
    np.testing.assert_allclose(lt, le, rtol=1e-12)
    np.testing.assert_allclose(wt, we, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(bt, be, rtol=1e-12, atol=1e-15)
    assert ie == it == 5


def test_graph_holds_the_update_ops_and_the_counter():
    X, y, w0, b0 = _problem()
    opt, w, b = keras.optimizers.Nadam(0.01), tf.Variable(w0), tf.Variable(b0)
    step = tf.function(_step_fn(opt, w, b))
    ops = step.get_concrete_function(X, y).graph.ops
    assert ops.count("ResourceApplyNadam") == 2
    assert "AssignVariable" in ops  # iterations += 1


def test_eager_and_traced_steps_interleave():
    """State lives in Variables: eager and traced steps continue each other's schedule."""
    X, y, w0, b0 = _problem()
    ref_opt, rw, rb = keras.optimizers.Adam(0.01), tf.Variable(w0), tf.Variable(b0)
    ref = _step_fn(ref_opt, rw, rb)
    opt, w, b = keras.optimizers.Adam(0.01), tf.Variable(w0), tf.Variable(b0)
    eager = _step_fn(opt, w, b)
    traced = tf.function(eager)
    for k in range(6):
        ref(X, y)
        (traced if k % 2 else eager)(X, y)
    np.testing.assert_allclose(w.numpy(), rw.numpy(), rtol=1e-12)
    assert int(opt.iterations) == 6


def test_learning_rate_change_is_seen_by_the_graph():
    X, y, w0, b0 = _problem()
    opt, w, b = keras.optimizers.SGD(0.1), tf.Variable(w0), tf.Variable(b0)
    step = tf.function(_step_fn(opt, w, b))
    step(X, y)
    opt.learning_rate = 0.0
    before = w.numpy()
    step(X, y)
    np.testing.assert_array_equal(w.numpy(), before)
    assert step.experimental_get_tracing_count() == 1


def test_get_concrete_function_does_not_update():
    X, y, w0, b0 = _problem()
    opt, w, b = keras.optimizers.Adam(0.01), tf.Variable(w0), tf.Variable(b0)
    opt.build([w, b])
    step = tf.function(_step_fn(opt, w, b))
    step.get_concrete_function(tf.TensorSpec([16, 4], tf.float64), tf.TensorSpec([16, 1], tf.float64))
    np.testing.assert_array_equal(w.numpy(), w0)
    assert int(opt.iterations) == 0
    assert np.all(opt.slots(w)[0].numpy() == 0)


def test_traced_book_training_step_matches_eager():
    (X_train, y_train), _, _ = diabetes.load_data()
    rng = np.random.default_rng(1)
    batches = [rng.integers(len(X_train), size=32) for _ in range(5)]
    results = []
    for traced in (False, True):
        keras.utils.set_random_seed(42)
        model, optimizer = book_model(), keras.optimizers.Nadam(lr=0.01)
        step = book_step(model, optimizer)
        step = tf.function(step) if traced else step
        losses = [float(step(X_train[i].astype(np.float32), y_train[i].astype(np.float32))) for i in batches]
        results.append((losses, [v.numpy() for v in model.variables]))
        if traced:  # the first trace builds Nadam's slots: traced again, as TF's
            assert step.experimental_get_tracing_count() == 2
    (le, ve), (lt, vt) = results
    np.testing.assert_allclose(lt, le, rtol=1e-5)
    for a, b in zip(vt, ve):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_update_ops_print_in_text_and_dot():
    X, y, w0, b0 = _problem()
    opt, w, b = keras.optimizers.SGD(0.01, momentum=0.9), tf.Variable(w0), tf.Variable(b0)
    step = tf.function(_step_fn(opt, w, b))
    step(X, y)
    graph = step.get_concrete_function(X, y).graph
    assert "ResourceApplyKerasMomentum(" in graph.to_text() and "use_nesterov=false" in graph.to_text()
    assert "ResourceApplyKerasMomentum" in graph.to_dot()


def test_traced_step_inside_traced_loop():
    """A Function calling the training-step Function replays the updates of the inner graph."""
    X, y, w0, b0 = _problem()
    ref_opt, rw, rb = keras.optimizers.Nadam(0.01), tf.Variable(w0), tf.Variable(b0)
    ref = _step_fn(ref_opt, rw, rb)
    opt, w, b = keras.optimizers.Nadam(0.01), tf.Variable(w0), tf.Variable(b0)
    inner = tf.function(_step_fn(opt, w, b))
    inner(X, y)  # traced and run once on its own
    ref(X, y)
    outer = tf.function(lambda X, y: [inner(X, y), inner(X, y)][1])
    for _ in range(2):
        outer(X, y)
        ref(X, y)
        ref(X, y)
    np.testing.assert_allclose(w.numpy(), rw.numpy(), rtol=1e-12)
    assert int(opt.iterations) == int(ref_opt.iterations) == 5
