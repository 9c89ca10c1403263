"""tapegrad.keras: Keras-style layers, models, losses, metrics and optimizers over tapegrad's ops.

    from tapegrad import keras
"""
from tapegrad.keras import backend  # noqa: F401  (first: layers read its floatx)
from tapegrad.keras import (activations, callbacks, constraints, datasets, dtype_policies, initializers,  # noqa: F401
                            layers, losses, metrics, models, ops, optimizers, preprocessing, random, regularizers,
                            saving, utils)
from tapegrad.keras.dtype_policies import DTypePolicy, FloatDTypePolicy  # noqa: F401
from tapegrad._install import lazy_module as _lazy

# loaded at its first use: it holds LossScaleOptimizer, and the optimizers import the layers' policies
mixed_precision = _lazy("tapegrad.keras.mixed_precision")
del _lazy
from tapegrad.keras.layers import Input, KerasTensor  # noqa: F401
from tapegrad.keras.models import Model, Sequential  # noqa: F401

__version__ = "3.15.1"  # the Keras release whose API this keras follows (keras.__version__ there)

from tapegrad.keras import applications  # noqa: F401  (last: its networks are made of layers and models)


def version():
    """The Keras version this keras follows, as ``keras.version()`` gives it."""
    return __version__
