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


class _OneDense(keras.Model):
    """A subclassed model of one Dense unit, for the tests that override its steps or call."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x, training=None):
        return self.dense(x)


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
    # two batch shapes (16 and the last 6), and the first trace (which builds Adam's slots and the
    # metrics' variables) traced again as TF does: three traces of the train step, then replays
    assert traced._step_functions["train_step"].experimental_get_tracing_count() == 3
    assert traced._step_functions["test_step"].experimental_get_tracing_count() == 2
    for key in ["loss", "mae", "val_loss", "val_mae"]:
        np.testing.assert_allclose(ht.history[key], he.history[key], rtol=1e-5)
    for a, b in zip(traced.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_an_overridden_train_step_is_traced_and_run_eagerly_opts_out():
    calls = []

    class Counting(_OneDense):
        def train_step(self, data):
            calls.append(1)  # a Python side effect: runs while tracing only
            return super().train_step(data)

    X, y = _data(32)
    model = Counting()
    model.compile(loss="mse", optimizer="sgd")
    model.fit(X, y, batch_size=16, epochs=3, verbose=0)
    assert len(calls) == 2  # the first trace builds the optimizer and is traced again, as TF's Keras
    model.run_eagerly = True
    model.fit(X, y, batch_size=16, epochs=1, verbose=0)
    assert len(calls) == 4


def test_tensor_control_flow_in_call_names_run_eagerly_way_out():
    class Branchy(_OneDense):
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


def _bn_fit(run_eagerly):
    keras.utils.set_random_seed(5)
    model = keras.Sequential([keras.layers.Dense(8, activation="relu"), keras.layers.BatchNormalization(momentum=0.5),
                              keras.layers.Dropout(0.2), keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="adam", metrics=["mae"], run_eagerly=run_eagerly)
    X, y = _data()
    seen = []
    record = keras.callbacks.LambdaCallback()
    record.on_train_batch_end = lambda batch, logs: seen.append(model.layers[1].moving_mean.numpy().copy())
    history = model.fit(X, y, batch_size=16, epochs=2, validation_split=0.2, verbose=0, callbacks=[record])
    return model, history, seen


def test_batch_normalization_fit_traced_updates_moving_statistics_every_step():
    # BatchNormalization read the batch statistics with .numpy(), which a traced train_step refuses
    eager, he, seen_e = _bn_fit(True)
    traced, ht, seen_t = _bn_fit(False)
    assert len(seen_t) == 8 and all(not np.allclose(a, b) for a, b in zip(seen_t, seen_t[1:]))
    np.testing.assert_allclose(seen_t, seen_e, rtol=1e-5, atol=1e-6)
    for key in ["loss", "mae", "val_loss", "val_mae"]:
        np.testing.assert_allclose(ht.history[key], he.history[key], rtol=1e-5)
    for a, b in zip(traced.get_weights(), eager.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_stop_training_in_a_batch_callback_ends_the_epoch_there():
    class StopAfterTwo(keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 1:
                self.model.stop_training = True

    X, y = _data(64)
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd")
    history = model.fit(X, y, batch_size=16, epochs=3, verbose=0, callbacks=[StopAfterTwo()])
    assert int(model.optimizer.iterations.numpy()) == 2 and len(history.history["loss"]) == 1


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_sample_weight_reaches_the_loss_and_weighted_metrics_not_metrics(run_eagerly):
    X, y = _data(40)
    sw = np.random.default_rng(1).uniform(size=40).astype("float32")
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd", metrics=["mae"], weighted_metrics=["mae", "mse"],
                  run_eagerly=run_eagerly)
    logs = model.evaluate(X, y, sample_weight=sw, batch_size=40, verbose=0, return_dict=True)
    err = model.predict(X, verbose=0) - y
    assert set(logs) == {"loss", "mae", "weighted_mae", "mse"}
    np.testing.assert_allclose(logs["mae"], np.abs(err).mean(), rtol=1e-5)
    np.testing.assert_allclose(logs["weighted_mae"], (np.abs(err[:, 0]) * sw).sum() / sw.sum(), rtol=1e-5)
    np.testing.assert_allclose(logs["mse"], (err[:, 0] ** 2 * sw).sum() / sw.sum(), rtol=1e-5)
    np.testing.assert_allclose(logs["loss"], (err[:, 0] ** 2 * sw).mean(), rtol=1e-5)


def test_validation_sample_weights_from_validation_data_and_validation_split():
    X, y = _data(40)
    sw = np.zeros(40, "float32")
    sw[:10] = sw[30:35] = 1.0
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer=keras.optimizers.SGD(0.0))
    want = model.evaluate(X, y, sample_weight=sw, verbose=0)
    history = model.fit(X, y, epochs=1, verbose=0, validation_data=(X, y, sw))
    np.testing.assert_allclose(history.history["val_loss"], [want], rtol=1e-6)
    history = model.fit(X, y, sample_weight=sw, epochs=1, verbose=0, validation_split=0.25)
    want = model.evaluate(X[30:], y[30:], sample_weight=sw[30:], verbose=0)
    np.testing.assert_allclose(history.history["val_loss"], [want], rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_class_weight_weights_each_sample_by_its_class(run_eagerly):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 4)).astype("float32")
    labels = rng.integers(0, 3, size=30)
    class_weight = {0: 1.0, 1: 4.0, 2: 0.5}
    results = []
    for y, cw, sw in [(labels, class_weight, None), (np.eye(3, dtype="float32")[labels], class_weight, None),
                      (labels, None, np.array([class_weight[c] for c in labels], "float32"))]:
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.layers.Dense(3, activation="softmax")])
        loss = "sparse_categorical_crossentropy" if y.ndim == 1 else "categorical_crossentropy"
        model.compile(loss=loss, optimizer="sgd", run_eagerly=run_eagerly)
        history = model.fit(X, y, batch_size=8, epochs=2, shuffle=False, verbose=0, class_weight=cw,
                            sample_weight=sw)
        results.append((history.history["loss"], model.get_weights()))
    for other in results[1:]:
        np.testing.assert_allclose(other[0], results[0][0], rtol=1e-5)
        for a, b in zip(other[1], results[0][1]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="keys from 0"):
        model.fit(X, labels, epochs=1, verbose=0, class_weight={1: 2.0, 2: 1.0})


def test_learning_rate_read_in_a_traced_train_step_follows_changes():
    class LoggingLr(_OneDense):
        def train_step(self, data):
            logs = super().train_step(data)
            logs["lr"] = self.optimizer.learning_rate
            return logs

    class Halve(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            self.model.optimizer.learning_rate = self.model.optimizer.learning_rate / 2

    X, y = _data(32)
    model = LoggingLr()
    model.compile(loss="mse", optimizer=keras.optimizers.SGD(0.1))
    history = model.fit(X, y, epochs=3, verbose=0, callbacks=[Halve()])
    np.testing.assert_allclose(history.history["lr"], [0.1, 0.05, 0.025], rtol=1e-6)


def test_train_and_test_on_batch():
    X, y = _data(32)
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd", metrics=["mae"])
    before = model.test_on_batch(X, y)
    assert isinstance(before, list) and len(before) == 2
    pred = model.predict(X, verbose=0)
    np.testing.assert_allclose(before, [np.mean((pred - y) ** 2), np.mean(np.abs(pred - y))], rtol=1e-5)
    assert model.test_on_batch(X, y) == before  # no training
    first = model.train_on_batch(X, y, return_dict=True)
    assert first["loss"] == pytest.approx(before[0], rel=1e-6)  # the loss before the update
    assert model.test_on_batch(X, y)[0] < before[0]
    # without reset the metrics average over the batches seen
    model.reset_metrics()
    a = model.test_on_batch(X[:16], y[:16], reset_metrics=False)
    b = model.test_on_batch(X[16:], y[16:], reset_metrics=False)
    assert b[0] == pytest.approx(model.test_on_batch(X, y)[0], rel=1e-5) and a[0] != b[0]
    loss_only = keras.Sequential([keras.layers.Dense(1)])
    loss_only.compile(loss="mse", optimizer="sgd")
    assert isinstance(loss_only.test_on_batch(X, y), float)


def test_class_weight_errors():
    model = keras.Sequential([keras.layers.Dense(2)])
    model.compile(loss="mse", optimizer="sgd")
    X = np.ones((4, 3), "float32")
    with pytest.raises(ValueError, match="no weight for class 2"):
        model.fit(X, np.array([0, 1, 2, 1], "float32"), verbose=0, class_weight={0: 1.0, 1: 2.0})
    with pytest.raises(ValueError, match="3\\+ dimensional targets"):
        model.fit(X, np.ones((4, 2, 1), "float32"), verbose=0, class_weight={0: 1.0})


def test_train_step_takes_the_batch_as_keras_gives_it():
    # the "customize what happens in fit" pattern: train_step(self, data), data = (x, y) or (x, y, sample_weight)
    seen = []

    class Custom(_OneDense):
        def train_step(self, data):
            seen.append(len(data))
            x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(data)
            with tf.GradientTape() as tape:
                loss = self.compute_loss(x, y, self(x, training=True), sample_weight)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    X, y = _data(32)
    model = Custom()
    model.compile(loss="mse", optimizer="sgd")
    first = model.fit(X, y, batch_size=16, epochs=2, verbose=0).history["loss"]
    model.fit(X, y, sample_weight=np.ones(32), batch_size=16, epochs=1, verbose=0)
    assert seen == [2, 2, 3] and first[1] < first[0]  # (the first trace twice: it builds the optimizer)
    assert keras.utils.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert keras.utils.unpack_x_y_sample_weight((1,)) == (1, None, None)
