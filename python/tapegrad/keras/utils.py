"""keras.utils: Progbar (a console progress bar like Keras's), set_random_seed, array helpers, the
image helpers of keras.preprocessing.image, the dataset builders (from directories, arrays of time
steps) and split_dataset."""
import random as _random
import sys
import time

import numpy as np

import tapegrad as tf
from tapegrad.keras.backend import clear_session
from tapegrad.keras.datasets._files import get_file
from tapegrad.keras.random import seed_generator as _seed_generator

from tapegrad.keras._dataset_from_directory import image_dataset_from_directory, text_dataset_from_directory
from tapegrad.keras._split_dataset import split_dataset
from tapegrad.keras._timeseries import timeseries_dataset_from_array

__all__ = ["Progbar", "clear_session", "pack_x_y_sample_weight", "unpack_x_y_sample_weight", "get_file", "normalize",
           "pad_sequences", "set_random_seed", "timeseries_dataset_from_array", "to_categorical", "array_to_img",
           "img_to_array", "load_img", "save_img", "image_dataset_from_directory", "text_dataset_from_directory",
           "split_dataset"]


def set_random_seed(seed):
    """Seeds Python's ``random``, NumPy's global generator and tapegrad's (initializers, dropout)."""
    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"set_random_seed: seed must be an int, got {seed!r}")
    _random.seed(int(seed))
    np.random.seed(int(seed))
    tf.random.set_seed(int(seed))
    _seed_generator.reset_global_seed_generator()  # seed=None draws of keras.random repeat, as in Keras


def to_categorical(x, num_classes=None):
    """Class indices as one-hot rows: a NumPy float64 array for array-like x (``num_classes``
    defaulting to max(x) + 1), a float32 tensor (tf.one_hot) for a tensor; a trailing axis of 1 is
    dropped first, as Keras (labels of shape [n, 1] give [n, num_classes])."""
    if isinstance(x, tf.Tensor):
        if num_classes is None:
            raise ValueError("to_categorical: num_classes must be given for a tensor x")
        if len(x.shape) > 1 and x.shape[-1] == 1:
            x = tf.squeeze(x, -1)
        return tf.one_hot(x, num_classes)
    x = np.asarray(x, dtype="int64")
    shape = x.shape[:-1] if len(x.shape) > 1 and x.shape[-1] == 1 else x.shape
    x = x.reshape(-1)
    num_classes = int(np.max(x)) + 1 if not num_classes else int(num_classes)
    out = np.zeros((len(x), num_classes))
    out[np.arange(len(x)), x] = 1  # a negative index counts from the end, as in Keras
    return out.reshape(shape + (num_classes,))


def _value(v):
    return float(v.numpy()) if hasattr(v, "numpy") else float(v)


