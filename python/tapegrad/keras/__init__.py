"""tapegrad.keras: Keras-style layers, models, losses, metrics and optimizers over tapegrad's ops.

    from tapegrad import keras
"""
from tapegrad.keras import backend  # noqa: F401  (first: layers read its floatx)
from tapegrad.keras import (activations, callbacks, constraints, datasets, initializers, layers, losses,  # noqa: F401
                            metrics, models, optimizers, preprocessing, regularizers, saving, utils)
from tapegrad.keras.layers import Input, KerasTensor  # noqa: F401
from tapegrad.keras.models import Model, Sequential  # noqa: F401
