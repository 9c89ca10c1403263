"""keras.callbacks.TensorBoard: fit's logs as TensorBoard event files, with Keras's tags and layout
(``log_dir/train`` and ``log_dir/validation``), through tf.summary (the ``tensorboard`` extra)."""
import os

import tapegrad as tf
from tapegrad.keras.callbacks import Callback

__all__ = ["TensorBoard"]


class TensorBoard(Callback):
    """Writes ``epoch_<metric>`` (and ``epoch_learning_rate``) at each epoch, ``batch_<metric>`` every
    ``update_freq`` batches when it is an int (or "batch"), the validation metrics, and histograms of
    the weights every ``histogram_freq`` epochs.

    Args:
      log_dir: the directory; runs go to its ``train`` and ``validation`` subdirectories.
      histogram_freq: epochs between weight histograms (0: none).
      update_freq: "epoch", "batch", or a number of batches between batch-level scalars.
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        if update_freq not in ("epoch", "batch") and not (isinstance(update_freq, int) and update_freq > 0):
            raise ValueError(f"TensorBoard: update_freq must be 'epoch', 'batch' or a positive int, got {update_freq!r}")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self._writers = {}

    def _writer(self, run):
        if run not in self._writers:
            self._writers[run] = tf.summary.create_file_writer(os.path.join(self.log_dir, run))
        return self._writers[run]

    def _step(self):
        optimizer = getattr(self.model, "optimizer", None)
        return int(optimizer.iterations) if optimizer is not None else 0

    def _learning_rate(self):
        rate = self.model.optimizer.learning_rate
        return float(rate(self.model.optimizer.iterations) if callable(rate) else rate)

    def on_train_batch_end(self, batch, logs=None):
        if self.update_freq == "epoch" or self._step() % self.update_freq:
            return
        with self._writer("train").as_default(step=self._step()):
            for name, value in (logs or {}).items():
                tf.summary.scalar("batch_" + name, value)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        with self._writer("train").as_default(step=epoch):
            for name, value in logs.items():
                if not name.startswith("val_"):
                    tf.summary.scalar("epoch_" + name, value)
            tf.summary.scalar("epoch_learning_rate", self._learning_rate())
            if self.histogram_freq and epoch % self.histogram_freq == 0:
                self._histograms()
        validation = {name[4:]: value for name, value in logs.items() if name.startswith("val_")}
        if validation:
            with self._writer("validation").as_default(step=epoch):
                for name, value in validation.items():
                    tf.summary.scalar("epoch_" + name, value)
                for name, value in validation.items():
                    tf.summary.scalar(f"evaluation_{name}_vs_iterations", value, step=self._step())

    def _histograms(self):
        for layer in self.model.layers:
            for weight in layer.weights:
                short = weight.name.split(":")[0].rsplit("/", 1)[-1]  # "d1/bias:0" -> "bias", as Keras 3
                tf.summary.histogram(f"{self.model.name}/{layer.name}/{short}/histogram", weight)

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
