"""keras.callbacks.CallbackList: one object that calls a hook on every callback, as fit / evaluate /
predict use it (and pass the same list to the validation pass that fit runs through evaluate).

Every hook hears a logs dict, ``{}`` when there is nothing to tell, as Keras gives it: the keys
sorted, nested dicts merged in, tensors as NumPy values and scalars as Python floats (one dict per
call, shared by the callbacks, so a callback adding a key shows it to those after it).
"""
import numpy as np

from tapegrad.keras.callbacks import Callback, History

__all__ = ["CallbackList"]


def _flatten(callbacks):
    for c in callbacks:
        if isinstance(c, (list, tuple)):
            yield from _flatten(c)
        else:
            yield c


def _plain(value):
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = np.asarray(value.numpy())
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return value


def plain_logs(logs):
    """The logs a hook is given: sorted keys, nested dicts merged, scalars as floats."""
    out = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            out.update(plain_logs(value))
        else:
            out[key] = _plain(value)
    return out


class CallbackList(Callback):
    """``CallbackList(callbacks=None, add_history=False, add_progbar=False, model=None, **params)``:
    the callbacks (a nested list is flattened), plus a History after them with ``add_history``
    unless one is given. ``params`` go to each callback's set_params; ``model`` to set_model (and
    the History becomes ``model.history``). Progress is printed by the loops themselves, so
    ``add_progbar`` adds no callback here."""

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = list(_flatten(callbacks)) if callbacks else []
        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        self.set_model(model)
        self.set_params(params)

    def set_model(self, model):
        if model is None:
            return
        super().set_model(model)
        if self._history is not None:
            model.history = self._history
        for c in self.callbacks:
            c.set_model(model)

    def set_params(self, params):
        self.params = params
        if params:
            for c in self.callbacks:
                c.set_params(params)


def _begin_end(name):
    def hook(self, logs=None):
        logs = plain_logs(logs)
        for c in self.callbacks:
            getattr(c, name)(logs)
    hook.__name__ = name
    return hook


def _indexed(name, logs_by_keyword):
    """A hook taking an epoch or batch number; Keras passes a batch hook's logs by keyword."""
    def hook(self, index, logs=None):
        logs = plain_logs(logs)
        for c in self.callbacks:
            if logs_by_keyword:
                getattr(c, name)(index, logs=logs)
            else:
                getattr(c, name)(index, logs)
    hook.__name__ = name
    return hook


for _stage in ("train", "test", "predict"):
    for _edge in ("begin", "end"):
        setattr(CallbackList, f"on_{_stage}_{_edge}", _begin_end(f"on_{_stage}_{_edge}"))
        setattr(CallbackList, f"on_{_stage}_batch_{_edge}", _indexed(f"on_{_stage}_batch_{_edge}", True))
for _edge in ("begin", "end"):
    setattr(CallbackList, f"on_epoch_{_edge}", _indexed(f"on_epoch_{_edge}", False))
    setattr(CallbackList, f"on_batch_{_edge}", _indexed(f"on_batch_{_edge}", True))
