"""tf.nn convolutions and pooling (NHWC / NWC): TF's arguments normalised to the registry ops' attributes.

The registry ops (cpp/ops/conv.cpp, cpp/ops/pooling.cpp) are 2-D; the 1-D forms run them on a
height-1 image, as TF does. Attributes: strides and dilations [h, w], padding "SAME" / "VALID" /
"EXPLICIT" with explicit_paddings [top, bottom, left, right], ksize [h, w] for pooling.
"""
from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import expand_dims
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import Tensor, convert_to_tensor

__all__ = ["conv2d", "conv1d", "conv2d_transpose", "conv1d_transpose", "conv_transpose", "depthwise_conv2d",
           "separable_conv2d", "convolution", "max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool",
           "avg_pool", "bias_add"]

_ops = {n: _core.op(n) for n in ("Conv2D", "Conv2DBackpropInput", "DepthwiseConv2dNative", "MaxPool", "AvgPool")}


def _check_format(fn, data_format, allowed):
    if data_format is not None and data_format not in allowed:
        raise errors.UnimplementedError(
            f"{fn}: data_format={data_format!r} is not supported; only {' or '.join(map(repr, allowed))} (channels last)")


def _window(value, n, fn, arg):
    """TF's int / [v] / [v] * n / [1, v.., 1] forms of strides, dilations or ksize as n ints."""
    if isinstance(value, Tensor):
        value = value.numpy().tolist()
    v = [convert_arg(value, "int", fn, arg)] if not isinstance(value, (list, tuple)) else [convert_arg(d, "int", fn, arg) for d in value]
    if len(v) == 1:
        v = v * n
    elif len(v) == n + 2:
        if v[0] != 1 or v[-1] != 1:
            raise errors.UnimplementedError(
                f"{fn}: {arg} {v} must be 1 in the batch and channel dimensions (the current implementation "
                "does not support them)")
        v = v[1:-1]
    if len(v) != n:
        raise errors.InvalidArgumentError(f"{fn}: {arg} must have 1, {n} or {n + 2} entries, got {v}")
    if any(d < 1 for d in v):
        raise errors.InvalidArgumentError(f"{fn}: {arg} must be positive, got {v}")
    return v


def _padding(padding, n, fn, explicit=True):
    """(padding string, explicit pads [before, after] per spatial axis) from TF's forms."""
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise errors.InvalidArgumentError(f"{fn}: padding must be \"SAME\" or \"VALID\" (upper case) or a "
                                              f"list of pairs, got {padding!r}")
        return padding, None
    if not explicit:
        raise TypeError(f"{fn}: padding must be \"SAME\" or \"VALID\", got {padding!r}")
    try:
        pairs = [[convert_arg(p, "int", fn, "padding") for p in pair] for pair in padding]
    except TypeError:
        raise TypeError(f"{fn}: padding must be \"SAME\", \"VALID\" or {n + 2} [before, after] pairs, got "
                        f"{padding!r}") from None
    if len(pairs) != n + 2 or any(len(p) != 2 for p in pairs):
        raise errors.InvalidArgumentError(f"{fn}: explicit padding must be {n + 2} [before, after] pairs, got {pairs}")
    if pairs[0] != [0, 0] or pairs[-1] != [0, 0]:
        raise errors.InvalidArgumentError(f"{fn}: explicit padding of the batch and channel dimensions must be 0, "
                                          f"got {pairs}")
    if any(p < 0 for pair in pairs for p in pair):
        raise errors.InvalidArgumentError(f"{fn}: explicit padding must be non-negative, got {pairs}")
    return "EXPLICIT", [p for pair in pairs[1:-1] for p in pair]


def _attrs(fn, strides, padding, dilations=None, n=2, explicit=True):
    pad, pads = _padding(padding, n, fn, explicit)
    a = {"strides": _window(strides, n, fn, "strides"), "padding": pad,
         "dilations": _window(1 if dilations is None else dilations, n, fn, "dilations")}
    if pads is not None:
        a["explicit_paddings"] = pads
    if n == 1:  # a height-1 image: the window is 1 tall
        a["strides"], a["dilations"] = [1] + a["strides"], [1] + a["dilations"]
        if pads is not None:
            a["explicit_paddings"] = [0, 0] + pads
    return a


def _rank(x, rank, fn, what):
    if x.ndim != rank:
        raise errors.InvalidArgumentError(f"{fn}: {what} must be {rank}-D, got shape {tuple(x.shape)}")
    return x


@dispatch
def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None, name=None):
    """2-D convolution (cross-correlation, as TF) of ``input`` [batch, h, w, in] with ``filters``
    [fh, fw, in, out]: output [batch, oh, ow, out].

    Args:
      strides, dilations: an int, 2 ints or 4 ints ``[1, sh, sw, 1]``.
      padding: ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]``.
    """
    _check_format("conv2d", data_format, ("NHWC",))
    return _ops["Conv2D"](input, filters, **_attrs("Conv2D", strides, padding, dilations))


