"""keras.preprocessing.image: NumPy arrays to and from PIL images, and image files read and written
through Pillow (an optional dependency: pip install "tapegrad[image]").

An array is one image, [height, width, channels] (channels_last) or [channels, height, width];
1 channel is a grayscale image ("L", or "I" for 32-bit values above 255), 3 is "RGB", 4 is "RGBA".
"""
import io
import os
import pathlib
import warnings

import numpy as np

from tapegrad.keras import backend

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]

# interpolation name -> Pillow's resampling filter name, in the order the error message lists them
_FILTERS = {"nearest": "NEAREST", "bilinear": "BILINEAR", "bicubic": "BICUBIC", "hamming": "HAMMING", "box": "BOX",
            "lanczos": "LANCZOS"}


def _pil_image():
    """PIL.Image, or ImportError saying how to install it."""
    try:
        from PIL import Image
    except ImportError:
        raise ImportError('keras.preprocessing.image needs Pillow to read and write images: '
                          'pip install "tapegrad[image]" (or pip install pillow)') from None
    return Image


def _data_format(data_format):
    data_format = backend.image_data_format() if data_format is None else data_format
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    return data_format


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A PIL image of a rank-3 array (converted to ``dtype``, floatx by default).

    scale=True maps the array's range onto [0, 255]: (x - min(x)) / max(x - min(x)) * 255 (a constant
    image becomes 0). Values are then truncated to uint8 (int32 for a grayscale image above 255).
    """
    Image = _pil_image()
    data_format = _data_format(data_format)
    x = np.asarray(x, dtype=backend.floatx() if dtype is None else dtype)
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return Image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return Image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:
            return Image.fromarray(x[:, :, 0].astype("int32"), "I")
        return Image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image (or anything np.asarray takes) as a rank-3 array of ``dtype`` (floatx by default);
    a grayscale image gets a channel axis of 1."""
    data_format = _data_format(data_format)
    x = np.asarray(img, dtype=backend.floatx() if dtype is None else dtype)
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x.reshape((1,) + x.shape) if data_format == "channels_first" else x.reshape(x.shape + (1,))
    raise ValueError(f"Unsupported image shape: {x.shape}")


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """A PIL image read from a file (a str, bytes or pathlib path, or an io.BytesIO).

    Args:
      color_mode: "rgb", "rgba" or "grayscale" ("L"; 16- and 32-bit grayscale images keep their mode).
      target_size: (height, width) to resize to, or None for the file's size.
      interpolation: the resampling filter: "nearest", "bilinear", "bicubic", "hamming", "box" or "lanczos".
      keep_aspect_ratio: resize the largest centred crop of the target's aspect ratio, not the whole image.
    """
    Image = _pil_image()
    if isinstance(path, io.BytesIO):
        img = Image.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        with open(path, "rb") as f:
            img = Image.open(io.BytesIO(f.read()))
    else:
        raise TypeError(f"path should be path-like or io.BytesIO, not {type(path)}")
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif color_mode in ("rgba", "rgb"):
        mode = color_mode.upper()
        if img.mode != mode:
            img = img.convert(mode)
    else:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    if target_size is None:
        return img
    height, width = target_size
    if img.size == (width, height):
        return img
    if interpolation not in _FILTERS:
        raise ValueError(f"Invalid interpolation method {interpolation} specified. Supported methods are "
                         f"{', '.join(_FILTERS)}")
    resample = getattr(getattr(Image, "Resampling", Image), _FILTERS[interpolation])
    box = _centred_crop(img.size, width, height) if keep_aspect_ratio else None
    return img.resize((width, height), resample, box=box)


def _centred_crop(size, width, height):
    """The box (left, upper, right, lower) of the largest centred crop of aspect width : height."""
    w, h = size
    crop_w, crop_h = min(w, h * width // height), min(h, w * height // width)
    left, top = (w - crop_w) // 2, (h - crop_h) // 2
    return left, top, left + crop_w, top + crop_h


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Writes an array as an image file (format from ``file_format`` or the path's extension; kwargs go
    to PIL's Image.save). An RGBA image saved as JPEG is converted to RGB, with a warning."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if file_format is not None:
        jpeg = file_format.lower() in ("jpg", "jpeg")
    else:
        jpeg = isinstance(path, (str, os.PathLike)) and os.path.splitext(os.fspath(path))[1].lower() in (".jpg",
                                                                                                     ".jpeg")
    if img.mode == "RGBA" and jpeg:
        warnings.warn("The JPEG format does not support RGBA images, converting to RGB.", stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)
