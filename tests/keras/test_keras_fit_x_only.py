"""fit / evaluate on inputs alone (no targets), as the Keras VAE example trains, and what train_step
receives then. Expected behaviour is Keras 3's (TensorFlow 2.21)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


class _Recorder(keras.Model):
    """A model whose train_step records what fit gives it."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.seen = []

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        self.seen.append("tuple" if isinstance(data, tuple) else data.shape[-1])
        return {"loss": tf.constant(0.0)}


@pytest.mark.parametrize("run_eagerly", [True, False])
def test_train_step_gets_x_itself_for_a_dataset_of_x_and_for_arrays(run_eagerly):
    x = np.ones((4, 3), "float32")
    fits = {"dataset of x": lambda m: m.fit(tf.data.Dataset.from_tensor_slices(x).batch(2), epochs=1, verbose=0),
            "array x": lambda m: m.fit(x, batch_size=2, epochs=1, verbose=0),
            "arrays x, y": lambda m: m.fit(x, x[:, :1], batch_size=2, epochs=1, verbose=0)}
    seen = {}
    for name, fit in fits.items():
        m = _Recorder()
        m.compile(optimizer="adam", run_eagerly=run_eagerly)
        fit(m)
        seen[name] = set(m.seen)
    assert seen == {"dataset of x": {3}, "array x": {3}, "arrays x, y": {"tuple"}}


def test_add_loss_model_fits_and_evaluates_on_x_alone():
    class KL(keras.layers.Layer):
        def call(self, z):
            self.add_loss(tf.reduce_mean(tf.square(z)))
            return z

    inp = keras.Input(shape=(3,))
    model = keras.Model(inp, KL()(keras.layers.Dense(2, kernel_initializer="ones")(inp)))
    model.compile(optimizer=keras.optimizers.SGD(0.0))
    x = np.full((4, 3), 0.5, "float32")
    hist = model.fit(x, batch_size=2, epochs=1, verbose=0, validation_split=0.5)
    # Dense(ones) of 0.5s: 1.5 in each unit, loss 2.25
    assert hist.history["loss"] == pytest.approx([2.25])
    assert hist.history["val_loss"] == pytest.approx([2.25])
    assert model.evaluate(x, batch_size=2, verbose=0) == pytest.approx(2.25)


def test_progress_bar_shows_the_logs_as_returned(capsys):
    class Counting(_Recorder):
        def train_step(self, data):
            self.n = getattr(self, "n", 0) + 1
            return {"foo": tf.constant(float(self.n * 10))}

    m = Counting()
    m.compile(optimizer="adam", run_eagerly=True)
    m.fit(np.ones((8, 3), "float32"), batch_size=2, epochs=1, verbose=2)
    # the last step's value (TF: "foo: 40.0000"), not the mean of the four
    assert "foo: 40.0000" in capsys.readouterr().out
