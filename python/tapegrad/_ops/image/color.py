"""tf.image colour adjustments that keep the image's dtype (brightness, contrast, gamma; integer images
are worked on as float32 in [0, 1] and converted back, saturating), per-image standardization (always
float32) and the grayscale conversions. Composed of registered ops, so they differentiate for float
images (adjust_contrast too, which TF leaves without a gradient).
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes
from tapegrad._ops import _raw
from tapegrad._ops.image._adjust import brightness, contrast, scalar_as
from tapegrad._ops.image._common import (as_image, check_rank, convert_image, from_working_float, known_value,
                                         static_sizes, to_working_float)
from tapegrad._ops.math.elementwise import maximum
from tapegrad._ops.math.reduction import reduce_mean, reduce_sum
from tapegrad._tensor.tensor import cast, constant

__all__ = ["adjust_brightness", "adjust_contrast", "adjust_gamma", "per_image_standardization", "rgb_to_grayscale",
           "grayscale_to_rgb"]

# ITU-R BT.601 luma weights, as TF's rgb_to_grayscale uses them
_LUMA = np.array([0.2989, 0.5870, 0.1140], dtype=np.float32)


@dispatch
def adjust_brightness(image, delta):
    """``image + delta`` (delta on the [0, 1] scale for integer images), in the image's dtype."""
    return brightness(as_image(image, "adjust_brightness"), delta)


@dispatch
def adjust_contrast(images, contrast_factor):
    """Each channel of each image moved away from (factor > 1) or toward its mean over height and
    width: ``(x - mean) * contrast_factor + mean``, in the images' dtype."""
    images = as_image(images, "adjust_contrast", "images")
    if images.shape.rank < 3:
        raise _core.InvalidArgumentError(f"adjust_contrast: 'images' must be at least 3-D, got shape "
                                         f"{tuple(images.shape)}")
    return contrast(images, contrast_factor)


def _check_gamma(gamma):
    value = known_value(gamma)
    if value is not None and np.any(value < 0):
        raise ValueError("adjust_gamma: Gamma should be a non-negative real number.")


@dispatch
def adjust_gamma(image, gamma=1, gain=1):
    """Gamma correction ``gain * image ** gamma`` on the [0, 1] scale, in the image's dtype."""
    image = as_image(image, "adjust_gamma")
    flt = to_working_float(image)
    _check_gamma(gamma)
    g = scalar_as(gamma, flt.dtype, "adjust_gamma", "gamma")
    adjusted = scalar_as(gain, flt.dtype, "adjust_gamma", "gain") * flt ** g
    return from_working_float(adjusted, image.dtype, True)


@dispatch
def per_image_standardization(image):
    """Each image scaled to mean 0 and variance 1 over its height, width and channels, as float32; the
    divisor is at least 1 / sqrt(pixels) so a uniform image gives zeros."""
    image = as_image(image, "per_image_standardization")
    check_rank(image, "per_image_standardization", at_least=3)
    x = image if image.dtype == dtypes.float32 else cast(image, dtypes.float32)
    pixels = int(np.prod(static_sizes(image, "per_image_standardization")[-3:]))
    mean = reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
    floor = constant(np.float32(1) / np.sqrt(np.float32(pixels)))
    std = maximum(_std(x, [-1, -2, -3]), floor)
    return (x - mean) / std


def _std(x, axes):
    """tf.math.reduce_std(x, axes, keepdims=True): the population standard deviation."""
    centered = x - reduce_mean(x, axis=axes, keepdims=True)
    return _raw.Sqrt(reduce_mean(centered * centered, axis=axes, keepdims=True))


@dispatch("images")
def rgb_to_grayscale(images, name=None):
    """The luma of RGB ``images`` ([..., 3]) as [..., 1], in the images' dtype."""
    if images.shape.rank < 1 or images.shape[-1] != 3:
        raise _core.InvalidArgumentError(f"rgb_to_grayscale: the last dimension of 'images' must be 3, got shape "
                                         f"{tuple(images.shape)}")
    flt = convert_image(images, dtypes.float32)
    gray = reduce_sum(flt * constant(_LUMA), axis=-1, keepdims=True)
    return convert_image(gray, images.dtype)


@dispatch("images")
def grayscale_to_rgb(images, name=None):
    """Grayscale ``images`` ([..., 1]) with the channel repeated three times: [..., 3]."""
    if images.shape.rank < 2:
        raise ValueError(f"grayscale_to_rgb: A grayscale image (shape {tuple(images.shape)}) must be at least "
                         "two-dimensional.")
    if images.shape[-1] != 1:
        raise ValueError("grayscale_to_rgb: Last dimension of a grayscale image should be size 1.")
    return _raw.Tile(images, multiples=[1] * (images.shape.rank - 1) + [3])
