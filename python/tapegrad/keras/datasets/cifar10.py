"""keras.datasets.cifar10: 60,000 32x32 colour images in 10 classes (the Python pickles of
cifar-10-python.tar.gz, as Keras caches them)."""
import os

import numpy as np

from tapegrad.keras import backend
from tapegrad.keras.datasets._files import ArraysOnlyUnpickler, datasets_dir, get_file

__all__ = ["load_data"]

_ORIGIN = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
_SHA256 = "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce"
# Keras 3 extracts to cifar-10-batches-py-target/cifar-10-batches-py, Keras 2 to cifar-10-batches-py
_LAYOUTS = [("cifar-10-batches-py-target", "cifar-10-batches-py"), ("cifar-10-batches-py",)]


def _load_batch(path):
    with open(path, "rb") as f:
        raw = ArraysOnlyUnpickler(f, encoding="bytes").load()
    d = {k.decode("utf8") if isinstance(k, bytes) else k: v for k, v in raw.items()}
    return np.asarray(d["data"], np.uint8).reshape(-1, 3, 32, 32), np.asarray(d["labels"], np.uint8)


def _batches_dir():
    """The batches' directory in whichever Keras layout is cached, else downloaded in Keras 3's."""
    for layout in _LAYOUTS:
        path = os.path.join(datasets_dir(), *layout)
        if os.path.isdir(path):
            return path
    root = get_file(_LAYOUTS[0][0], _ORIGIN, extract=True, file_hash=_SHA256)
    return os.path.join(root, _LAYOUTS[0][1])


def load_data():
    """Returns ``(x_train, y_train), (x_test, y_test)``: uint8 images (50000, 32, 32, 3) and
    (10000, 32, 32, 3) (channels first under image_data_format "channels_first") and uint8 labels
    of shapes (50000, 1) and (10000, 1)."""
    path = _batches_dir()
    parts = [_load_batch(os.path.join(path, f"data_batch_{i}")) for i in range(1, 6)]
    x_train = np.concatenate([x for x, _ in parts])
    y_train = np.concatenate([y for _, y in parts]).reshape(-1, 1)
    x_test, y_test = _load_batch(os.path.join(path, "test_batch"))
    y_test = y_test.reshape(-1, 1)
    if backend.image_data_format() == "channels_last":
        x_train, x_test = x_train.transpose(0, 2, 3, 1), x_test.transpose(0, 2, 3, 1)
    return (x_train, y_train), (x_test, y_test)
