"""keras.utils.timeseries_dataset_from_array: sliding windows over an array as a tf.data.Dataset.

Each sequence starts at a position p (every ``sequence_stride`` steps from ``start_index``) and holds
``data[p], data[p + sampling_rate], ...`` (``sequence_length`` steps); its target is ``targets[p]``.
The dataset is built from the start positions, which shuffle and batch cheaply as rows; each batch
then gathers its sequences with one traced ``tf.gather``.
"""
import numpy as np

import tapegrad as tf

__all__ = ["timeseries_dataset_from_array"]


def _positive(value, name):
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"timeseries_dataset_from_array: `{name}` must be higher than 0. Received: {name}={value}")
    return int(value)


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None,
                                  format="tf"):
    """Windows of ``data`` (and their targets) as a dataset of batches ``(sequences, targets)``, or of
    ``sequences`` alone when ``targets`` is None; ``shuffle`` draws the windows in random order (a
    permutation fixed by ``seed``, then a buffer of ``batch_size * 8`` shuffled each epoch, as Keras)."""
    if format != "tf":
        raise ValueError(f"timeseries_dataset_from_array: only format='tf' is supported, got {format!r}")
    data = np.asarray(data.numpy() if hasattr(data, "numpy") else data)
    length = _positive(sequence_length, "sequence_length")
    stride = _positive(sequence_stride, "sequence_stride")
    rate = _positive(sampling_rate, "sampling_rate")
    if batch_size is not None:
        batch_size = _positive(batch_size, "batch_size")
    start = 0 if start_index is None else int(start_index)
    end = len(data) if end_index is None else int(end_index)
    if not 0 <= start < len(data):
        raise ValueError(f"timeseries_dataset_from_array: `start_index` must be lower than the length of the "
                         f"data. Received: start_index={start}, for data of length {len(data)}")
    if not start < end <= len(data):
        raise ValueError(f"timeseries_dataset_from_array: `end_index` must be higher than `start_index` and at "
                         f"most the length of the data. Received: start_index={start}, end_index={end}, for "
                         f"data of length {len(data)}")
    count = end - start - (length - 1) * rate
    if targets is not None:
        targets = np.asarray(targets.numpy() if hasattr(targets, "numpy") else targets)
        count = min(count, len(targets))
    positions = start + np.arange(0, max(count, 0), stride, dtype=np.int64)
    if shuffle:
        rng = np.random.RandomState(np.random.randint(1_000_000) if seed is None else seed)
        rng.shuffle(positions)
    steps = tf.constant(np.arange(length, dtype=np.int64) * rate)
    series = tf.constant(data)
    labels = None if targets is None else tf.constant(targets)

    def window(p):
        sequences = tf.gather(series, tf.expand_dims(p, -1) + steps)
        return sequences if labels is None else (sequences, tf.gather(labels, p))

    ds = tf.data.Dataset.from_tensor_slices(positions)
    if shuffle:
        ds = ds.shuffle(batch_size * 8 if batch_size is not None else 1024, seed=seed)
    if batch_size is not None:
        ds = ds.batch(batch_size)
    return ds.map(window).prefetch(tf.data.AUTOTUNE)