@dispatch("input, filters:tensor_own_dtype, stride:any, padding:any, data_format:any='NWC', dilations:any=None")
def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None, name=None):
    """1-D convolution of ``input`` [batch, width, in] with ``filters`` [fw, in, out] (a 2-D one of height 1)."""
    _check_format("conv1d", data_format, ("NWC",))
    x = expand_dims(_rank(input, 3, "conv1d", "input"), 1)
    w = expand_dims(_rank(filters, 3, "conv1d", "filters"), 0)
    return _raw.Squeeze(_ops["Conv2D"](x, w, **_attrs("Conv2D", stride, padding, dilations, n=1)), axis=[1])


def _output_shape(output_shape, rank, fn):
    shape = output_shape.numpy().tolist() if isinstance(output_shape, Tensor) else output_shape
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{fn}: output_shape must be a list of {rank} ints, got {output_shape!r}")
    shape = [convert_arg(d, "int", fn, "output_shape") for d in shape]
    if len(shape) != rank:
        raise errors.InvalidArgumentError(f"{fn}: output_shape must have {rank} entries, got {shape}")
    return shape


@dispatch("input, filters:tensor_own_dtype, output_shape:any, strides:any, padding:any='SAME', data_format:any='NHWC', "
          "dilations:any=None")
def conv2d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NHWC", dilations=None,
                     name=None):
    """The gradient of conv2d with respect to its input: ``input`` [batch, h, w, out] and ``filters``
    [fh, fw, in, out] give ``output_shape`` [batch, oh, ow, in]; conv2d of the output with the same
    arguments has the shape of ``input``."""
    _check_format("conv2d_transpose", data_format, ("NHWC",))
    a = _attrs("conv2d_transpose", strides, padding, dilations)
    return _ops["Conv2DBackpropInput"](filters, input, input_sizes=_output_shape(output_shape, 4, "conv2d_transpose"),
                                       **a)


@dispatch("input, filters:tensor_own_dtype, output_shape:any, strides:any, padding:any='SAME', data_format:any='NWC', "
          "dilations:any=None")
def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC", dilations=None,
                     name=None):
    """The gradient of conv1d with respect to its input (``filters`` [fw, in, out])."""
    _check_format("conv1d_transpose", data_format, ("NWC",))
    x = expand_dims(_rank(input, 3, "conv1d_transpose", "input"), 1)
    w = expand_dims(_rank(filters, 3, "conv1d_transpose", "filters"), 0)
    b, width, c = _output_shape(output_shape, 3, "conv1d_transpose")
    a = _attrs("Conv2DBackpropInput", strides, padding, dilations, n=1)
    return _raw.Squeeze(_ops["Conv2DBackpropInput"](w, x, input_sizes=[b, 1, width, c], **a), axis=[1])


@dispatch("input:any, filters:tensor_own_dtype, output_shape:any, strides:any, padding:any='SAME', "
          "data_format:any=None, dilations:any=None")
def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None, dilations=None,
                   name=None):
    """conv1d_transpose or conv2d_transpose, chosen by the rank of ``input``."""
    rank = convert_to_tensor(input).ndim  # a string's rank too (UnimplementedError below)
    if rank == 3:
        return conv1d_transpose(input, filters, output_shape, strides, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d_transpose(input, filters, output_shape, strides, padding, data_format or "NHWC", dilations)
    raise errors.UnimplementedError(f"conv_transpose: only 1-D and 2-D (input rank 3 or 4) are supported, got rank {rank}")


@dispatch
def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None, name=None):
    """conv1d or conv2d, chosen by the rank of ``input``."""
    rank = convert_to_tensor(input).ndim
    strides = 1 if strides is None else strides
    if rank == 3:
        return conv1d(input, filters, strides, padding, data_format or "NWC", dilations)
    if rank == 4:
        return conv2d(input, filters, strides, padding, data_format or "NHWC", dilations)
    raise errors.UnimplementedError(f"convolution: only 1-D and 2-D (input rank 3 or 4) are supported, got rank {rank}")


@dispatch
def depthwise_conv2d(input, filter, strides, padding, data_format=None, dilations=None, name=None):
    """Each input channel convolved with its own ``filter`` [fh, fw, in, multiplier]: output channel
    ``c * multiplier + j`` comes from input channel ``c``; output [batch, oh, ow, in * multiplier]."""
    _check_format("depthwise_conv2d", data_format, ("NHWC",))
    return _ops["DepthwiseConv2dNative"](input, filter, **_attrs("DepthwiseConv2dNative", strides, padding, dilations))


@dispatch("input, depthwise_filter:tensor_own_dtype, pointwise_filter:tensor_own_dtype, strides:any, padding:any, "
          "data_format:any=None, dilations:any=None")
