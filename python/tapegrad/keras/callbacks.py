"""keras.callbacks: Callback, History (per-epoch logs returned by fit) and a few common callbacks."""
import numpy as np

__all__ = ["Callback", "History", "EarlyStopping", "LambdaCallback", "TensorBoard"]


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
    def on_train_batch_begin(self, batch, logs=None): pass
    def on_train_batch_end(self, batch, logs=None): pass


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
    """Stops training when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0.0, patience=0, mode="auto", restore_best_weights=False,
                 **kwargs):
        super().__init__()
        self.monitor, self.min_delta, self.patience = monitor, abs(min_delta), patience
        self.sign = 1.0 if mode == "max" or (mode == "auto" and "acc" in monitor) else -1.0
        self.restore_best_weights = restore_best_weights

    def on_train_begin(self, logs=None):
        self.wait, self.best, self.best_weights, self.stopped_epoch = 0, -np.inf, None, 0

    def on_epoch_end(self, epoch, logs=None):
        value = (logs or {}).get(self.monitor)
        if value is None:
            return
        score = self.sign * value
        if score > self.best + self.min_delta:
            self.best, self.wait = score, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait > self.patience:
            self.model.stop_training = True
            self.stopped_epoch = epoch
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)


from tapegrad.keras._tensorboard import TensorBoard  # noqa: E402  (it subclasses Callback)
