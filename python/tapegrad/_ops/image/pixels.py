"""The image dtypes of TF's codecs: tf.io's decoders give uint8 tensors (uint16 for 16-bit PNGs and
with ``dtype=tf.uint16``), which convert_image_dtype scales by their largest value. ``"uint8"``,
``np.uint8`` and ``tf.uint8`` name the same dtype wherever a codec or convert_image_dtype takes one."""
import numpy as np

from tapegrad import dtypes

__all__ = ["UINT8", "UINT16", "as_pixel_type"]

UINT8, UINT16 = dtypes.uint8, dtypes.uint16
_BY_NAME = {"uint8": UINT8, "uint16": UINT16}


def as_pixel_type(dtype):
    """uint8 or uint16 when ``dtype`` names one ("uint8", np.uint8, np.dtype("uint16"), tf.uint8), else None."""
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
