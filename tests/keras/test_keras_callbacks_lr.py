"""keras.callbacks ReduceLROnPlateau, LearningRateScheduler, CSVLogger and TerminateOnNaN: the
learning rates, log files and stops TensorFlow 2.21's Keras gives for the same fits (values recorded
from it)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


def _model(lr=1.0, schedule=None):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    m = keras.Sequential([keras.layers.Dense(1, activation="sigmoid")])
    m.compile(keras.optimizers.SGD(schedule or lr), "binary_crossentropy", metrics=["accuracy"])
    return m, x, y


def _rates(callback, epochs, lr=1.0):
    m, x, y = _model(lr)
    return m.fit(x, y, epochs=epochs, batch_size=16, verbose=0, callbacks=[callback]).history["learning_rate"]


def test_reduce_on_plateau_follows_patience_cooldown_and_min_lr(capsys):
    f32 = lambda v: float(np.float32(v))  # noqa: E731 -- Keras logs its float32 rate variable
    # min_delta=10: no epoch after the first improves, so the schedule depends on the counters alone
    cb = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=10.0, cooldown=1,
                                           min_lr=0.05, verbose=1)
    assert _rates(cb, 6, lr=0.5) == [0.5, 0.5, 0.25, 0.125, 0.0625, f32(0.05)]
    out = capsys.readouterr().out
    assert "Epoch 2: ReduceLROnPlateau reducing learning rate to 0.25." in out
    assert "Epoch 5: ReduceLROnPlateau reducing learning rate to 0.05." in out and "Epoch 6" not in out
    cb = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=10.0, cooldown=2)
    assert _rates(cb, 7) == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]
    # mode="max" on a falling loss: never an improvement after the first epoch
    cb = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.1, patience=2, mode="max")
    assert _rates(cb, 5) == [1.0, 1.0, 1.0, f32(0.1), f32(0.1)]


def test_reduce_on_plateau_refusals():
    with pytest.raises(ValueError, match="does not support a factor >= 1.0. Received factor=1.0"):
        keras.callbacks.ReduceLROnPlateau(factor=1.0)
    assert keras.callbacks.ReduceLROnPlateau(epsilon=0.5, foo=1).min_delta == 1e-4  # Keras 3 ignores both
    m, x, y = _model(schedule=keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9))
    with pytest.raises(TypeError, match="learning rate is not settable"):
        m.fit(x, y, epochs=3, verbose=0,
              callbacks=[keras.callbacks.ReduceLROnPlateau(monitor="loss", patience=0, min_delta=10)])


def test_learning_rate_scheduler(capsys):
    cb = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch > 1 else lr, verbose=1)
    assert _rates(cb, 4, lr=0.5) == [0.5, 0.5, 0.25, 0.125]
    assert "Epoch 3: LearningRateScheduler setting learning rate to 0.25." in capsys.readouterr().out
    assert _rates(keras.callbacks.LearningRateScheduler(lambda epoch: np.float32(0.1)), 1) == [float(np.float32(0.1))]
    for bad in (lambda epoch: 1, lambda epoch: tf.constant(0.2)):
        with pytest.raises(ValueError, match="should be a float"):
            _rates(keras.callbacks.LearningRateScheduler(bad), 1)


def test_csv_logger_columns_na_and_append(tmp_path):
    path = tmp_path / "log.csv"
    m, x, y = _model()
    m.fit(x, y, epochs=2, batch_size=16, verbose=0, callbacks=[keras.callbacks.CSVLogger(path)])
    lines = path.read_text().splitlines()
    assert lines[0] == "epoch,accuracy,loss,val_accuracy,val_loss"  # Keras adds the val_ columns
    assert len(lines) == 3 and lines[1].startswith("0,") and lines[2].endswith(",NA,NA")
    first_loss = float(lines[1].split(",")[2])
    logger = keras.callbacks.CSVLogger(path, separator=";", append=True)
    for _ in range(2):  # a second fit with the same logger appends rows, not another header
        m.fit(x, y, epochs=1, batch_size=16, verbose=0, validation_data=(x, y), callbacks=[logger])
    lines = path.read_text().splitlines()
    assert len(lines) == 5 and lines[3].split(";")[0] == "0" and lines[4].split(";")[0] == "0"
    assert len(lines[3].split(";")) == 5 and first_loss > 0


def test_terminate_on_nan(capsys):
    m, x, y = _model(lr=1.0)

    class NanLoss(keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(y_pred) * np.nan
    m.compile(keras.optimizers.SGD(0.1), NanLoss())
    h = m.fit(x, y, epochs=3, batch_size=16, verbose=0, callbacks=[keras.callbacks.TerminateOnNaN()])
    assert len(h.history["loss"]) == 1 and np.isnan(h.history["loss"][0])
    assert "Batch 0: Invalid loss, terminating training" in capsys.readouterr().out