class Progbar:
    """Displays progress: ``12/50 [=====>........] - ETA: 3s - loss: 0.4321``.

    Args:
      target: total number of steps (None if unknown).
      width: width of the bar in characters.
      verbose: 1 for the bar, 2 for one line at the end, 0 for silence.
      stateful_metrics: names of values shown as given rather than averaged over steps.
      unit_name: what a step is called ("step").

    ``update(current, values)`` takes ``values`` as a list of (name, value) pairs; values of names
    not in ``stateful_metrics`` are averaged, weighted by the steps since the last update.
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step",
                 file=None):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self.stateful_metrics = set(stateful_metrics or ())
        self.unit_name = unit_name
        self.file = file if file is not None else sys.stdout
        self._sums, self._order = {}, []
        self._seen = 0
        self._start = self._last = time.time()
        self._dynamic = hasattr(self.file, "isatty") and self.file.isatty()
        self._prev_len = 0

    def _accumulate(self, current, values):
        for name, v in values or []:
            if name not in self._order:
                self._order.append(name)
            if name in self.stateful_metrics:
                self._sums[name] = [_value(v), 1]
            else:
                steps = max(1, current - self._seen)
                total, count = self._sums.get(name, [0.0, 0])
                self._sums[name] = [total + _value(v) * steps, count + steps]
        self._seen = current

    def _metrics_text(self):
        parts = []
        for name in self._order:
            total, count = self._sums[name]
            avg = total / max(count, 1)
            parts.append(f" - {name}: {avg:.4f}" if abs(avg) >= 1e-3 or avg == 0 else f" - {name}: {avg:.4e}")
        return "".join(parts)

    def _bar(self, current):
        if self.target is None:
            return f"{current}/Unknown"
        digits = len(str(self.target))
        text = f"{current:{digits}d}/{self.target} ["
        filled = int(self.width * current / self.target) if self.target else self.width
        if filled > 0:
            text += "=" * (filled - 1) + (">" if current < self.target else "=")
        return text + "." * (self.width - filled) + "]"

    def _timing(self, current, now):
        elapsed = now - self._start
        if self.target is not None and current < self.target:
            eta = elapsed / max(current, 1) * (self.target - current)
            return f" - ETA: {eta:.0f}s"
        per = elapsed / max(current, 1)
        unit = f"{per * 1e3:.0f}ms/{self.unit_name}" if per >= 1e-3 else f"{per * 1e6:.0f}us/{self.unit_name}"
        return f" - {elapsed:.0f}s {unit}"

    def update(self, current, values=None, finalize=None):
        self._accumulate(current, values)
        finalize = (self.target is not None and current >= self.target) if finalize is None else finalize
        if self.verbose == 0:
            return
        now = time.time()
        if self.verbose == 1:
            if not finalize and now - self._last < self.interval:
                return
            line = self._bar(current) + self._timing(current, now) + self._metrics_text()
            pad = " " * max(0, self._prev_len - len(line))
            self.file.write(("\r" if self._dynamic else "") + line + pad + ("\n" if finalize or not self._dynamic else ""))
            self._prev_len = len(line)
        elif finalize:
            self.file.write(self._bar(current).split(" [")[0] + self._timing(current, now) + self._metrics_text() + "\n")
        self.file.flush()
        self._last = now

    def add(self, n, values=None):
        self.update(self._seen + n, values)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """Sequences of different lengths as one (len(sequences), maxlen) array: each cut to ``maxlen``
    (its first entries dropped with truncating="pre", its last with "post") and filled with ``value``
    before it (padding="pre") or after it ("post"). ``maxlen`` defaults to the longest sequence."""
    for what, where in (("Padding", padding), ("Truncating", truncating)):
        if where not in ("pre", "post"):
            raise ValueError(f'{what} type "{where}" not understood')
    try:
        lengths = [len(s) for s in sequences]
    except TypeError:
        raise ValueError("`sequences` must be a list of iterables") from None
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    sample_shape = next((np.asarray(s).shape[1:] for s in sequences if len(s)), ())
    out = np.full((len(lengths), maxlen) + sample_shape, value, dtype=dtype)
    for row, s in zip(out, sequences):
        if not len(s) or not maxlen:
            continue
        kept = np.asarray(s[-maxlen:] if truncating == "pre" else s[:maxlen], dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"pad_sequences: a sequence's entries have shape {kept.shape[1:]}, the first's {sample_shape}")
        if padding == "post":
            row[:len(kept)] = kept
        else:
            row[len(row) - len(kept):] = kept
    return out


def normalize(x, axis=-1, order=2):
    """x (a tensor, array or list) divided by its ``order``-norm along ``axis``, as a tensor; zero
    vectors stay zero."""
    x = tf.convert_to_tensor(x)
    return x / tf.maximum(tf.norm(x, ord=order, axis=axis, keepdims=True), 1e-12)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` of a batch given to train_step: ``(x, y)``, ``(x, y, sample_weight)``,
    ``(x,)`` or ``x`` alone (missing parts None)."""
    from tapegrad.keras._data_adapter import unpack
    return unpack(data)


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """The batch ``unpack_x_y_sample_weight`` splits: ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    if y is None:
        return (x,)
    return (x, y) if sample_weight is None else (x, y, sample_weight)


# Last: keras.preprocessing imports pad_sequences from here (Keras 3 exports these names from both).
from tapegrad.keras.preprocessing.image import array_to_img, img_to_array, load_img, save_img  # noqa: E402,F401
