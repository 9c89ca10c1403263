"""keras.layers: the layer classes."""
from tapegrad.keras.layers.base import InputSpec, Layer
from tapegrad.keras.layers.core import Activation, Dense, Flatten, InputLayer, KerasInput
from tapegrad.keras.layers.dropout import Dropout
from tapegrad.keras.layers.noise import AlphaDropout, GaussianDropout, GaussianNoise
from tapegrad.keras.layers.spatial_dropout import SpatialDropout1D, SpatialDropout2D, SpatialDropout3D
from tapegrad.keras.layers.activity_regularization import ActivityRegularization
from tapegrad.keras.layers.normalization import BatchNormalization, GroupNormalization, LayerNormalization
from tapegrad.keras.layers.activation import ELU, LeakyReLU, PReLU, ReLU, Softmax
from tapegrad.keras.layers.attention import MultiHeadAttention
from tapegrad.keras.layers.dot_attention import Attention
from tapegrad.keras.layers.additive_attention import AdditiveAttention
from tapegrad.keras.layers.axes import Permute, RepeatVector
from tapegrad.keras.layers.embedding import Embedding
from tapegrad.keras.layers.lambda_layer import Lambda
from tapegrad.keras.layers.masking import Masking
from tapegrad.keras.layers.merge import Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract
from tapegrad.keras.layers.wrappers import TimeDistributed
from tapegrad.keras.layers.wrapper import Wrapper
from tapegrad.keras.layers.identity import Identity
from tapegrad.keras.layers.norm_scaling import RMSNormalization, UnitNormalization
from tapegrad.keras.layers.merge_functions import (add, average, concatenate, deserialize, dot, maximum, minimum,
                                                   multiply, serialize, subtract)
from tapegrad.keras.layers.tfsm_layer import TFSMLayer
from tapegrad.keras.layers.conv import *  # noqa: F401,F403
from tapegrad.keras.layers.pooling import *  # noqa: F401,F403
from tapegrad.keras.layers.reshaping import *  # noqa: F401,F403
from tapegrad.keras.layers import conv as _conv, pooling as _pooling, reshaping as _reshaping
from tapegrad.keras.layers.preprocessing import *  # noqa: F401,F403

__all__ = ["Layer", "InputSpec", "Dense", "Activation", "Flatten", "InputLayer", "Input", "Dropout",
           "AlphaDropout", "GaussianNoise", "GaussianDropout", "SpatialDropout1D", "SpatialDropout2D",
           "SpatialDropout3D", "ActivityRegularization", "BatchNormalization", "LayerNormalization",
           "GroupNormalization", "ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax", "Permute", "RepeatVector",
           "Embedding", "Lambda", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "Dot", "TimeDistributed", "MultiHeadAttention", "Attention", "AdditiveAttention",
           "Masking", "TFSMLayer", "Wrapper", "Identity", "UnitNormalization", "RMSNormalization", "add",
           "subtract", "multiply", "average", "maximum", "minimum", "concatenate", "dot", "serialize",
           "deserialize"] + _conv.__all__ + _pooling.__all__ + \
    _reshaping.__all__ + \
    ["Rescaling", "Normalization", "CategoryEncoding", "Discretization", "Hashing", "Resizing", "CenterCrop",
     "RandomFlip", "RandomCrop", "RandomContrast", "RandomBrightness", "RandomRotation", "RandomZoom",
     "RandomTranslation", "StringLookup", "IntegerLookup", "TextVectorization"]
from tapegrad.keras.layers.recurrent import (GRU, LSTM, RNN, Bidirectional, GRUCell, LSTMCell, SimpleRNN,  # noqa: E402
                                             SimpleRNNCell)

__all__ += ["RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU", "Bidirectional"]
from tapegrad.keras._functional import Input, KerasTensor  # noqa: E402 -- needs InputLayer
