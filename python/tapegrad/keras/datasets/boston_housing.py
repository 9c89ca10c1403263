"""keras.datasets.boston_housing: 506 houses, 13 features, prices in k$ (Keras's boston_housing.npz)."""
import numpy as np

from tapegrad.keras.datasets._files import KERAS_ORIGIN, get_file

__all__ = ["load_data"]

_SHA256 = "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5"


def load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Returns ``(x_train, y_train), (x_test, y_test)`` after shuffling with ``seed`` (the same split
    as Keras's): the last ``test_split`` of the shuffled rows are the test set."""
    if not 0 <= test_split < 1:
        raise ValueError(f"boston_housing.load_data: test_split must be in [0, 1), got {test_split}")
    path = get_file(path, KERAS_ORIGIN + "boston_housing.npz", file_hash=_SHA256)
    with np.load(path, allow_pickle=False) as f:
        x, y = f["x"], f["y"]
    order = np.arange(len(x))
    np.random.RandomState(seed).shuffle(order)
    x, y = x[order], y[order]
    cut = int(len(x) * (1 - test_split))
    return (x[:cut], y[:cut]), (x[cut:], y[cut:])
