"""keras.datasets: the classic datasets, read from (and downloaded into) Keras's own cache,
``$KERAS_HOME/datasets`` or ``~/.keras/datasets``, in Keras's file layout."""
from tapegrad.keras.datasets import boston_housing, cifar10, fashion_mnist, imdb, mnist

__all__ = ["boston_housing", "cifar10", "fashion_mnist", "imdb", "mnist"]
