"""fit/evaluate run train_step/test_step as a tf.function (as Keras does) unless run_eagerly."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from book import book_model


def _data(n=70, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 10)).astype("float32")
    return X, (X @ rng.normal(size=(10, 1)) + 0.1).astype("float32")


def _fit(run_eagerly, dropout=False, **compile_kw):
    keras.utils.set_random_seed(3)
    layers = [keras.layers.Dense(16, activation="relu")] + ([keras.layers.Dropout(0.3)] if dropout else []) + \
        [keras.layers.Dense(1)]
    model = keras.Sequential(layers)
    model.compile(loss="mse", optimizer=keras.optimizers.Adam(0.01), metrics=["mae"], run_eagerly=run_eagerly,
                  **compile_kw)
    X, y = _data()
    history = model.fit(X, y, batch_size=16, epochs=3, validation_data=_data(20, 1), verbose=0)
    return model, history


@pytest.mark.parametrize("dropout", [False, True])
def test_traced_fit_matches_eager_fit(dropout):
    eager, he = _fit(True, dropout)
    traced, ht = _fit(False, dropout)
    assert eager._step_functions == {}
    # two batch shapes (16 and the last 6): two traces of the train step, then replays
    assert traced._step_functions["train_step"].experimental_get_tracing_count() == 2
    assert traced._step_functions["test_step"].experimental_get_tracing_count() == 2
    for key in ["loss", "mae", "val_loss", "val_mae"]:
        np.testing.assert_allclose(ht.history[key], he.history[key], rtol=1e-5)
    for a, b in zip(traced.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_an_overridden_train_step_is_traced_and_run_eagerly_opts_out():
    calls = []

    class Counting(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x, training=None):
            return self.dense(x)

        def train_step(self, x, y, sample_weight=None):
            calls.append(1)  # a Python side effect: runs while tracing only
            return super().train_step(x, y, sample_weight)

    X, y = _data(32)
    model = Counting()
    model.compile(loss="mse", optimizer="sgd")
    model.fit(X, y, batch_size=16, epochs=3, verbose=0)
    assert len(calls) == 1
    model.run_eagerly = True
    model.fit(X, y, batch_size=16, epochs=1, verbose=0)
    assert len(calls) == 3


def test_tensor_control_flow_in_call_names_run_eagerly_way_out():
    class Branchy(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x, training=None):
            y = self.dense(x)
            return y if tf.reduce_sum(y) > 0 else -y

    X, y = _data(16)
    model = Branchy()
    model.compile(loss="mse", optimizer="sgd")
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        model.fit(X, y, epochs=1, verbose=0)
    model.compile(loss="mse", optimizer="sgd", run_eagerly=True)
    model.fit(X, y, epochs=1, verbose=0)


def test_book_model_fit_and_evaluate_traced():
    keras.utils.set_random_seed(42)
    model = book_model()
    model.compile(loss=keras.losses.mean_squared_error, optimizer=keras.optimizers.Nadam(lr=0.01))
    X, y = _data(64)
    model.fit(X, y, batch_size=32, epochs=2, verbose=0)
    loss = model.evaluate(X, y, verbose=0)
    pred = model.predict(X, verbose=0)
    np.testing.assert_allclose(loss, np.mean((pred - y) ** 2) + sum(float(l) for l in model.losses), rtol=1e-5)
