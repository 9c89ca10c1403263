"""tf.io.is_jpeg, extract_jpeg_shape and decode_and_crop_jpeg: the JPEG helpers of TF's input pipelines."""
import io

import numpy as np

from tapegrad import errors
from tapegrad._ops.image.pixels import UINT8
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import constant
from tapegrad.io._args import scalar_bytes, string_array
from tapegrad.io._decode import check_jpeg_options, decoded_frames, pixel_tensor, sniff
from tapegrad.io._pillow import pil_image

__all__ = ["is_jpeg", "extract_jpeg_shape", "decode_and_crop_jpeg"]

_COMPONENTS = {"L": 1, "RGB": 3, "YCbCr": 3, "CMYK": 4}


def is_jpeg(contents, name=None):
    """Whether each string in ``contents`` starts as a JPEG file does (bool, the shape of ``contents``)."""
    values = string_array(contents, "is_jpeg", "contents")
    flags = [b[:3] == b"\xff\xd8\xff" for b in values.reshape(-1)]
    return constant(np.array(flags, dtype=bool).reshape(values.shape))


def extract_jpeg_shape(contents, output_type="int32", name=None):
    """[height, width, components] of the JPEG in ``contents``, read from its header (int32, or int64)."""
    op = "extract_jpeg_shape"
    data = scalar_bytes(contents, op, "contents")
    out = convert_arg(output_type, "dtype", op, "output_type")
    if out.name not in ("int32", "int64"):
        raise errors.InvalidArgumentError(f"{op}: Value for attr 'output_type' of {out.name} is not in the list of "
                                          f"allowed values: int32, int64")
    if sniff(data) != "JPEG":
        raise errors.InvalidArgumentError(f"{op}: Invalid JPEG data, size {len(data)}")
    try:
        im = pil_image(op).open(io.BytesIO(data))  # reads the header only
    except (OSError, SyntaxError, ValueError) as e:
        raise errors.InvalidArgumentError(f"{op}: Invalid JPEG data, size {len(data)}: {e}") from None
    w, h = im.size
    return constant(np.array([h, w, _COMPONENTS.get(im.mode, 3)], dtype=out.as_numpy_dtype))


def decode_and_crop_jpeg(contents, crop_window, channels=0, ratio=1, fancy_upscaling=True,
                         try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """The ``crop_window`` [y, x, height, width] of the JPEG in ``contents`` (after ``ratio``), as
    decode_jpeg gives the whole image."""
    op = "decode_and_crop_jpeg"
    check_jpeg_options(ratio, dct_method, op)
    fmt = sniff(scalar_bytes(contents, op, "contents"))
    if fmt != "JPEG":
        raise errors.InvalidArgumentError(f"{op}: DecodeAndCropJpeg operation can run on JPEG only, but detected "
                                          f"{fmt or 'an unknown format'}.")
    window = np.asarray(convert_arg(crop_window, "tensor", op, "crop_window")).reshape(-1)
    if window.size != 4:
        raise errors.InvalidArgumentError(f"{op}: crop_window must be shape [4], got {window.size} values")
    _, frames = decoded_frames(contents, op, int(channels), ratio)
    image = frames[0]
    y, x, h, w = (int(v) for v in window)
    if min(y, x) < 0 or h <= 0 or w <= 0 or y + h > image.shape[0] or x + w > image.shape[1]:
        raise errors.InvalidArgumentError(f"{op}: Invalid JPEG data or crop window: y={y}, x={x}, h={h}, w={w} for "
                                          f"an image of height {image.shape[0]} and width {image.shape[1]}")
    return pixel_tensor(image[y:y + h, x:x + w], UINT8)
