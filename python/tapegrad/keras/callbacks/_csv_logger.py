"""keras.callbacks.CSVLogger and TerminateOnNaN: an epoch-by-epoch log file, and a stop on a loss
that is NaN or infinite."""
import csv
import math
import os

from tapegrad.keras.callbacks import Callback

__all__ = ["CSVLogger", "TerminateOnNaN"]


def _cell(value):
    if isinstance(value, str):
        return value
    if hasattr(value, "__len__") and not getattr(value, "ndim", 1) == 0:  # a list or array of values
        return '"[%s]"' % ", ".join(str(v) for v in value)
    return float(value) if hasattr(value, "numpy") else value


class CSVLogger(Callback):
    """Writes one row per epoch to ``filename``: the epoch, then every log value in the order of
    their sorted names (the header row). Without validation logs, "val_" columns are added and
    written as NA, as Keras does. ``append=True`` keeps an existing file and its header."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = os.fspath(filename), separator, append
        self.keys, self.writer, self.csv_file = None, None, None

    def on_train_begin(self, logs=None):
        has_rows = self.append and os.path.exists(self.filename) and os.path.getsize(self.filename) > 0
        self._write_header = not has_rows
        self.keys = None
        self.csv_file = open(self.filename, "a" if self.append else "w", newline="")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += ["val_" + k for k in self.keys]
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys, delimiter=self.sep,
                                         lineterminator="\n")
            if self._write_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update({k: _cell(logs[k]) if k in logs else "NA" for k in self.keys})
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
            self.csv_file, self.writer = None, None


class TerminateOnNaN(Callback):
    """Stops training after a batch whose loss is NaN or infinite."""

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True
