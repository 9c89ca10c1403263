"""keras.layers that move data without weights: Reshape, ZeroPadding2D, UpSampling2D, Cropping2D (channels last)."""
import math

import tapegrad as tf

from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.conv import check_data_format, normalize_tuple

__all__ = ["Reshape", "ZeroPadding2D", "UpSampling2D", "Cropping2D"]


def _pairs(value, layer, arg):
    """An int, (sym_rows, sym_cols) or ((top, bottom), (left, right)) as ((top, bottom), (left, right))."""
    if isinstance(value, int) and value >= 0:
        return ((value, value), (value, value))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        if all(isinstance(v, int) and v >= 0 for v in value):
            return ((value[0], value[0]), (value[1], value[1]))
        if all(isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(p, int) and p >= 0 for p in v)
               for v in value):
            return tuple(tuple(v) for v in value)
    raise ValueError(f"{layer}: {arg} must be an int, a tuple of 2 ints or a tuple of 2 tuples of 2 ints "
                     f"(all >= 0), got {value!r}")


def _check_rank(layer, shape, rank=4):
    if len(shape) != rank:
        raise ValueError(f"{layer.name}: expected input of rank {rank} (batch, rows, cols, channels), got shape "
                         f"{tuple(shape)}")


class Reshape(Layer):
    """Reshapes every example to ``target_shape`` (the batch axis is kept; one entry may be -1).

    >>> keras.layers.Reshape((3, 4))(tf.ones([2, 12])).shape
    TensorShape([2, 3, 4])
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        target = tuple(target_shape) if isinstance(target_shape, (list, tuple)) else None
        if target is None or not all(isinstance(d, int) and (d > 0 or d == -1) for d in target) or \
                sum(d == -1 for d in target) > 1:
            raise ValueError(f"Reshape: target_shape must be a tuple of positive ints with at most one -1, got "
                             f"{target_shape!r}")
        self.target_shape = target

    def _resolve(self, input_shape):
        shape = tuple(input_shape)
        size = math.prod(shape[1:]) if None not in shape[1:] else None
        known = math.prod(d for d in self.target_shape if d != -1)
        if size is None:
            return self.target_shape if -1 not in self.target_shape else \
                tuple(None if d == -1 else d for d in self.target_shape)
        if -1 in self.target_shape:
            if known == 0 or size % known:
                raise ValueError(f"{self.name}: cannot reshape input of shape {shape} to {self.target_shape}")
            return tuple(size // known if d == -1 else d for d in self.target_shape)
        if known != size:
            raise ValueError(f"{self.name}: total size of the input {shape} ({size} per example) does not match "
                             f"target_shape {self.target_shape} ({known})")
        return self.target_shape

    def call(self, inputs):
        return tf.reshape(inputs, (inputs.shape[0],) + self._resolve(inputs.shape))

    def compute_output_shape(self, input_shape):
        return (tuple(input_shape)[0],) + self._resolve(input_shape)

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class ZeroPadding2D(Layer):
    """Adds rows and columns of zeros: ``padding`` is an int, (rows, cols) or ((top, bottom), (left, right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        check_data_format(data_format, "ZeroPadding2D")
        self.padding = _pairs(padding, "ZeroPadding2D", "padding")
        self.data_format = "channels_last"

    def call(self, inputs):
        _check_rank(self, inputs.shape)
        return tf.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        (t, bo), (le, r) = self.padding
        return (b, None if h is None else h + t + bo, None if w is None else w + le + r, c)

    def get_config(self):
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class Cropping2D(Layer):
    """Removes rows and columns at the edges: ``cropping`` as for ZeroPadding2D's padding."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        check_data_format(data_format, "Cropping2D")
        self.cropping = _pairs(cropping, "Cropping2D", "cropping")
        self.data_format = "channels_last"

    def call(self, inputs):
        _check_rank(self, inputs.shape)
        _, h, w, _ = inputs.shape
        (t, bo), (le, r) = self.cropping
        if t + bo >= h or le + r >= w:
            raise ValueError(f"{self.name}: cropping {self.cropping} leaves nothing of input shape "
                             f"{tuple(inputs.shape)}")
        return inputs[:, t:h - bo, le:w - r, :]

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        (t, bo), (le, r) = self.cropping
        return (b, None if h is None else h - t - bo, None if w is None else w - le - r, c)

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping, "data_format": self.data_format}


class UpSampling2D(Layer):
    """Repeats each row ``size[0]`` times and each column ``size[1]`` times (nearest neighbour), or
    interpolates them (``interpolation="bilinear"``, as tf.image.resize)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        check_data_format(data_format, "UpSampling2D")
        self.size = normalize_tuple(size, 2, "UpSampling2D", "size")
        if interpolation not in ("nearest", "bilinear"):
            raise tf.errors.UnimplementedError(f"UpSampling2D: interpolation={interpolation!r} is not supported "
                                               "(only 'nearest' and 'bilinear')")
        self.interpolation = interpolation
        self.data_format = "channels_last"

    def call(self, inputs):
        _check_rank(self, inputs.shape)
        b, h, w, c = inputs.shape
        sh, sw = self.size
        if self.interpolation == "bilinear":
            return tf.cast(tf.image.resize(inputs, [h * sh, w * sw], method="bilinear"), inputs.dtype)
        x = tf.reshape(inputs, [b, h, 1, w, 1, c])
        return tf.reshape(tf.broadcast_to(x, [b, h, sh, w, sw, c]), [b, h * sh, w * sw, c])

    def compute_output_shape(self, input_shape):
        b, h, w, c = input_shape
        return (b, None if h is None else h * self.size[0], None if w is None else w * self.size[1], c)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "data_format": self.data_format,
                "interpolation": self.interpolation}
