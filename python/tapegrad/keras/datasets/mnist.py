"""keras.datasets.mnist: 70,000 28x28 grayscale digits (Keras's mnist.npz)."""
import numpy as np

from tapegrad.keras.datasets._files import KERAS_ORIGIN, get_file

__all__ = ["load_data"]

_SHA256 = "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1"


def load_data(path="mnist.npz"):
    """Returns ``(x_train, y_train), (x_test, y_test)``: uint8 arrays of shapes (60000, 28, 28),
    (60000,), (10000, 28, 28), (10000,). ``path`` is the file name in ``~/.keras/datasets``."""
    path = get_file(path, KERAS_ORIGIN + "mnist.npz", file_hash=_SHA256)
    with np.load(path, allow_pickle=False) as f:
        return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])
