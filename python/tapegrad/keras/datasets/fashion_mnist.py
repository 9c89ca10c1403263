"""keras.datasets.fashion_mnist: 70,000 28x28 grayscale clothing images (the four IDX .gz files in
``~/.keras/datasets/fashion-mnist``)."""
import gzip
import os

import numpy as np

from tapegrad.keras.datasets._files import KERAS_ORIGIN, get_file

__all__ = ["load_data"]

_FILES = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
          "t10k-images-idx3-ubyte.gz"]


def _read(path, offset):
    """An IDX file's bytes after its header (8 bytes for labels, 16 for images)."""
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=offset)


def load_data():
    """Returns ``(x_train, y_train), (x_test, y_test)``: uint8 arrays of shapes (60000, 28, 28),
    (60000,), (10000, 28, 28), (10000,); labels 0-9 (T-shirt/top ... ankle boot)."""
    paths = [get_file(name, KERAS_ORIGIN + name, cache_subdir=os.path.join("datasets", "fashion-mnist"))
             for name in _FILES]
    y_train, y_test = _read(paths[0], 8), _read(paths[2], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
