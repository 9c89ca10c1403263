"""keras.layers SpatialDropout1D/2D/3D: Dropout of whole feature maps (one mask entry per sample and channel)."""
import tapegrad as tf

from tapegrad.keras import backend
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.dropout import Dropout
from tapegrad.keras.layers.noise import check_unit

__all__ = ["SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"]


class _SpatialDropout(Dropout):
    """outputs = inputs * mask / (1 - rate) in training, with mask ~ Bernoulli(1 - rate) of shape
    (batch, 1, ..., 1, channels) (channels_last) or (batch, channels, 1, ..., 1); zeros for rate 1."""

    rank = None  # the input's rank: 3, 4 or 5

    def __init__(self, rate, data_format=None, seed=None, name=None, dtype=None):
        Layer.__init__(self, name=name, dtype=dtype)  # Dropout's own check refuses rate 1, which Keras allows here
        data_format = backend.image_data_format() if data_format is None else data_format
        if data_format not in ("channels_first", "channels_last"):
            raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                             f"Received: data_format={data_format}")
        self.rate, self.seed, self.data_format = check_unit(type(self).__name__, "rate", rate), seed, data_format
        spatial = [1] * (self.rank - 2)
        self.noise_shape = [None] + spatial + [None] if data_format == "channels_last" else [None, None] + spatial

    def call(self, inputs, training=False):
        if inputs.ndim != self.rank:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected "
                             f"ndim={self.rank}, found ndim={inputs.ndim}. Full shape received: {tuple(inputs.shape)}")
        if training and self.rate == 1:
            return tf.zeros_like(inputs)
        return super().call(inputs, training=training)

    def get_config(self):
        config = super().get_config()
        if "data_format" in config:  # the resolved format, as Keras (SpatialDropout1D has none)
            config["data_format"] = self.data_format
        return config


class SpatialDropout1D(_SpatialDropout):
    """SpatialDropout on [batch, steps, channels]: a channel is dropped at every step at once.

    Args:
      rate: the fraction of channels to drop, in [0, 1].
      seed: a seed for this layer's masks; None draws from the global generator (set_random_seed).
    """

    rank = 3

    def __init__(self, rate, seed=None, name=None, dtype=None):
        super().__init__(rate, "channels_last", seed=seed, name=name, dtype=dtype)


class SpatialDropout2D(_SpatialDropout):
    """SpatialDropout on [batch, rows, cols, channels] (or channels first): whole feature maps are dropped.

    Args:
      rate: the fraction of channels to drop, in [0, 1].
      data_format: "channels_last" or "channels_first"; None for keras.backend.image_data_format().
      seed: a seed for this layer's masks.
    """

    rank = 4


class SpatialDropout3D(_SpatialDropout):
    """SpatialDropout on [batch, dim1, dim2, dim3, channels] (or channels first): whole volumes are dropped."""

    rank = 5
