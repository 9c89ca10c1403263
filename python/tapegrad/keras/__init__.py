"""tapegrad.keras: Keras-style layers, models, losses, metrics and optimizers over tapegrad's ops.

    from tapegrad import keras
"""
from tapegrad.keras import backend  # noqa: F401  (first: layers read its floatx)
from tapegrad.keras import (activations, callbacks, constraints, datasets, initializers, layers, losses,  # noqa: F401
                            metrics, models, ops, optimizers, preprocessing, random, regularizers, saving,
                            utils)
from tapegrad.keras.layers import Input, KerasTensor  # noqa: F401
from tapegrad.keras.models import Model, Sequential  # noqa: F401

__version__ = "3.15.1"  # the Keras release whose API this keras follows (keras.__version__ there)

from tapegrad.keras import applications  # noqa: F401  (last: its networks are made of layers and models)


def version():
    """The Keras version this keras follows, as ``keras.version()`` gives it."""
    return __version__
