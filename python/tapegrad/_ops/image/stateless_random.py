"""tf.image's stateless random augmentations: image_random's operations with their random values drawn by
tf.random's stateless ops from a [2] integer ``seed`` (the same seed, the same result; a traced seed is
read at every call of a tf.function). Gradients reach the image as through the deterministic ops."""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes
from tapegrad._ops import _raw
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.image._adjust import brightness, contrast, hue, saturation
from tapegrad._ops.image._common import (as_image, check_channels, check_range, check_rank, crop_at, crop_size,
                                         float_arg, reverse_axes, static_sizes)
from tapegrad._ops.random.host import Stateless
from tapegrad._ops.random import distributions as dists
from tapegrad import errors

__all__ = ["stateless_random_flip_left_right", "stateless_random_flip_up_down", "stateless_random_brightness",
           "stateless_random_contrast", "stateless_random_saturation", "stateless_random_hue",
           "stateless_random_crop"]


def _uniform(seed, fn, shape, lo=0.0, hi=1.0):
    return dists.uniform(Stateless(seed, fn), fn, shape, lo, hi, dtypes.float32)


def _flip(image, seed, axis, fn):
    image = as_image(image, fn)
    rank = check_rank(image, fn)
    if rank == 3:
        flip = _uniform(seed, fn, []) < 0.5
    else:  # one draw per image of the batch
        flip = _raw.Reshape(_uniform(seed, fn, static_sizes(image, fn)[:1]) < 0.5, shape=[-1, 1, 1, 1])
    return select(flip, reverse_axes(image, [axis]), image)


@dispatch
def stateless_random_flip_left_right(image, seed):
    """``image`` (or each image of a batch) mirrored left to right with probability 1/2."""
    return _flip(image, seed, -2, "stateless_random_flip_left_right")


@dispatch
def stateless_random_flip_up_down(image, seed):
    """``image`` (or each image of a batch) mirrored upside down with probability 1/2."""
    return _flip(image, seed, -3, "stateless_random_flip_up_down")


@dispatch
def stateless_random_brightness(image, max_delta, seed):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    fn = "stateless_random_brightness"
    image = as_image(image, fn)
    max_delta = float_arg(max_delta, fn, "max_delta")
    if max_delta < 0:
        raise ValueError(f"{fn}: max_delta must be non-negative.")
    return brightness(image, _uniform(seed, fn, [], -max_delta, max_delta))


@dispatch
def stateless_random_contrast(image, lower, upper, seed):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    fn = "stateless_random_contrast"
    image = as_image(image, fn)
    lower, upper = check_range(lower, upper, fn)
    if image.shape.rank < 3:
        raise errors.InvalidArgumentError(f"{fn}: 'image' must be at least 3-D, got shape {tuple(image.shape)}")
    return contrast(image, _uniform(seed, fn, [], lower, upper))


@dispatch
def stateless_random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper) (``seed`` is required, as TF)."""
    fn = "stateless_random_saturation"
    image = as_image(image, fn)
    lower, upper = check_range(lower, upper, fn)
    check_channels(image, fn, arg="image")
    return saturation(image, _uniform(seed, fn, [], lower, upper))


@dispatch
def stateless_random_hue(image, max_delta, seed):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta) (max_delta at most 0.5)."""
    fn = "stateless_random_hue"
    image = as_image(image, fn)
    max_delta = float_arg(max_delta, fn, "max_delta")
    if max_delta > 0.5:
        raise ValueError(f"{fn}: max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError(f"{fn}: max_delta must be non-negative.")
    check_channels(image, fn, arg="image")
    return hue(image, _uniform(seed, fn, [], -max_delta, max_delta))


@dispatch("value, size:any, seed:any")
def stateless_random_crop(value, size, seed, name=None):
    """A ``size`` slice of ``value`` (any rank) at an offset drawn uniformly along each dimension."""
    fn = "stateless_random_crop"
    size, shape = crop_size(size, value, fn)
    limits = [d - s + 1 for s, d in zip(size, shape)]
    # one int32 draw per dimension, reduced modulo the number of possible offsets along it
    draws = dists.uniform(Stateless(seed, fn), fn, [len(shape)], 0, np.iinfo(np.int32).max, dtypes.int32)
    return crop_at(value, size, limits, draws)
