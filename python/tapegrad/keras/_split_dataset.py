"""keras.utils.split_dataset: a dataset or arrays cut into a left and a right tf.data.Dataset.

As Keras, the samples are first gathered into a list (a dataset is iterated once), optionally
shuffled (Python's generator of ``seed``, so the order is Keras's), and each part is rebuilt with
from_tensor_slices: the right part is the last ``right_size`` samples.
"""
import random

import numpy as np

import tapegrad as tf

__all__ = ["split_dataset"]


def _samples(dataset):
    """The dataset's samples as a list (tuples for a tuple or list of arrays)."""
    if isinstance(dataset, tf.data.Dataset):
        return list(dataset.as_numpy_iterator())
    if isinstance(dataset, (list, tuple)):
        columns = [np.asarray(a.numpy() if hasattr(a, "numpy") else a) for a in dataset]
        if len({len(c) for c in columns}) > 1:
            raise ValueError("split_dataset: the arrays of `dataset` must all have the same length. Received "
                             f"lengths {[len(c) for c in columns]}")
        return list(zip(*columns))
    if isinstance(dataset, (np.ndarray, tf.Tensor)):
        return list(np.asarray(dataset))
    raise TypeError(f"Unsupported dataset type: {type(dataset)}")


def _size(value, name, total):
    """A size given as a fraction in (0, 1) or a count in [1, total), checked as Keras; None stays."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"Invalid `{name}` Type. Expected: int or float or None, Received: type({name})="
                        f"{type(value)}.  ")
    fraction = isinstance(value, (float, np.floating))
    if (fraction and not 0 < value < 1) or (not fraction and not 0 < value < total):
        raise ValueError(f"`{name}` should be either a positive integer smaller than {total}, or a float within the "
                         f"range `[0, 1]`. Received: {name}={value}")
    return value


def _counts(left_size, right_size, total):
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")
    left, right = _size(left_size, "left_size", total), _size(right_size, "right_size", total)
    if isinstance(left, float) and isinstance(right, float) and left + right > 1:
        raise ValueError("The sum of `left_size` and `right_size` is greater than 1. It must be less than or equal "
                         "to 1.")
    left = round(left * total) if isinstance(left, float) else left
    right = round(right * total) if isinstance(right, float) else right
    left = total - right if left is None else int(left)
    right = total - left if right is None else int(right)
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the total number of "
                         f"samples {total}. Received: left_size + right_size = {left + right}")
    for name, count in (("left", left), ("right", right)):
        if count == 0:
            raise ValueError(f"split_dataset: the {name} part would be empty (left_size={left_size}, "
                             f"right_size={right_size}, {total} samples)")
    return left, right


def _rebuild(samples):
    if samples and isinstance(samples[0], tuple):
        return tf.data.Dataset.from_tensor_slices(tuple(np.asarray(column) for column in zip(*samples)))
    return tf.data.Dataset.from_tensor_slices(np.asarray(samples) if samples else samples)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None, preferred_backend=None):
    """(left, right) datasets of ``dataset`` (a tf.data.Dataset, an array or tensor, or a tuple/list
    of arrays of one length): ``left_size`` and ``right_size`` are fractions of the samples or counts;
    one of them may be None (the rest of the samples). ``shuffle`` permutes the samples first."""
    samples = _samples(dataset)
    left, right = _counts(left_size, right_size, len(samples))
    if shuffle:
        random.Random(random.randint(0, int(1e6)) if seed is None else seed).shuffle(samples)
    return _rebuild(samples[:left]), _rebuild(samples[len(samples) - right:])
