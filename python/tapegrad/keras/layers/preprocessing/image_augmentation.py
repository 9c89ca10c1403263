"""keras.layers RandomFlip, RandomCrop, RandomContrast and RandomBrightness: random image changes.

As in Keras 3, these layers change their inputs when ``training`` is True, and a direct call that
says nothing about training (``layer(images)`` outside a model) counts as training; inside a model
they follow the model's call (fit: training; predict, evaluate, model(x): inference, the identity).
Draws come from the stateful random ops (``seed`` selects a stream; keras.utils.set_random_seed makes
them reproducible); they are not the same numbers Keras draws.
"""
import numbers
import random

import tapegrad as tf

from tapegrad.keras.layers import base
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing import _image

__all__ = ["RandomFlip", "RandomCrop", "RandomContrast", "RandomBrightness"]

_MODES = ("horizontal", "vertical", "horizontal_and_vertical")


class _RandomImageLayer(Layer):
    """A layer whose direct call defaults to training=True (Keras 3's image augmentation layers)."""

    def __init__(self, seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.seed, self.data_format = seed, _image.check_format(data_format)

    def __call__(self, inputs, *args, training=None, **kwargs):
        if training is None and not base._CONTEXT:
            training = True
        return super().__call__(inputs, *args, training=training, **kwargs)

    def _base_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name,
                "data_format": self.data_format}

    def _per_image(self, images, low, high):
        """One uniform draw in [low, high) per image, shaped to broadcast over it."""
        shape = tf.stack([tf.shape(images)[0], 1, 1, 1])
        return tf.random.uniform(shape, minval=low, maxval=high, dtype=self.dtype, seed=self.seed)

    def call(self, inputs, training=True):
        images, unbatched = _image.to_channels_last(inputs, self.data_format)
        images = _image.float_image(images, self.dtype)
        out = self._augment(images) if training else images
        return _image.from_channels_last(out, self.data_format, unbatched)


class RandomFlip(_RandomImageLayer):
    """Flips each image left-right ("horizontal"), up-down ("vertical") or both, each with probability 1/2."""

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if mode not in _MODES:
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode

    def get_config(self):
        return {**self._base_config(), "seed": self.seed, "mode": self.mode}

    def _augment(self, images):
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = tf.where(self._per_image(images, 0.0, 1.0) < 0.5, tf.reverse(images, [2]), images)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = tf.where(self._per_image(images, 0.0, 1.0) < 0.5, tf.reverse(images, [1]), images)
        return images


class RandomCrop(_RandomImageLayer):
    """A random (height, width) window, at one offset for the whole batch, in training; an image
    smaller than that is cropped to the target aspect ratio and resized instead. Inference returns
    the input unchanged (what Keras 3.15 does)."""

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        if seed is None:  # Keras draws a seed here and keeps it in the config
            seed = random.randint(1, int(1e9))
        super().__init__(seed=seed, data_format=data_format, name=name, **kwargs)
        self.height, self.width = height, width

    def get_config(self):
        return {**self._base_config(), "height": self.height, "width": self.width, "seed": self.seed}

    def _augment(self, images):
        h, w = _image.spatial_size(images)
        if h < self.height or w < self.width:
            return _image.resize(_image.crop_to_aspect(images, self.height, self.width), self.height, self.width,
                                 "bilinear", False, self.dtype)
        top = tf.cast(tf.random.uniform([], 0.0, float(h - self.height + 1), seed=self.seed), tf.int32)
        left = tf.cast(tf.random.uniform([], 0.0, float(w - self.width + 1), seed=self.seed), tf.int32)
        images = tf.gather(images, tf.minimum(top, h - self.height) + tf.range(self.height), axis=1)
        return tf.gather(images, tf.minimum(left, w - self.width) + tf.range(self.width), axis=2)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        h_axis = -2 if self.data_format == "channels_first" else -3
        shape[h_axis], shape[h_axis + 1] = self.height, self.width
        return tuple(shape)


def _factor_pair(factor, low):
    """Keras's factor argument: a number f (as (0, f) for contrast, (-f, f) for brightness) or a pair."""
    pair = tuple(factor) if isinstance(factor, (list, tuple)) else None
    if pair is None and isinstance(factor, numbers.Real):
        pair = (0, factor) if low == 0 else (-abs(factor), abs(factor))
    if pair is None or len(pair) != 2 or not all(low <= v <= 1 for v in pair):
        raise ValueError(f"The `factor` argument should be a number (or a list of two numbers) in the range "
                         f"[{low}, 1]. Received: factor={factor}")
    return pair


class RandomContrast(_RandomImageLayer):
    """Each image's contrast scaled by a random c in [1 - lower, 1 + upper], (lower, upper) the sorted
    factor pair (a number f: [1, 1 + f]):
    (x - mean) * c + mean, the mean per channel over the image, clipped to value_range."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = tuple(sorted(_factor_pair(factor, 0)))  # Keras orders the pair
        self.value_range = tuple(value_range)

    def get_config(self):
        return {**self._base_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}

    def _augment(self, images):
        c = self._per_image(images, 1.0 - self.factor[0], 1.0 + self.factor[1])
        mean = tf.reduce_mean(images, axis=[1, 2], keepdims=True)
        return tf.clip_by_value((images - mean) * c + mean, float(self.value_range[0]), float(self.value_range[1]))


class RandomBrightness(_RandomImageLayer):
    """Adds to each image a random delta in factor * (value_range[1] - value_range[0]) (a number f:
    [-f, f]), clipped to value_range."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = _factor_pair(factor, -1)
        if len(value_range) != 2:
            raise ValueError("The `value_range` argument should be a list of two numbers. "
                             f"Received: value_range={value_range}")
        self.value_range = list(value_range)

    def get_config(self):
        return {**self._base_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed}

    def _augment(self, images):
        span = float(self.value_range[1] - self.value_range[0])
        delta = self._per_image(images, self.factor[0] * span, self.factor[1] * span)
        return tf.clip_by_value(images + delta, float(self.value_range[0]), float(self.value_range[1]))
