"""The batches ``adapt(data)`` reads: NumPy arrays, lists, tensors and tapegrad.data Datasets, as NumPy arrays."""
import numpy as np

import tapegrad as tf

__all__ = ["batches", "as_numpy"]


def as_numpy(value):
    """A tensor, StringTensor, list or array as a NumPy array (strings as str, not bytes)."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    a = np.asarray(value)
    if a.dtype.kind in "OS" and a.size and isinstance(a.flat[0], bytes):
        a = np.vectorize(lambda b: b.decode("utf-8"), otypes=[object])(a).astype(str)
    elif a.dtype.kind == "S":
        a = a.astype(str)
    return a


def batches(data, batch_size=None, steps=None):
    """The batches of ``data``: a Dataset's elements (its first component when they are tuples), or
    ``data`` itself in slices of ``batch_size`` (all of it when None)."""
    if isinstance(data, tf.data.Dataset):
        for i, element in enumerate(data):
            if steps is not None and i >= steps:
                return
            if isinstance(element, (tuple, list)):
                element = element[0]  # (x, y) pairs: Keras adapts on x
            yield as_numpy(element)
        return
    a = as_numpy(data)
    if batch_size is None or a.ndim == 0:
        yield a
        return
    for start in range(0, len(a), batch_size):
        yield a[start:start + batch_size]
