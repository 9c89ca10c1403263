"""The batches fit / evaluate / predict run over: slices of NumPy arrays, or a tf.data.Dataset's elements.

A source gives ``steps`` (batches per epoch, None when a dataset's length is unknown) and
``epoch()``, the batches of one epoch as (x, y, sample_weight) triples. A dataset's element is
``(x, y)``, ``(x, y, sample_weight)`` or ``x`` alone, as in Keras; the dataset batches itself, so
``batch_size`` must not be given. With ``steps_per_epoch`` the iterator carries on across epochs
(an epoch takes that many batches); one that runs out ends the epoch early with Keras's warning
and the next epoch starts the dataset again. An epoch with no batch at all (0 samples, an empty
dataset) gives that warning too, as Keras's does; evaluate then returns [] (Keras's empty logs).
"""
import warnings

import numpy as np

import tapegrad as tf
from tapegrad.keras import _multi_output

__all__ = ["is_dataset", "ArrayBatches", "DatasetBatches", "unpack"]


def _warn_ran_out():
    """Keras's warning when a pass over the data ends before the batches it expected (or with none)."""
    warnings.warn("Your input ran out of data; interrupting training. Make sure that your dataset or generator "
                  "can generate at least `steps_per_epoch * epochs` batches. You may need to use the `.repeat()` "
                  "function when building your dataset.", UserWarning, stacklevel=4)


def is_dataset(x):
    return isinstance(x, tf.data.Dataset)


def unpack(element):
    """(x, y, sample_weight) of one dataset element, as Keras's unpack_x_y_sample_weight."""
    if isinstance(element, list):
        element = tuple(element)
    if not isinstance(element, tuple):
        return element, None, None
    if len(element) == 1:
        return element[0], None, None
    if len(element) == 2:
        return element[0], element[1], None
    if len(element) == 3:
        return element
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                     f"found a tuple of {len(element)} elements")


class ArrayBatches:
    def __init__(self, x, y, sample_weight, batch_size, shuffle=False):
        self.x, self.y, self.sw, self.batch_size, self.shuffle = x, y, sample_weight, batch_size, shuffle
        self.steps = -(-_multi_output.batch_size(x) // batch_size)

    def epoch(self):
        n = _multi_output.batch_size(self.x)
        if n == 0:
            _warn_ran_out()
            return
        order = np.random.permutation(n) if self.shuffle else np.arange(n)
        for start in range(0, n, self.batch_size):
            idx = order[start:start + self.batch_size]
            yield (_multi_output.take(self.x, idx), None if self.y is None else _multi_output.take(self.y, idx),
                   None if self.sw is None else self.sw[idx])


class DatasetBatches:
    def __init__(self, dataset, y=None, batch_size=None, steps=None, what="fit", validation_split=0.0,
                 sample_weight=None):
        if y is not None:
            raise ValueError("When providing `x` as a tf.data.Dataset, `y` should not be passed. Instead, the "
                             "targets should be included as part of the tf.data.Dataset.")
        if batch_size is not None:
            raise ValueError(f"{what}: The `batch_size` argument must not be specified for the given input type "
                             f"(a tf.data.Dataset, which batches itself). Received batch_size: {batch_size}")
        if validation_split:
            raise ValueError("Argument `validation_split` is only supported for tensors or NumPy arrays. Found "
                             "incompatible type in the input: a tf.data.Dataset")
        if sample_weight is not None:
            raise ValueError("`sample_weight` argument is not supported when using a tf.data.Dataset: include the "
                             "weights in the dataset's elements as (x, y, sample_weight)")
        self.dataset = dataset
        self.steps_per_epoch = steps
        n = int(dataset.cardinality())
        if steps is None and n == tf.data.INFINITE_CARDINALITY:
            raise ValueError(f"{what}: the dataset is infinite: give `steps_per_epoch` (fit) or `steps` "
                             f"(evaluate, predict) to say how many batches make an epoch")
        self.steps = steps if steps is not None else (n if n >= 0 else None)
        self.weigh = None  # fit's class_weight: y batch -> sample weights
        self._iterator = None

    def _batch(self, element):
        x, y, sw = unpack(element)
        if self.weigh is not None:
            cw = self.weigh(y)
            sw = cw if sw is None else np.asarray(sw) * cw
        return x, y, sw

    def epoch(self):
        if self.steps_per_epoch is None:
            empty = True
            for element in self.dataset:
                empty = False
                yield self._batch(element)
            if empty:
                _warn_ran_out()
            return
        for _ in range(self.steps_per_epoch):
            if self._iterator is None:
                self._iterator = iter(self.dataset)
            try:
                element = next(self._iterator)
            except StopIteration:
                self._iterator = None
                _warn_ran_out()
                return
            yield self._batch(element)
