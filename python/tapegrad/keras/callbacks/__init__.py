"""keras.callbacks: Callback, History (per-epoch logs returned by fit), CallbackList (how fit / evaluate /
predict call them) and a few common callbacks."""
from tapegrad.keras.callbacks._monitor import Monitor

__all__ = ["Callback", "CallbackList", "History", "EarlyStopping", "LambdaCallback", "ModelCheckpoint", "TensorBoard",
           "ReduceLROnPlateau", "LearningRateScheduler", "CSVLogger", "TerminateOnNaN"]


class Callback:
    """Base class: hooks called by fit/evaluate/predict with a ``logs`` dict."""

    def __init__(self):
        self.model, self.params = None, {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass

    # As in Keras, the training-batch hooks default to the older on_batch_begin / on_batch_end, so a
    # callback overriding only those still hears of every training batch.
    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass


class History(Callback):
    """Records the logs of each epoch: ``history.history["loss"]`` is a list, one float per epoch."""

    def __init__(self):
        super().__init__()
        self.epoch, self.history = [], {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class EarlyStopping(Callback):
    """Stops training when ``monitor`` has not improved for ``patience`` epochs in a row, as Keras:
    an epoch that does not beat the best by more than ``min_delta`` adds one to ``wait``; training
    stops at the end of an epoch (not the first) once ``wait >= patience``. With
    ``restore_best_weights``, the weights of the best epoch are set back when training ends, whether
    it stopped early or ran all its epochs. ``baseline``: ``wait`` restarts only for values that
    also beat it. Epochs before ``start_from_epoch`` are not monitored.
    """

    def __init__(self, monitor="val_loss", min_delta=0.0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self._monitor = Monitor("EarlyStopping", monitor, mode, min_delta)
        self.monitor, self.min_delta = monitor, self._monitor.min_delta
        self.patience, self.verbose, self.baseline = patience, verbose, baseline
        self.restore_best_weights, self.start_from_epoch = restore_best_weights, start_from_epoch
        self.wait, self.stopped_epoch, self.best, self.best_weights, self.best_epoch = 0, 0, None, None, 0

    def on_train_begin(self, logs=None):  # an instance can serve several fit calls
        self.wait, self.stopped_epoch, self.best, self.best_weights, self.best_epoch = 0, 0, None, None, 0

    def on_epoch_end(self, epoch, logs=None):
        value = self._monitor.value(logs)
        if value is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self._monitor.improves(value, self.best):
            self.best, self.best_epoch = value, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._monitor.improves(value, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class LambdaCallback(Callback):
    """A callback from functions: each argument given (and any other ``on_...`` hook passed by
    keyword, e.g. ``on_batch_end`` or ``on_test_end``) replaces that hook."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end),
                         ("on_train_batch_begin", on_train_batch_begin), ("on_train_batch_end", on_train_batch_end)):
            if fn is not None:
                setattr(self, name, fn)


from tapegrad.keras.callbacks._callback_list import CallbackList  # noqa: E402  (they subclass Callback)
from tapegrad.keras.callbacks._model_checkpoint import ModelCheckpoint  # noqa: E402
from tapegrad.keras.callbacks._tensorboard import TensorBoard  # noqa: E402
from tapegrad.keras.callbacks._lr_callbacks import LearningRateScheduler, ReduceLROnPlateau  # noqa: E402
from tapegrad.keras.callbacks._csv_logger import CSVLogger, TerminateOnNaN  # noqa: E402
