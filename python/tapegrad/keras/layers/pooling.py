"""keras.layers pooling (channels last): MaxPooling1D/2D, AveragePooling1D/2D and the global poolings."""
import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.conv import check_data_format, conv_output_length, normalize_padding, normalize_tuple

__all__ = ["MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D", "GlobalAveragePooling1D",
           "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "MaxPool1D", "MaxPool2D",
           "AvgPool1D", "AvgPool2D", "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D"]


class _Pooling(Layer):
    rank = 2
    pool = None  # tf.nn.max_pool2d, ...

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        cls = type(self).__name__
        check_data_format(data_format, cls)
        self.pool_size = normalize_tuple(pool_size, self.rank, cls, "pool_size")
        self.strides = self.pool_size if strides is None else normalize_tuple(strides, self.rank, cls, "strides")
        self.padding = normalize_padding(padding, cls)
        self.data_format = "channels_last"

    def _check(self, shape):
        if len(shape) != self.rank + 2:
            raise ValueError(f"{self.name}: expected input of rank {self.rank + 2} (batch, "
                             f"{'steps' if self.rank == 1 else 'rows, cols'}, channels), got shape {tuple(shape)}")

    def call(self, inputs):
        self._check(inputs.shape)
        return type(self).pool(inputs, self.pool_size, self.strides, self.padding.upper())

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        self._check(shape)
        return (shape[0],) + tuple(conv_output_length(n, k, self.padding, s) for n, k, s in
                                   zip(shape[1:-1], self.pool_size, self.strides)) + (shape[-1],)

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides, "padding": self.padding,
                "data_format": self.data_format}


class MaxPooling2D(_Pooling):
    """The maximum of each ``pool_size`` window (strides default to pool_size).

    >>> keras.layers.MaxPooling2D()(tf.ones([1, 4, 4, 3])).shape
    TensorShape([1, 2, 2, 3])
    """

    pool = staticmethod(tf.nn.max_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pooling):
    """The mean of each ``pool_size`` window (with "same", padding is not counted)."""

    pool = staticmethod(tf.nn.avg_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling1D(_Pooling):
    """The maximum of each ``pool_size`` window of (batch, steps, channels)."""

    rank = 1
    pool = staticmethod(tf.nn.max_pool1d)

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(_Pooling):
    """The mean of each ``pool_size`` window of (batch, steps, channels)."""

    rank = 1
    pool = staticmethod(tf.nn.avg_pool1d)

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format="channels_last", **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling(Layer):
    rank = 2
    reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        check_data_format(data_format, type(self).__name__)
        self.data_format = "channels_last"
        self.keepdims = keepdims

    def _check(self, shape):
        if len(shape) != self.rank + 2:
            raise ValueError(f"{self.name}: expected input of rank {self.rank + 2}, got shape {tuple(shape)}")

    def call(self, inputs, mask=None):
        self._check(inputs.shape)
        if mask is not None and type(self).reduce is tf.reduce_mean and self.rank == 1:
            # the mean over the unmasked steps (Keras 3; its other global poolings ignore a mask)
            keep = tf.cast(tf.expand_dims(tf.cast(mask, tf.bool), 2), inputs.dtype)
            return (tf.reduce_sum(inputs * keep, axis=1, keepdims=self.keepdims) /
                    tf.reduce_sum(keep, axis=1, keepdims=self.keepdims))
        return type(self).reduce(inputs, axis=list(range(1, self.rank + 1)), keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        self._check(shape)
        return (shape[0],) + ((1,) * self.rank if self.keepdims else ()) + (shape[-1],)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over rows and columns: (batch, rows, cols, channels) -> (batch, channels)."""

    reduce = staticmethod(tf.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over rows and columns: (batch, rows, cols, channels) -> (batch, channels)."""

    reduce = staticmethod(tf.reduce_max)


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over steps: (batch, steps, channels) -> (batch, channels)."""

    rank = 1
    reduce = staticmethod(tf.reduce_mean)

    def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
        super().__init__(data_format, keepdims, **kwargs)


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over steps: (batch, steps, channels) -> (batch, channels)."""

    rank = 1
    reduce = staticmethod(tf.reduce_max)

    def __init__(self, data_format="channels_last", keepdims=False, **kwargs):
        super().__init__(data_format, keepdims, **kwargs)


MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = MaxPooling1D, MaxPooling2D, AveragePooling1D, AveragePooling2D
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
