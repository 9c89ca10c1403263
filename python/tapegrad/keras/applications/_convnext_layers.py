"""The layers ConvNeXt needs beyond keras.layers: its depthwise convolution as Keras writes it (a Conv2D
with groups equal to its channels, kernel (kh, kw, 1, channels)) and Keras's LayerScale."""
import tapegrad as tf

from tapegrad.keras import initializers
from tapegrad.keras.layers import conv
from tapegrad.keras.layers.base import Layer

__all__ = ["Conv2D", "LayerScale"]


class Conv2D(conv.Conv2D):
    """keras.layers.Conv2D with ``groups`` equal to the input's and the output's channels: each channel
    convolved alone, with Keras's kernel layout, so Keras's weight files (by class name and by order) fit."""

    def __init__(self, filters, kernel_size, groups=1, **kwargs):
        super().__init__(filters, kernel_size, **kwargs)
        self.groups = groups

    def _kernel_shape(self, channels):
        if not channels == self.filters == self.groups:
            raise tf.errors.UnimplementedError(None, None, f"{self.name}: groups={self.groups} is supported only "
                                               f"when it equals the input channels ({channels}) and filters "
                                               f"({self.filters})")
        return self.kernel_size + (1, self.filters)

    def _convolve(self, inputs):
        # (kh, kw, 1, C) holds the same numbers in the same order as depthwise's (kh, kw, C, 1)
        kernel = tf.reshape(self.kernel, self.kernel_size + (self.filters, 1))
        return tf.nn.depthwise_conv2d(inputs, kernel, (1,) + self.strides + (1,), self._tf_padding(),
                                      dilations=self.dilation_rate)


class LayerScale(Layer):
    """Multiplies the channels by a learned vector ``gamma`` of ``projection_dim`` values, ``init_values`` at first."""

    def __init__(self, init_values, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.init_values, self.projection_dim = init_values, projection_dim

    def build(self, input_shape):
        self.gamma = self.add_weight(name="gamma", shape=(self.projection_dim,),
                                     initializer=initializers.Constant(self.init_values), trainable=True)
        self.built = True

    def call(self, x):
        return x * self.gamma

    def get_config(self):
        return {**super().get_config(), "init_values": self.init_values, "projection_dim": self.projection_dim}
