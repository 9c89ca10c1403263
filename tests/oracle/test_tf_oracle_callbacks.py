"""keras.callbacks driven by the same scripted epoch logs as TensorFlow's Keras: when training stops,
which epoch's weights are kept, what is saved. Skipped when TensorFlow does not import, unless
TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

from tapegrad import keras
from tf_oracle import import_tensorflow

ref = import_tensorflow()


class ScriptedModel:
    """The parts of a model the callbacks touch; its single weight is the index of the current epoch."""

    def __init__(self):
        self.epoch, self.stop_training = 0, False

    def get_weights(self):
        return [np.array(self.epoch)]

    def set_weights(self, weights):
        self.epoch = int(weights[0])


def run_early_stopping(callbacks_module, values, **kwargs):
    """Epochs of a fit loop with ``values`` as the monitored log; (epochs run, epoch of the final weights,
    stopped_epoch, best)."""
    cb = callbacks_module.EarlyStopping(**kwargs)
    model = ScriptedModel()
    cb.set_model(model)
    cb.on_train_begin()
    ran = 0
    for epoch, value in enumerate(values):
        model.epoch = epoch
        ran += 1
        cb.on_epoch_end(epoch, {"val_loss": value, "val_accuracy": -value})
        if model.stop_training:
            break
    cb.on_train_end()
    return ran, model.epoch, cb.stopped_epoch, None if cb.best is None else float(cb.best)


SEQUENCES = [[0.7, 0.8, 0.6, 0.9], [0.7, 0.8, 0.9, 0.95, 0.6], [0.5, 0.4, 0.3, 0.2], [0.5, 0.4, 0.45, 0.3, 0.31, 0.32],
             [0.5, 0.5, 0.5]]
SETTINGS = [dict(patience=0), dict(patience=1), dict(patience=2), dict(patience=1, restore_best_weights=True),
            dict(patience=0, restore_best_weights=True), dict(patience=1, min_delta=0.06),
            dict(patience=1, baseline=0.35, restore_best_weights=True), dict(patience=1, start_from_epoch=2),
            dict(monitor="val_accuracy", mode="max", patience=1, restore_best_weights=True)]


@pytest.mark.parametrize("values", SEQUENCES)
@pytest.mark.parametrize("kwargs", SETTINGS, ids=repr)
def test_early_stopping_stops_and_restores_as_keras(values, kwargs):
    mine = run_early_stopping(keras.callbacks, values, **kwargs)
    theirs = run_early_stopping(ref.keras.callbacks, values, **kwargs)
    assert mine[:3] == theirs[:3]
    assert mine[3] == pytest.approx(theirs[3])


class SavingModel(ScriptedModel):
    def __init__(self):
        super().__init__()
        self.saved = []

    def save_weights(self, filepath, overwrite=True):
        self.saved.append((filepath, self.epoch))

    def save(self, filepath, overwrite=True, **kwargs):
        self.saved.append((filepath, self.epoch))


def run_model_checkpoint(callbacks_module, values, batches=3, **kwargs):
    """(path, epoch) of every save over epochs whose monitored logs are ``values``."""
    cb = callbacks_module.ModelCheckpoint(**kwargs)
    model = SavingModel()
    cb.set_model(model)
    cb.on_train_begin()
    for epoch, value in enumerate(values):
        model.epoch = epoch
        cb.on_epoch_begin(epoch)
        for b in range(batches):
            cb.on_train_batch_begin(b)
            cb.on_train_batch_end(b, {"loss": value + b})
        cb.on_epoch_end(epoch, {"loss": value, "val_loss": value, "val_accuracy": -value})
    cb.on_train_end()
    return model.saved


CHECKPOINTS = [dict(filepath="w.weights.h5", save_weights_only=True),
               dict(filepath="e{epoch:02d}-{val_loss:.2f}.weights.h5", save_weights_only=True),
               dict(filepath="best.keras", save_best_only=True),
               dict(filepath="best.keras", save_best_only=True, initial_value_threshold=0.65),
               dict(filepath="best.keras", save_best_only=True, monitor="val_accuracy", mode="max"),
               dict(filepath="b{epoch}-{batch}.keras", save_freq=2)]


@pytest.mark.parametrize("kwargs", CHECKPOINTS, ids=repr)
def test_model_checkpoint_saves_as_keras(tmp_path, kwargs):
    kwargs = dict(kwargs, filepath=str(tmp_path / kwargs["filepath"]))
    values = [0.7, 0.8, 0.6, 0.9, 0.5]
    assert run_model_checkpoint(keras.callbacks, values, **kwargs) == \
        run_model_checkpoint(ref.keras.callbacks, values, **kwargs)


@pytest.mark.parametrize("kwargs", [dict(filepath="a.h5", save_weights_only=True), dict(filepath="a.weights.npz"),
                                    dict(filepath="a.keras", save_freq="x")], ids=repr)
def test_model_checkpoint_rejects_as_keras(kwargs):
    with pytest.raises(ValueError) as theirs:
        ref.keras.callbacks.ModelCheckpoint(**kwargs)
    with pytest.raises(ValueError) as mine:
        keras.callbacks.ModelCheckpoint(**kwargs)
    assert str(mine.value) == str(theirs.value)
