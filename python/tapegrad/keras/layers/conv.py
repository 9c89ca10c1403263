"""keras.layers convolutions (channels last): Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D."""
import tapegrad as tf

from tapegrad.keras import activations, constraints, initializers, regularizers
from tapegrad.keras.layers.base import Layer

__all__ = ["Conv1D", "Conv2D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D", "Convolution1D",
           "Convolution2D", "Convolution2DTranspose", "SeparableConvolution2D"]


def normalize_tuple(value, n, layer, arg):
    """An int or n ints as a tuple of n positive ints; a ValueError naming the layer otherwise."""
    values = (value,) * n if isinstance(value, int) else tuple(value) if isinstance(value, (list, tuple)) else None
    if values is None or len(values) != n or not all(isinstance(v, int) and v > 0 for v in values):
        raise ValueError(f"{layer}: {arg} must be an int or a tuple of {n} positive ints, got {value!r}")
    return values


def normalize_padding(padding, layer, allowed=("valid", "same")):
    p = padding.lower() if isinstance(padding, str) else padding
    if p not in allowed:
        raise ValueError(f"{layer}: padding must be one of {', '.join(map(repr, allowed))}, got {padding!r}")
    return p


def check_data_format(data_format, layer):
    if data_format not in (None, "channels_last"):
        raise tf.errors.UnimplementedError(f"{layer}: data_format={data_format!r} is not supported; only "
                                           "'channels_last' (NHWC)")


def check_depth_multiplier(value, layer):
    if not isinstance(value, int) or value <= 0:
        raise ValueError(f"{layer}: depth_multiplier must be a positive int, got {value!r}")
    return value


