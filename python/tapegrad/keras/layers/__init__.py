"""keras.layers: the layer classes."""
from tapegrad.keras.layers.base import InputSpec, Layer
from tapegrad.keras.layers.core import Activation, Dense, Flatten, Input, InputLayer, KerasInput
from tapegrad.keras.layers.dropout import Dropout
from tapegrad.keras.layers.normalization import BatchNormalization

__all__ = ["Layer", "InputSpec", "Dense", "Activation", "Flatten", "InputLayer", "Input", "Dropout",
           "BatchNormalization"]
from tapegrad.keras.layers.recurrent import (GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN,  # noqa: E402
                                             SimpleRNNCell)

__all__ += ["RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU", "Bidirectional"]
