"""keras.layers.Resizing and CenterCrop: images to a fixed height and width."""
from tapegrad.keras.layers.base import Layer
from tapegrad.keras.layers.preprocessing import _image

__all__ = ["Resizing", "CenterCrop"]

_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian", "mitchellcubic")


class Resizing(Layer):
    """Resizes images ([batch,] height, width, channels) to (height, width) with ``interpolation``.

    crop_to_aspect_ratio: first take the largest central window of the target aspect ratio;
    pad_to_aspect_ratio: first pad (with fill_value) to it. An integer image keeps its dtype (values
    rounded); a float image comes out in the layer's dtype.
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
                 fill_mode="constant", fill_value=0.0, antialias=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(f"Invalid value for argument `interpolation`. Expected of one {_INTERPOLATIONS}. "
                             f"Received: interpolation={interpolation}")
        if pad_to_aspect_ratio and crop_to_aspect_ratio:
            raise ValueError("Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be set to `True`.")
        self.height, self.width, self.interpolation = height, width, interpolation
        self.crop_to_aspect_ratio, self.pad_to_aspect_ratio = crop_to_aspect_ratio, pad_to_aspect_ratio
        self.fill_mode, self.fill_value, self.antialias = fill_mode, fill_value, antialias
        self.data_format = _image.check_format(data_format)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name,
                "data_format": self.data_format, "height": self.height, "width": self.width,
                "interpolation": self.interpolation, "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias}

    def call(self, inputs):
        images, unbatched = _image.to_channels_last(inputs, self.data_format)
        out_dtype = images.dtype if images.dtype.is_integer else self.dtype
        if self.crop_to_aspect_ratio:
            images = _image.crop_to_aspect(images, self.height, self.width)
        elif self.pad_to_aspect_ratio:
            images = _image.pad_to_aspect(images, self.height, self.width, self.fill_value)
        out = _image.resize(images, self.height, self.width, self.interpolation, self.antialias, out_dtype)
        return _image.from_channels_last(out, self.data_format, unbatched)

    def compute_output_shape(self, input_shape):
        return _resized_shape(input_shape, self.height, self.width, self.data_format)


class CenterCrop(Layer):
    """The central (height, width) window of each image; an image smaller than that on a side is
    first cropped to the target aspect ratio, then resized (bilinear) to it. Outputs are in the layer's dtype."""

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height, self.width = height, width
        self.data_format = _image.check_format(data_format)

    def get_config(self):
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype.name,
                "data_format": self.data_format, "height": self.height, "width": self.width}

    def call(self, inputs):
        images, unbatched = _image.to_channels_last(inputs, self.data_format)
        images = _image.float_image(images, self.dtype)
        h, w = _image.spatial_size(images)
        if h >= self.height and w >= self.width:
            top, left = (h - self.height) // 2, (w - self.width) // 2
            out = images[:, top:top + self.height, left:left + self.width, :]
        else:
            out = _image.resize(_image.crop_to_aspect(images, self.height, self.width), self.height, self.width,
                                "bilinear", False, self.dtype)
        return _image.from_channels_last(out, self.data_format, unbatched)

    def compute_output_shape(self, input_shape):
        return _resized_shape(input_shape, self.height, self.width, self.data_format)


def _resized_shape(input_shape, height, width, data_format):
    shape = list(input_shape)
    h_axis = -2 if data_format == "channels_first" else -3
    shape[h_axis], shape[h_axis + 1] = height, width
    return tuple(shape)