def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format=None, dilations=None,
                     name=None):
    """depthwise_conv2d followed by a 1x1 conv2d with ``pointwise_filter`` [1, 1, in * multiplier, out]."""
    _check_format("separable_conv2d", data_format, ("NHWC",))
    _attrs("separable_conv2d", strides, padding, dilations)  # bad values are refused under this op's name
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, dilations=dilations)
    return _ops["Conv2D"](y, pointwise_filter, strides=[1, 1], padding="VALID", dilations=[1, 1])


def _pool(op, fn, input, ksize, strides, padding, n, explicit):
    a = _attrs(fn, strides, padding, None, n=n, explicit=explicit)
    del a["dilations"]
    k = _window(ksize, n, fn, "ksize")
    a["ksize"] = [1] + k if n == 1 else k
    if n == 1:
        return _raw.Squeeze(_ops[op](expand_dims(_rank(input, 3, fn, "input"), 1), **a), axis=[1])
    return _ops[op](input, **a)


@dispatch("input, ksize:any, strides:any, padding:any, data_format:any='NHWC'")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The maximum of each ``ksize`` window of ``input`` [batch, h, w, channels] (padding is never the
    maximum; a NaN in a window is its maximum)."""
    _check_format("max_pool2d", data_format, ("NHWC",))
    return _pool("MaxPool", "max_pool2d", input, ksize, strides, padding, 2, True)


@dispatch("input, ksize:any, strides:any, padding:any, data_format:any='NHWC'")
def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """The mean of each ``ksize`` window of ``input`` [batch, h, w, channels]; with ``"SAME"`` padding
    a window's padding is not counted."""
    _check_format("avg_pool2d", data_format, ("NHWC",))
    return _pool("AvgPool", "avg_pool2d", input, ksize, strides, padding, 2, False)


@dispatch("input, ksize:any, strides:any, padding:any, data_format:any='NWC'")
def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """max_pool2d over [batch, width, channels]."""
    _check_format("max_pool1d", data_format, ("NWC",))
    return _pool("MaxPool", "max_pool1d", input, ksize, strides, padding, 1, True)


@dispatch("input, ksize:any, strides:any, padding:any, data_format:any='NWC'")
def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """avg_pool2d over [batch, width, channels]."""
    _check_format("avg_pool1d", data_format, ("NWC",))
    return _pool("AvgPool", "avg_pool1d", input, ksize, strides, padding, 1, False)


def _pool_nd(fn, input, ksize, strides, padding, data_format):
    rank = convert_to_tensor(input).ndim
    if rank == 3:
        return (max_pool1d if fn == "max_pool" else avg_pool1d)(input, ksize, strides, padding, data_format or "NWC")
    if rank == 4:
        return (max_pool2d if fn == "max_pool" else avg_pool2d)(input, ksize, strides, padding, data_format or "NHWC")
    raise errors.UnimplementedError(f"{fn}: only 1-D and 2-D pooling (input rank 3 or 4) are supported, got rank {rank}")


@dispatch
def max_pool(input, ksize, strides, padding, data_format=None, name=None):
    """max_pool1d or max_pool2d, chosen by the rank of ``input``."""
    return _pool_nd("max_pool", input, ksize, strides, padding, data_format)


@dispatch
def avg_pool(input, ksize, strides, padding, data_format=None, name=None):
    """avg_pool1d or avg_pool2d, chosen by the rank of ``input``."""
    return _pool_nd("avg_pool", input, ksize, strides, padding, data_format)


@dispatch("value, bias:tensor_own_dtype, data_format:any=None")
def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with the 1-D ``bias`` added along the channel axis: the last one (``"N...C"``,
    the default) or axis 1 (``"NC..."``); ``value`` must be at least 2-D."""
    channels_first = data_format is not None and str(data_format).startswith("NC")
    if data_format is not None and not channels_first and not (str(data_format).startswith("N")
                                                               and str(data_format).endswith("C")):
        raise errors.InvalidArgumentError(f"BiasAdd: data_format must be 'N...C' or 'NC...', got {data_format!r}")
    if value.ndim < 2:
        raise errors.InvalidArgumentError(f"BiasAdd: value must be at least 2-D, got shape {tuple(value.shape)}")
    axis = 1 if channels_first else value.ndim - 1
    channels = value.shape[axis]
    if channels is None:  # a traced size the static shape leaves open: the one this trace runs with
        channels = value._shape[axis]
    if bias.ndim != 1 or bias.shape[0] != channels:
        raise errors.InvalidArgumentError(f"BiasAdd: bias must be 1-D with {value.shape[axis]} entries (value's "
                                          f"channel axis {axis}), got shape {tuple(bias.shape)} for value of shape "
                                          f"{tuple(value.shape)}")
    if value.dtype != bias.dtype:
        raise errors.InvalidArgumentError(f"BiasAdd: value and bias must have one dtype, got {value.dtype.name} and "
                                          f"{bias.dtype.name}")
    if channels_first:
        bias = _raw.Reshape(bias, shape=[-1] + [1] * (value.ndim - 2))
    return value + bias
