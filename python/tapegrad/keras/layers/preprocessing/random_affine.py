"""keras.layers RandomRotation, RandomZoom and RandomTranslation: each image moved by its own random
affine map, sampled through _affine.projective_transform (TF's ImageProjectiveTransformV3) with the
layer's fill_mode, interpolation and fill_value. The maps are Keras's: a rotation about the image's
centre by factor * 2 pi, a zoom about the centre by 1 + factor on each axis (above 1 zooms out), a
shift by factor * height rows and factor * width columns. Training and the draws are as in
image_augmentation.py (not the numbers Keras draws); the output is float (the layer's dtype).
"""
import math
import numbers

import tapegrad as tf

from tapegrad.keras import _image_transform as _affine
from tapegrad.keras.layers.preprocessing.image_augmentation import _RandomImageLayer

__all__ = ["RandomRotation", "RandomZoom", "RandomTranslation"]


def _pair(value, name, closed_low, message):
    """(low, high) of a number f (as (-f, f)) or a pair, each in [-1, 1] ((-1, 1] when not closed_low)."""
    if isinstance(value, (list, tuple)):
        if len(value) != 2:
            raise ValueError(message.format(f"{name}={value}"))
        pair = tuple(value)
    elif isinstance(value, numbers.Real):
        pair = (-value, value)
    else:
        raise ValueError(message.format(f"{name}={value}"))
    for v in (value,) if isinstance(value, numbers.Real) else pair:
        if not (-1 <= v <= 1 if closed_low else -1 < v <= 1):
            raise ValueError(message.format(f"input_number={v}"))
    return pair


class _AffineLayer(_RandomImageLayer):
    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if fill_mode not in _affine.FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one {_affine.FILL_MODES}.")
        if interpolation not in _affine.INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of one "
                                      f"{_affine.INTERPOLATIONS}.")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def _draw(self, images, pair):
        """One uniform draw per image between the pair's ends, as a [batch, 1] column."""
        low, high = min(pair), max(pair)
        return tf.random.uniform(tf.stack([tf.shape(images)[0], 1]), minval=float(low), maxval=float(high),
                                 dtype=tf.float32, seed=self.seed)

    def _augment(self, images):
        out = _affine.projective_transform(images, self._transforms(images), self.interpolation, self.fill_mode,
                                           self.fill_value)
        return out if out.dtype == self.dtype else tf.cast(out, self.dtype)

    def _sampling_config(self):
        return {"fill_mode": self.fill_mode, "interpolation": self.interpolation, "seed": self.seed,
                "fill_value": self.fill_value}

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


def _rows(*columns):
    """[batch, 8] transforms from [batch, 1] columns and Python numbers."""
    batch = next(c for c in columns if not isinstance(c, numbers.Real))
    return tf.concat([c if not isinstance(c, numbers.Real) else tf.fill(tf.shape(batch), float(c))
                      for c in columns], axis=1)


class RandomRotation(_AffineLayer):
    """Rotates each image about its centre by a random angle of factor * 2 pi, factor a number f (an
    angle in [-f, f] turns) or a pair (lower, upper), in [-1, 1]."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        message = "The `factor` argument should be a number (or a list of two numbers) in the range [-1, 1]. " \
                  f"Received: factor={factor}"
        try:
            self.factor = tuple(sorted(_pair(factor, "factor", True, "{}")))
        except ValueError:
            raise ValueError(message) from None

    def get_config(self):
        return {**self._base_config(), "factor": self.factor, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "interpolation": self.interpolation, "seed": self.seed}

    def _transforms(self, images):
        height, width = float(images.shape[1] - 1), float(images.shape[2] - 1)
        angle = self._draw(images, self.factor) * (2.0 * math.pi)
        cos, sin = tf.cos(angle), tf.sin(angle)
        x_offset = (width - (cos * width - sin * height)) / 2.0
        y_offset = (height - (sin * width + cos * height)) / 2.0
        return _rows(cos, -sin, x_offset, sin, cos, y_offset, 0.0, 0.0)


_ZOOM_MESSAGE = ("The `height_factor` and `width_factor` arguments should be a number (or a list of two numbers) in "
                 "the range (-1.0, 1.0]. Received: {}")
_SHIFT_MESSAGE = ("The `factor` argument should be a number (or a list of two numbers) in the range [-1.0, 1.0]. "
                  "Received: {}")


class RandomZoom(_AffineLayer):
    """Zooms each image about its centre by 1 + a random factor per axis: height_factor a number f
    ([-f, f]) or a pair in (-1, 1]; width_factor likewise, or None to zoom both axes alike.
    Positive factors zoom out, negative ones in."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self._height = _pair(height_factor, "height_factor", False, _ZOOM_MESSAGE)
        self._width = None if width_factor is None else _pair(width_factor, "width_factor", False, _ZOOM_MESSAGE)
        self.height_factor, self.width_factor = height_factor, width_factor

    def get_config(self):
        return {**self._base_config(), "height_factor": self.height_factor, "width_factor": self.width_factor,
                **self._sampling_config()}

    def _transforms(self, images):
        height, width = float(images.shape[1] - 1), float(images.shape[2] - 1)
        zoom_y = 1.0 + self._draw(images, self._height)
        zoom_x = zoom_y if self._width is None else 1.0 + self._draw(images, self._width)
        return _rows(zoom_x, 0.0, width / 2.0 * (1.0 - zoom_x), 0.0, zoom_y, height / 2.0 * (1.0 - zoom_y), 0.0, 0.0)


class RandomTranslation(_AffineLayer):
    """Shifts each image by a random fraction of its height (height_factor: a number f, [-f, f], or a
    pair in [-1, 1]) and of its width (width_factor likewise); positive shifts move it down and right."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self._height = _pair(height_factor, "height_factor", True, _SHIFT_MESSAGE)
        self._width = _pair(width_factor, "width_factor", True, _SHIFT_MESSAGE)
        self.height_factor, self.width_factor = height_factor, width_factor

    def get_config(self):
        return {**self._base_config(), "height_factor": self.height_factor, "width_factor": self.width_factor,
                **self._sampling_config()}

    def _transforms(self, images):
        shift_y = self._draw(images, self._height) * float(images.shape[1])
        shift_x = self._draw(images, self._width) * float(images.shape[2])
        return _rows(1.0, 0.0, -shift_x, 0.0, 1.0, -shift_y, 0.0, 0.0)
