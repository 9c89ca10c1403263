"""tf.data.experimental: the names TF still keeps here (AUTOTUNE, cardinality and its constants)."""
from tapegrad.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]


def cardinality(dataset):
    """``dataset.cardinality()``: an int64 scalar, -1 for infinite, -2 for unknown."""
    return dataset.cardinality()
