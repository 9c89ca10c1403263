"""keras.callbacks.ReduceLROnPlateau and LearningRateScheduler: callbacks that set the optimizer's
learning rate between epochs.

Both add ``"learning_rate"`` to the epoch's logs (so to ``History``), the rate the epoch trained
with, read as Keras reads its float32 rate variable. An optimizer built with a
``LearningRateSchedule`` refuses a new rate with TypeError, as in Keras.
"""
import numpy as np

from tapegrad.keras.callbacks._monitor import Monitor
from tapegrad.keras.callbacks import Callback

__all__ = ["ReduceLROnPlateau", "LearningRateScheduler"]


def _current_rate(model):
    return float(np.float32(float(model.optimizer.learning_rate)))


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` once ``monitor`` has not improved (by more than
    ``min_delta``) for ``patience`` epochs, never below ``min_lr``. After a reduction, ``cooldown``
    epochs pass before the count of epochs without improvement starts again."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__()  # other keywords (Keras 2's epsilon among them) are ignored, as Keras 3 does
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.monitor, self.factor, self.patience, self.verbose = monitor, float(factor), patience, verbose
        self.cooldown, self.min_lr = cooldown, float(min_lr)
        self._monitor = Monitor("ReduceLROnPlateau", monitor, mode, min_delta)
        self.mode, self.min_delta = self._monitor.mode, self._monitor.min_delta
        self._reset()

    def _reset(self):
        self.best, self.wait, self.cooldown_counter = None, 0, 0

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = _current_rate(self.model)
        value = self._monitor.value(logs)
        if value is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._monitor.improves(value, self.best):
            self.best, self.wait = value, 0
            return
        if self.in_cooldown():
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        old = logs["learning_rate"]
        if old > np.float32(self.min_lr):
            new = max(old * self.factor, self.min_lr)
            self.model.optimizer.learning_rate = new
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
            self.cooldown_counter, self.wait = self.cooldown, 0


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of each epoch to ``schedule(epoch, lr)`` (or
    ``schedule(epoch)`` for a function of one argument), which must return a float."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        if not callable(schedule):
            raise TypeError(f"LearningRateScheduler: schedule must be callable, got {schedule!r}")
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        try:
            rate = self.schedule(epoch, _current_rate(self.model))
        except TypeError:  # a schedule of the epoch alone (Keras's older form)
            rate = self.schedule(epoch)
        if isinstance(rate, bool) or not isinstance(rate, (float, np.floating)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {rate}")
        self.model.optimizer.learning_rate = float(rate)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {rate}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _current_rate(self.model)
