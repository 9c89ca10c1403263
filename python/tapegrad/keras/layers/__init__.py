"""keras.layers: the layer classes."""
from tapegrad.keras.layers.base import InputSpec, Layer
from tapegrad.keras.layers.core import Activation, Dense, Flatten, Input, InputLayer, KerasInput
from tapegrad.keras.layers.dropout import Dropout
from tapegrad.keras.layers.normalization import BatchNormalization
from tapegrad.keras.layers.conv import *  # noqa: F401,F403
from tapegrad.keras.layers.pooling import *  # noqa: F401,F403
from tapegrad.keras.layers.reshaping import *  # noqa: F401,F403
from tapegrad.keras.layers import conv as _conv, pooling as _pooling, reshaping as _reshaping

__all__ = ["Layer", "InputSpec", "Dense", "Activation", "Flatten", "InputLayer", "Input", "Dropout",
           "BatchNormalization"] + _conv.__all__ + _pooling.__all__ + _reshaping.__all__
