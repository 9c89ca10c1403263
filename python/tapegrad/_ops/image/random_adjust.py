"""tf.image random augmentations: each draws from tapegrad.random.uniform (so tf.random.set_seed makes
it reproducible, and a tf.function or tf.data map draws anew on every call) and applies the
deterministic op with the drawn value. Flips choose per image with ``where``; random_crop gathers
from random offsets; so gradients reach the image and the graph reads the draw at run time.
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes, errors
from tapegrad import random as _random
from tapegrad._ops import _raw
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.image._adjust import brightness, contrast, hue, saturation
from tapegrad._ops.image._common import (as_image, check_channels, check_range, check_rank, crop_at, crop_size,
                                         float_arg, reverse_axes, static_sizes)

__all__ = ["random_flip_left_right", "random_flip_up_down", "random_crop", "random_brightness", "random_contrast",
           "random_saturation", "random_hue"]


def _random_flip(image, seed, axis, fn):
    image = as_image(image, fn)
    rank = check_rank(image, fn)
    if rank == 3:
        flip = _random.uniform([], seed=seed) < 0.5
    else:
        flip = _raw.Reshape(_random.uniform(static_sizes(image, fn)[:1], seed=seed) < 0.5, shape=[-1, 1, 1, 1])
    return select(flip, reverse_axes(image, [axis]), image)


@dispatch
def random_flip_left_right(image, seed=None):
    """``image`` (or each image of a batch) mirrored left to right with probability 1/2."""
    return _random_flip(image, seed, -2, "random_flip_left_right")


@dispatch
def random_flip_up_down(image, seed=None):
    """``image`` (or each image of a batch) mirrored upside down with probability 1/2."""
    return _random_flip(image, seed, -3, "random_flip_up_down")


@dispatch("value, size:any, seed:any=None")
def random_crop(value, size, seed=None, name=None):
    """A ``size`` slice of ``value`` (any rank) at an offset drawn uniformly along each dimension."""
    size, shape = crop_size(size, value)
    limits = [d - s + 1 for s, d in zip(size, shape)]
    # one int32 draw per dimension, reduced modulo the number of possible offsets along it
    draws = _random.uniform([len(shape)], maxval=np.iinfo(np.int32).max, dtype=dtypes.int32, seed=seed)
    return crop_at(value, size, limits, draws)


def _uniform_between(lo, hi, seed):
    return _random.uniform([], minval=lo, maxval=hi, seed=seed)


@dispatch
def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    image = as_image(image, "random_brightness")
    max_delta = float_arg(max_delta, "random_brightness", "max_delta")
    if max_delta < 0:
        raise ValueError("random_brightness: max_delta must be non-negative.")
    return brightness(image, _uniform_between(-max_delta, max_delta, seed))


@dispatch
def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    image = as_image(image, "random_contrast")
    if image.shape.rank < 3:
        raise errors.InvalidArgumentError(None, None, f"random_contrast: 'image' must be at least 3-D, got shape "
                                                      f"{tuple(image.shape)}")
    lower, upper = check_range(lower, upper, "random_contrast")
    return contrast(image, _uniform_between(lower, upper, seed))


@dispatch
def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)."""
    image = as_image(image, "random_saturation")
    check_channels(image, "random_saturation", arg="image")
    lower, upper = check_range(lower, upper, "random_saturation")
    return saturation(image, _uniform_between(lower, upper, seed))


@dispatch
def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta) (max_delta at most 0.5)."""
    image = as_image(image, "random_hue")
    check_channels(image, "random_hue", arg="image")
    max_delta = float_arg(max_delta, "random_hue", "max_delta")
    if max_delta > 0.5:
        raise ValueError("random_hue: max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("random_hue: max_delta must be non-negative.")
    return hue(image, _uniform_between(-max_delta, max_delta, seed))
