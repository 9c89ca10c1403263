"""keras.callbacks.ModelCheckpoint: saves the model (``.keras``) or its weights (``.weights.h5``) every
epoch or every ``save_freq`` batches, optionally only when ``monitor`` improves."""
import os

from tapegrad.keras.callbacks._monitor import Monitor
from tapegrad.keras.callbacks import Callback

__all__ = ["ModelCheckpoint"]


class ModelCheckpoint(Callback):
    """Args:
      filepath: where to save; may hold ``{epoch}`` (counted from 1) and log names, e.g.
        ``"ckpt-{epoch:02d}-{val_loss:.2f}.keras"``. It ends in ``.weights.h5`` with
        ``save_weights_only`` (written by ``model.save_weights``), else in ``.keras`` (``model.save``).
      save_best_only: save only when ``monitor`` beats its best so far (``initial_value_threshold``
        when given); mode as in EarlyStopping.
      save_freq: "epoch", or a number of batches between saves.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__()
        self.filepath = os.fspath(filepath)
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                             f"must end in `.weights.h5` (Keras weights format). Received: filepath={self.filepath}")
        if not save_weights_only and not self.filepath.endswith((".keras", ".h5")):
            raise ValueError("The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")
        if save_freq != "epoch" and not (isinstance(save_freq, int) and not isinstance(save_freq, bool)):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer values")
        self._monitor = Monitor("ModelCheckpoint", monitor, mode)
        self.monitor, self.verbose = monitor, verbose
        self.save_best_only, self.save_weights_only, self.save_freq = save_best_only, save_weights_only, save_freq
        self.best = None if initial_value_threshold is None else float(initial_value_threshold)
        self._batches_since_save = 0

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_since_save += 1
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save(self._current_epoch, batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _path(self, epoch, batch, logs):
        fields = dict(logs or {})
        if batch is not None:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(epoch=epoch + 1, **fields)
        except KeyError as e:
            raise KeyError(f'ModelCheckpoint: failed to format the filepath "{self.filepath}": the logs of epoch '
                           f"{epoch + 1} have no {e}") from None

    def _save(self, epoch, batch, logs):
        path = self._path(epoch, batch, logs)
        if self.save_best_only:
            value = self._monitor.value(logs)
            if value is None:
                return
            if not self._monitor.improves(value, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                best = "-inf" if self.best is None and self._monitor.maximize else (
                    "inf" if self.best is None else f"{self.best:.5f}")
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {value:.5f}, saving model "
                      f"to {path}")
            self.best = value
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)
