"""tapegrad.keras: Keras-style layers, models, losses, metrics and optimizers over tapegrad's ops.

    from tapegrad import keras
"""
from tapegrad.keras import (activations, callbacks, constraints, initializers, layers, losses, metrics,  # noqa: F401
                            models, optimizers, regularizers, saving, utils)
from tapegrad.keras.layers import Input, KerasTensor  # noqa: F401
from tapegrad.keras.models import Model, Sequential  # noqa: F401

backend = None  # not provided: tapegrad itself is the backend
