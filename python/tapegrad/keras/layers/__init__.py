"""keras.layers: the layer classes."""
from tapegrad.keras.layers.base import InputSpec, Layer
from tapegrad.keras.layers.core import Activation, Dense, Flatten, InputLayer, KerasInput
from tapegrad.keras.layers.dropout import Dropout
from tapegrad.keras.layers.normalization import BatchNormalization

__all__ = ["Layer", "InputSpec", "Dense", "Activation", "Flatten", "InputLayer", "Input", "Dropout",
           "BatchNormalization"]
from tapegrad.keras._functional import Input, KerasTensor  # noqa: E402 -- needs InputLayer