def conv_output_length(length, k, padding, stride, dilation=1):
    """The output length of a convolution or pooling window along one axis (None stays None)."""
    if length is None:
        return None
    k = (k - 1) * dilation + 1
    if padding == "same":
        return -(-length // stride)
    if padding == "causal":
        return -(-length // stride)
    return max((length - k + stride) // stride, 0)


def deconv_output_length(length, k, padding, output_padding, stride, dilation=1):
    """The output length of a transposed convolution along one axis (Keras's rule)."""
    if length is None:
        return None
    k = (k - 1) * dilation + 1
    if output_padding is None:
        return length * stride + max(k - stride, 0) if padding == "valid" else length * stride
    pad = k // 2 if padding == "same" else 0
    return (length - 1) * stride + k - 2 * pad + output_padding


class _Conv(Layer):
    """The shared machinery: weights, bias, activation, activity regularizer, input checks, config."""

    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1, groups=1,
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        cls = type(self).__name__
        if filters is not None and (not isinstance(filters, int) or filters <= 0):
            raise ValueError(f"{cls}: filters must be a positive int, got {filters!r}")
        if groups != 1:
            raise tf.errors.UnimplementedError(f"{cls}: groups={groups!r} is not supported (only 1)")
        check_data_format(data_format, cls)
        self.filters = filters
        self.kernel_size = normalize_tuple(kernel_size, self.rank, cls, "kernel_size")
        self.strides = normalize_tuple(strides, self.rank, cls, "strides")
        self.padding = normalize_padding(padding, cls, ("valid", "same", "causal") if self.rank == 1 else
                                         ("valid", "same"))
        self.data_format = "channels_last"
        self.dilation_rate = normalize_tuple(dilation_rate, self.rank, cls, "dilation_rate")
        self.groups = groups
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def _build_depthwise_kernel(self, input_shape):
        """DepthwiseConv2D's and SeparableConv2D's depthwise_kernel (kh, kw, channels, depth_multiplier),
        with the kernel_* options; returns the input's channel count."""
        channels = self._in_channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            shape=self.kernel_size + (channels, self.depth_multiplier), initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer, constraint=self.kernel_constraint, name="depthwise_kernel")
        return channels

    def _channels(self, input_shape):
        shape = tuple(input_shape)
        if len(shape) != self.rank + 2:
            raise ValueError(f"{self.name}: expected input of rank {self.rank + 2} (batch, "
                             f"{'steps' if self.rank == 1 else 'rows, cols'}, channels), got shape {shape}")
        if shape[-1] is None:
            raise ValueError(f"{self.name}: the channel axis of the input must be known, got shape {shape}")
        return shape[-1]

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels, self.filters)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self._in_channels = channels
        self.kernel = self.add_weight(shape=self._kernel_shape(channels), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        self.bias = self.add_weight(shape=(self._out_channels(),), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None
        self.built = True

    def _out_channels(self):
        return self.filters

    def _check_call(self, inputs):
        shape = tuple(inputs.shape)
        if len(shape) != self.rank + 2 or shape[-1] != self._in_channels:
            raise ValueError(f"{self.name}: expected input of shape (batch, ..., {self._in_channels}) and rank "
                             f"{self.rank + 2}, got shape {shape}")

    def call(self, inputs):
        self._check_call(inputs)
        out = self._convolve(inputs)
        if self.bias is not None:
            out = out + self.bias
        out = self.activation(out)
        if self.activity_regularizer is not None:
            self.add_loss(self.activity_regularizer(out) / out.shape[0])
        return out

    def _tf_padding(self):
        return self.padding.upper()

    def _convolve(self, inputs):
        if self.rank == 1:
            if self.padding == "causal":  # pad the past only, then a valid convolution
                inputs = tf.pad(inputs, [[0, 0], [self.dilation_rate[0] * (self.kernel_size[0] - 1), 0], [0, 0]])
                return tf.nn.conv1d(inputs, self.kernel, self.strides, "VALID", dilations=self.dilation_rate)
            return tf.nn.conv1d(inputs, self.kernel, self.strides, self._tf_padding(), dilations=self.dilation_rate)
        return tf.nn.conv2d(inputs, self.kernel, self.strides, self._tf_padding(), dilations=self.dilation_rate)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        self._channels(shape)
        spatial = tuple(conv_output_length(n, k, self.padding, s, d) for n, k, s, d in
                        zip(shape[1:-1], self.kernel_size, self.strides, self.dilation_rate))
        return (shape[0],) + spatial + (self._out_channels(),)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, "groups": self.groups,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias}


class Conv1D(_Conv):
    """1-D convolution over (batch, steps, channels): kernel (kernel_size, channels, filters).

    Args:
      filters: output channels. kernel_size, strides, dilation_rate: an int or a 1-tuple.
      padding: "valid", "same" or "causal" (the output at step t sees steps <= t only).
      activation, use_bias, *_initializer, *_regularizer, *_constraint: as for Dense.

    >>> keras.layers.Conv1D(4, 3)(tf.ones([2, 10, 3])).shape
    TensorShape([2, 8, 4])
    """

    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format="channels_last", dilation_rate=1,
                 groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over (batch, rows, cols, channels): kernel (kh, kw, channels, filters).

    Formula:
    ```
    out[b, i, j, o] = activation(sum_{di, dj, c} in[b, i*s + di*d, j*s + dj*d, c] * kernel[di, dj, c, o] + bias[o])
    ```

    Args:
      filters: output channels. kernel_size, strides, dilation_rate: an int or a 2-tuple.
      padding: "valid" (no padding) or "same" (output size ceil(input / stride)).
      activation, use_bias, *_initializer, *_regularizer, *_constraint: as for Dense.

    >>> keras.layers.Conv2D(8, 3, padding="same")(tf.ones([2, 5, 5, 3])).shape
    TensorShape([2, 5, 5, 8])
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 groups=1, activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, groups, activation,
                         use_bias, **kwargs)


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution (the gradient of Conv2D with respect to its input): kernel
    (kh, kw, filters, channels); output size ``input * stride`` for "same", ``input * stride +
    max(k - stride, 0)`` for "valid", or set by ``output_padding``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", output_padding=None, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, 1, activation, use_bias,
                         **kwargs)
        if output_padding is not None:
            output_padding = (output_padding,) * 2 if isinstance(output_padding, int) else tuple(output_padding)
            if len(output_padding) != 2 or not all(isinstance(p, int) and 0 <= p < s
                                                   for p, s in zip(output_padding, self.strides)):
                raise ValueError(f"Conv2DTranspose: output_padding must be 2 ints >= 0 and smaller than strides "
                                 f"{self.strides}, got {output_padding!r}")
        self.output_padding = output_padding

    def _kernel_shape(self, channels):
        return self.kernel_size + (self.filters, channels)

    def _spatial_out(self, rows, cols):
        op = self.output_padding or (None, None)
        return tuple(deconv_output_length(n, k, self.padding, p, s, d) for n, k, p, s, d in
                     zip((rows, cols), self.kernel_size, op, self.strides, self.dilation_rate))

    def _convolve(self, inputs):
        b, rows, cols, _ = inputs.shape
        out_rows, out_cols = self._spatial_out(rows, cols)
        return tf.nn.conv2d_transpose(inputs, self.kernel, [b, out_rows, out_cols, self.filters], self.strides,
                                      self._tf_padding(),
                                      dilations=self.dilation_rate)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        self._channels(shape)
        return (shape[0],) + self._spatial_out(shape[1], shape[2]) + (self.filters,)

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        return {**config, "output_padding": self.output_padding}


