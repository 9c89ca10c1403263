"""uint8 / uint16 pixels held in int32 tensors: TF's image codecs give those dtypes, which tapegrad lacks.

Note [Pixel tensors]
tapegrad has no uint8 or uint16 tensors, so tf.io's decoders return int32 tensors of the same values
(0..255, or 0..65535 with dtype uint16). TF code then calls ``tf.image.convert_image_dtype(image,
tf.float32)`` and expects [0, 1], which int32's range would make about 1e-7. The decoders therefore
mark the tensor they return, and convert_image_dtype and the tf.image adjustments read a marked int32
tensor with the uint8 (uint16) range. The mark belongs to that one tensor object: the result of any
other op on it (a cast, a slice, a batch of several, a map traced into a graph) is a plain int32
tensor. ``"uint8"`` / ``np.uint8`` given as a dtype (to convert_image_dtype, decode_png, ...) stands
for the same pixel type, and the tensors made for it are marked too.
"""
import weakref

import numpy as np

from tapegrad import dtypes

__all__ = ["PixelType", "UINT8", "UINT16", "mark", "pixel_type_of", "pixel_dtype", "as_pixel_type"]


class PixelType:
    """A stand-in for TF's uint8 / uint16 as an image dtype: an integer range held in int32."""

    __slots__ = ("name", "max", "as_numpy_dtype")
    is_floating, is_integer, is_bool = False, True, False

    def __init__(self, name, np_type):
        self.name, self.as_numpy_dtype = name, np_type
        self.max = int(np.iinfo(np_type).max)

    def __repr__(self):
        return f"tf.{self.name} (held as int32)"


UINT8 = PixelType("uint8", np.uint8)
UINT16 = PixelType("uint16", np.uint16)
_BY_NAME = {"uint8": UINT8, "uint16": UINT16}

# id(tensor) -> (a weak reference to it, its PixelType); the entry goes when the tensor does
_marked = {}


def mark(tensor, pixel_type):
    """``tensor`` (int32), recorded as holding ``pixel_type`` pixels; returned for chaining."""
    key = id(tensor)
    _marked[key] = (weakref.ref(tensor, lambda _, k=key: _marked.pop(k, None)), pixel_type)
    return tensor


def pixel_type_of(tensor):
    """The PixelType ``tensor`` was marked with, or None."""
    entry = _marked.get(id(tensor))
    return entry[1] if entry is not None and entry[0]() is tensor else None


def pixel_dtype(tensor):
    """The dtype an image op should treat ``tensor`` as: its PixelType if marked, else its dtype."""
    return pixel_type_of(tensor) or tensor.dtype


def as_pixel_type(dtype):
    """The PixelType ``dtype`` names (a PixelType, "uint8", np.uint8, np.dtype("uint16"), TF's tf.uint8 by
    name), or None for any other dtype."""
    if isinstance(dtype, PixelType):
        return dtype
    if isinstance(dtype, dtypes.DType):
        return _BY_NAME.get(dtype.name)
    if isinstance(dtype, str):
        return _BY_NAME.get(dtype)
    if isinstance(dtype, (type, np.dtype)):
        try:
            return _BY_NAME.get(np.dtype(dtype).name)
        except TypeError:
            return None
    return None
