"""RGB <-> HSV conversion and the hue and saturation adjustments built on it, for float images with
values in [0, 1] (hue in [0, 1) too); composed of registered ops, so all of them differentiate (TF has
gradients for rgb_to_hsv only).

Note [HSV formulas]: v = max(r, g, b), range = v - min(r, g, b), s = range / v (0 where v = 0),
  h = (g - b) / (6 range) where r = v, else (b - r) / (6 range) + 1/3 where g = v, else
  (r - g) / (6 range) + 2/3; 0 where range = 0; plus 1 where negative.
Back: with d = 6h, each channel is v * (1 - s + s * c) where c is clip(|d - 3| - 1, 0, 1) for red,
clip(2 - |d - 2|, 0, 1) for green and clip(2 - |d - 4|, 0, 1) for blue.
Divisions take a denominator of 1 where the other branch of the `where` is chosen, so the
unchosen branch never puts NaN into the gradient.
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import errors
from tapegrad._ops._lib.arrays import stack
from tapegrad._ops.image._adjust import channels, hue, saturation, to_hsv, to_rgb
from tapegrad._ops.image._common import check_channels, check_float, known_value
from tapegrad._ops._wrap import convert_arg

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "adjust_saturation", "adjust_hue"]


@dispatch("images")
def rgb_to_hsv(images, name=None):
    """RGB ``images`` ([..., 3], float, values in [0, 1]) as hue, saturation and value in [0, 1]
    (Note [HSV formulas])."""
    check_float(images, "rgb_to_hsv", "images")
    check_channels(images, "rgb_to_hsv", lambda message: errors.FailedPreconditionError(None, None, message))
    return stack(list(to_hsv(images)), axis=-1)


@dispatch("images")
def hsv_to_rgb(images, name=None):
    """HSV ``images`` ([..., 3], float, values in [0, 1]) as RGB (Note [HSV formulas])."""
    check_float(images, "hsv_to_rgb", "images")
    check_channels(images, "hsv_to_rgb")
    return to_rgb(*channels(images))


@dispatch("image, saturation_factor:any")
def adjust_saturation(image, saturation_factor, name=None):
    """``image`` (RGB, [..., 3]) with its saturation multiplied by ``saturation_factor`` and clipped to
    [0, 1], in the image's dtype."""
    check_channels(image, "adjust_saturation", arg="image")
    return saturation(image, saturation_factor)


@dispatch("image, delta:any")
def adjust_hue(image, delta, name=None):
    """``image`` (RGB, [..., 3]) with ``delta`` (in [-1, 1]) added to its hue, which wraps around
    [0, 1), in the image's dtype."""
    delta = convert_arg(delta, "tensor", "adjust_hue", "delta", "float32")
    d = known_value(delta)
    if d is not None and np.any((d < -1.0) | (d > 1.0)):  # a NaN delta passes, as in TF
        raise ValueError("adjust_hue: delta must be in the interval [-1, 1]")
    check_channels(image, "adjust_hue", arg="image")
    return hue(image, delta)