class DepthwiseConv2D(_Conv):
    """Each input channel convolved with its own ``depth_multiplier`` filters: depthwise_kernel
    (kh, kw, channels, depth_multiplier); output channels ``channels * depth_multiplier``."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=(1, 1), activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(None, kernel_size, strides, padding, data_format, dilation_rate, 1, activation, use_bias,
                         depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)
        self.depth_multiplier = check_depth_multiplier(depth_multiplier, "DepthwiseConv2D")

    def build(self, input_shape):
        channels = self._build_depthwise_kernel(input_shape)
        self.bias = self.add_weight(shape=(channels * self.depth_multiplier,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None
        self.built = True

    def _out_channels(self):
        return getattr(self, "_in_channels", None) and self._in_channels * self.depth_multiplier

    def _convolve(self, inputs):
        return tf.nn.depthwise_conv2d(inputs, self.depthwise_kernel, (1,) + self.strides + (1,), self._tf_padding(),
                                      dilations=self.dilation_rate)

    def compute_output_shape(self, input_shape):
        self._in_channels = self._channels(input_shape)
        return super().compute_output_shape(input_shape)

    def get_config(self):
        config = super().get_config()
        del config["filters"], config["groups"]
        return {**config, "depth_multiplier": self.depth_multiplier}


class SeparableConv2D(_Conv):
    """A depthwise convolution (depthwise_kernel (kh, kw, channels, depth_multiplier)) followed by a
    1x1 convolution (pointwise_kernel (1, 1, channels * depth_multiplier, filters))."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, 1, activation, use_bias,
                         depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)
        self.depth_multiplier = check_depth_multiplier(depth_multiplier, "SeparableConv2D")
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._build_depthwise_kernel(input_shape)
        self.pointwise_kernel = self.add_weight(
            shape=(1, 1, channels * self.depth_multiplier, self.filters), initializer=self.pointwise_initializer,
            regularizer=self.pointwise_regularizer, constraint=self.pointwise_constraint, name="pointwise_kernel")
        self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                    name="bias") if self.use_bias else None
        self.built = True

    def _convolve(self, inputs):
        return tf.nn.separable_conv2d(inputs, self.depthwise_kernel, self.pointwise_kernel, (1,) + self.strides + (1,),
                                      self._tf_padding(), dilations=self.dilation_rate)

    def get_config(self):
        config = super().get_config()
        del config["groups"]
        return {**config, "depth_multiplier": self.depth_multiplier}


Convolution1D, Convolution2D, Convolution2DTranspose, SeparableConvolution2D = Conv1D, Conv2D, Conv2DTranspose, \
    SeparableConv2D
