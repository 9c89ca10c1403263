"""Horovod's Keras callbacks for model.fit over several ranks."""
import warnings

import numpy as np

from tapegrad._tensor import tensor as _tensor
from tapegrad.distribute import _runtime
from tapegrad.distribute._collectives import broadcast_variables, grouped_allreduce
from tapegrad.keras.callbacks import Callback

__all__ = ["BroadcastGlobalVariablesCallback", "MetricAverageCallback", "LearningRateScheduleCallback",
           "LearningRateWarmupCallback"]


class BroadcastGlobalVariablesCallback(Callback):
    """Gives every rank root_rank's model and optimizer state at the end of the first batch (when the
    optimizer's variables exist), so all ranks train the same model."""

    def __init__(self, root_rank, device=""):
        super().__init__()
        self.root_rank = root_rank
        self.broadcast_done = False

    def on_train_batch_end(self, batch, logs=None):
        if self.broadcast_done:
            return
        broadcast_variables(self.model.variables, root_rank=self.root_rank)
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            broadcast_variables(optimizer.variables, root_rank=self.root_rank)
        self.broadcast_done = True


class MetricAverageCallback(Callback):
    """Replaces each metric in the epoch's logs by its average over the ranks (put it before callbacks
    that read the logs: checkpoints, early stopping, TensorBoard)."""

    def __init__(self, device=""):
        super().__init__()

    def on_epoch_end(self, epoch, logs=None):
        if not logs:
            return
        names = sorted(k for k, v in logs.items() if np.ndim(v) == 0 and k not in ("lr", "learning_rate"))
        values = grouped_allreduce([_tensor.constant(float(logs[k]), dtype="float64") for k in names], name="metrics")
        for k, v in zip(names, values):
            logs[k] = float(v.numpy())


class LearningRateScheduleCallback(Callback):
    """Sets the learning rate to initial_lr * multiplier(epoch) from start_epoch until end_epoch
    (excluded; None: to the end), Horovod's schedule. A constant multiplier scales initial_lr at every
    epoch of the range. With staircase (forced for a constant) the rate changes at each epoch's first
    batch; without, at every batch, with the fractional epoch epoch + batch / steps_per_epoch. With
    momentum_correction, an SGD momentum is scaled by new_lr / old_lr for the batch in which the rate
    changes; a traced train_step holds the momentum as a constant, so the correction needs
    compile(run_eagerly=True) and is skipped, with a warning, otherwise."""

    def __init__(self, initial_lr, multiplier, start_epoch=0, end_epoch=None, staircase=True,
                 momentum_correction=True, steps_per_epoch=None, verbose=0):
        super().__init__()
        if not callable(multiplier):
            factor = float(multiplier)
            multiplier, staircase = (lambda epoch: factor), True
        self.initial_lr, self.multiplier = float(initial_lr), multiplier
        self.start_epoch, self.end_epoch, self.staircase = start_epoch, end_epoch, staircase
        self.momentum_correction, self.steps_per_epoch, self.verbose = momentum_correction, steps_per_epoch, verbose
        self.current_epoch = 0
        self._restore_momentum = None
        self._warned = False

    def _lr_at(self, epoch):
        return self.initial_lr * self.multiplier(epoch)

    def on_epoch_begin(self, epoch, logs=None):
        self.current_epoch = epoch
        if self.steps_per_epoch is None:
            self.steps_per_epoch = self.params.get("steps")

    def on_train_batch_begin(self, batch, logs=None):
        epoch = self.current_epoch
        if epoch < self.start_epoch or (self.end_epoch is not None and epoch >= self.end_epoch):
            return
        if self.staircase:
            if batch == 0:
                self._set(self._lr_at(epoch))
            return
        if not self.steps_per_epoch:
            raise ValueError(f"{type(self).__name__}: steps_per_epoch is unknown; pass steps_per_epoch=")
        self._set(self._lr_at(epoch + batch / self.steps_per_epoch))

    def _set(self, new):
        optimizer = self.model.optimizer
        old = float(optimizer.learning_rate)
        optimizer.learning_rate = new
        momentum = getattr(optimizer, "momentum", None)
        if not (self.momentum_correction and isinstance(momentum, float) and momentum):
            return
        if not self.model.run_eagerly:
            if not self._warned:
                warnings.warn(f"{type(self).__name__}: momentum_correction needs compile(run_eagerly=True) (a "
                              "traced train_step holds the momentum as a constant); it is skipped", stacklevel=3)
                self._warned = True
        elif old > 0:
            self._restore_momentum = momentum
            optimizer.momentum = momentum * new / old

    def on_train_batch_end(self, batch, logs=None):
        if self._restore_momentum is not None:
            self.model.optimizer.momentum = self._restore_momentum
            self._restore_momentum = None

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(self.model.optimizer.learning_rate)


class LearningRateWarmupCallback(LearningRateScheduleCallback):
    """Raises the learning rate from initial_lr / size to initial_lr over the first warmup_epochs
    (Goyal et al., 2017), batch by batch: lr = initial_lr / size * (e * (size - 1) / warmup_epochs + 1)
    at fractional epoch e, and initial_lr from the end of the warmup on (momentum correction as in
    LearningRateScheduleCallback)."""

    def __init__(self, initial_lr, warmup_epochs=5, momentum_correction=True, steps_per_epoch=None, verbose=0):
        if not warmup_epochs > 0:
            raise ValueError(f"LearningRateWarmupCallback: warmup_epochs must be > 0, got {warmup_epochs}")
        super().__init__(initial_lr, self._warmup, start_epoch=0, end_epoch=warmup_epochs, staircase=False,
                         momentum_correction=momentum_correction, steps_per_epoch=steps_per_epoch, verbose=verbose)
        self.warmup_epochs = warmup_epochs

    def _warmup(self, epoch):
        n = _runtime.size()
        return (epoch * (n - 1) / self.warmup_epochs + 1) / n

    def _lr_at(self, epoch):  # the same, rounded as Horovod computes it
        n = _runtime.size()
        return self.initial_lr / n * (epoch * (n - 1) / self.warmup_epochs + 1)

    def on_epoch_end(self, epoch, logs=None):
        if epoch == self.warmup_epochs - 1:
            self.model.optimizer.learning_rate = self.initial_lr
            if self.verbose and _runtime.rank() == 0:
                print(f"\nEpoch {epoch + 1}: finished gradual learning rate warmup to {self.initial_lr:g}.")
        super().on_epoch_end(epoch, logs)
