"""keras models: Sequential and subclassed Model, weights I/O, summary, compile/fit/evaluate/predict."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from book import book_model
from tapegrad.datasets import diabetes


def data(n=100, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8)).astype("float32")
    return X, (X @ rng.normal(size=(8, 1)) + 0.1).astype("float32")


def test_variables_and_trainable_variables():
    model = keras.Sequential([keras.layers.Dense(4), keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    model(np.ones((2, 3), "float32"))
    assert len(model.variables) == 8 and len(model.trainable_variables) == 6
    model.layers[0].trainable = False
    assert len(model.trainable_variables) == 4
    model.trainable = False
    assert model.trainable_variables == []


def test_subclassed_model_tracks_layers_and_training():
    class Net(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = keras.layers.Dense(5, activation="relu", kernel_regularizer="l2")
            self.drop = keras.layers.Dropout(0.5)
            self.out = keras.layers.Dense(1)

        def call(self, inputs, training=None):
            return self.out(self.drop(self.hidden(inputs)))

    net = Net()
    x = np.ones((4, 3), "float32")
    np.testing.assert_allclose(net(x).numpy(), net(x).numpy())
    assert len(net.trainable_variables) == 4 and len(net.losses) == 1
    assert [l.name for l in net.layers][:1] == [net.hidden.name]


def test_get_set_weights_and_save_load_roundtrip(tmp_path):
    X, _ = data()
    model = book_model()
    model(X)
    path = tmp_path / "model.weights.npz"
    model.save_weights(path)
    with np.load(path) as f:  # the documented format: readable with NumPy alone
        assert str(f["__format__"]) == "tapegrad-weights-v1"
        assert list(f["__paths__"])[0].endswith("/kernel") and f["w000000"].shape == (8, 30)
    other = book_model()
    other(X)
    assert not np.allclose(other.predict(X, verbose=0), model.predict(X, verbose=0))
    other.load_weights(path)
    np.testing.assert_array_equal(other.predict(X, verbose=0), model.predict(X, verbose=0))
    third = book_model()
    third(X)
    third.set_weights(model.get_weights())
    np.testing.assert_array_equal(third.predict(X, verbose=0), model.predict(X, verbose=0))
    small = keras.Sequential([keras.layers.Dense(3)])
    small(X)
    with pytest.raises(ValueError, match="holds 4 weights"):
        small.load_weights(path)
    with pytest.raises(ValueError, match="shape"):
        small.set_weights([np.zeros((2, 2)), np.zeros(3)])


def test_load_weights_checks_every_member_before_assigning_any(tmp_path):
    X, _ = data()
    model = book_model()
    model(X)
    path = tmp_path / "model.weights.npz"
    model.save_weights(path)
    with np.load(path) as f:
        members = {k: f[k] for k in f.files}
    before = [w.numpy() for w in model.weights]
    for bad in (np.full(members["w000001"].shape, "x"), np.full(members["w000001"].shape, "1.5")):
        damaged = dict(members, w000001=bad)  # the right shape, string values (even numeric-looking ones)
        np.savez(tmp_path / "bad.weights.npz", **damaged)
        with pytest.raises(ValueError, match="not numbers"):
            model.load_weights(tmp_path / "bad.weights.npz")
        for w, b in zip(model.weights, before):  # the first kernel is not assigned either
            np.testing.assert_array_equal(w.numpy(), b)


def test_summary_lists_layers_and_params():
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(30), keras.layers.Dense(1)])
    lines = []
    model.summary(print_fn=lines.append)
    text = "\n".join(lines)
    assert "(None, 30)" in text and "Total params: 301" in text and "Dense" in text


def test_fit_evaluate_predict_and_history():
    X, y = data(200)
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.layers.Dense(16, activation="relu"), keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer=keras.optimizers.Adam(0.01), metrics=["mae"])
    history = model.fit(X, y, epochs=5, batch_size=32, validation_data=(X[:50], y[:50]), verbose=0)
    assert set(history.history) == {"loss", "mae", "val_loss", "val_mae"}
    assert len(history.history["loss"]) == 5 and history.epoch == [0, 1, 2, 3, 4]
    assert history.history["loss"][-1] < history.history["loss"][0]
    loss, mae = model.evaluate(X, y, verbose=0)
    pred = model.predict(X, verbose=0)
    assert pred.shape == (200, 1)
    np.testing.assert_allclose(loss, np.mean((pred - y) ** 2), rtol=1e-5)
    np.testing.assert_allclose(mae, np.mean(np.abs(pred - y)), rtol=1e-5)


def test_fit_progress_bar(capsys):
    X, y = data(64)
    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile(loss="mse", optimizer="sgd")
    model.fit(X, y, epochs=2, batch_size=16, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 2/2" in out and "4/4 [==============================]" in out and "loss:" in out


def test_fit_requires_compile_and_matching_lengths():
    model = keras.Sequential([keras.layers.Dense(1)])
    with pytest.raises(ValueError, match="compile"):  # Keras's class
        model.fit(np.ones((4, 2)), np.ones((4, 1)))
    model.compile(loss="mse")
    with pytest.raises(ValueError, match="samples"):
        model.fit(np.ones((4, 2)), np.ones((3, 1)), verbose=0)


@pytest.mark.parametrize("shuffle", [False, True])
def test_fit_equals_the_custom_loop_from_the_same_seed(shuffle):
    """fit's step is the book's loop body; with the same seed and batch order the weights agree."""
    (X, y), _, _ = diabetes.load_data()
    epochs, batch_size = 3, 32

    keras.utils.set_random_seed(5)
    fitted = book_model()
    fitted.compile(loss=keras.losses.mean_squared_error, optimizer=keras.optimizers.Nadam(lr=0.01))
    history = fitted.fit(X, y, epochs=epochs, batch_size=batch_size, shuffle=shuffle, verbose=0)

    keras.utils.set_random_seed(5)
    model = book_model()
    optimizer = keras.optimizers.Nadam(lr=0.01)
    loss_fn = keras.losses.mean_squared_error
    mean_loss = keras.metrics.Mean()
    losses = []
    for epoch in range(epochs):
        order = np.random.permutation(len(X)) if shuffle else np.arange(len(X))
        for start in range(0, len(X), batch_size):
            idx = order[start:start + batch_size]
            X_batch, y_batch = X[idx], y[idx]
            with tf.GradientTape() as tape:
                y_pred = model(X_batch, training=True)
                main_loss = tf.reduce_mean(loss_fn(y_batch, y_pred))
                loss = tf.add_n([main_loss] + model.losses)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            mean_loss(loss, sample_weight=len(idx))
        losses.append(float(mean_loss.result()))
        mean_loss.reset_states()

    for a, b in zip(fitted.get_weights(), model.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(history.history["loss"], losses, rtol=1e-6)


def test_compile_accuracy_resolves_against_the_loss():
    X = np.random.default_rng(0).normal(size=(64, 4)).astype("float32")
    labels = (X[:, 0] > 0).astype("int64")
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.layers.Dense(2)])
    model.compile(loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  optimizer=keras.optimizers.SGD(0.5), metrics=["accuracy"])
    history = model.fit(X, labels, epochs=10, verbose=0)
    assert isinstance(model.metrics[1], keras.metrics.SparseCategoricalAccuracy)
    assert history.history["accuracy"][-1] > 0.9
