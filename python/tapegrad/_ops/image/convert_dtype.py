"""tf.image.convert_image_dtype: images move between dtypes with their value range rescaled (floats
span [0, 1], integers [0, dtype max]), as TF 2 does for the dtypes tapegrad has and for uint8 / uint16
pixels, which int32 tensors hold (Note [Pixel tensors] in _ops/image/pixels.py).

Note [Image dtype scaling]: with M_in, M_out the largest values of integer dtypes,
  int -> int    narrowing floor-divides by (M_in + 1) // (M_out + 1), widening multiplies by
                (M_out + 1) // (M_in + 1);
  int -> float  cast, then multiply by 1 / M_in rounded to the float dtype;
  float -> int  multiply by M_out + 0.5 rounded to the float dtype, then truncate. Out-of-range values
                wrap as TF's casts do on x86 (to the dtype's minimum); with ``saturate`` they are first
                clamped to M_out as the float dtype holds it, stepped below M_out when rounding went
                above it (so float32 -> int32 clamps at 2147483520, float32 -> int64 still wraps: TF's
                limits are computed the same way);
  float -> float a plain cast.
A uint8 / uint16 result wraps into its range (0..M_out) as TF's unsigned casts do, or is clamped to it
with ``saturate``.
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad._ops.image._common import as_image
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.math.elementwise import floordiv, floormod, maximum, minimum
from tapegrad._ops.image.pixels import PixelType, as_pixel_type, mark, pixel_dtype
from tapegrad._tensor.tensor import cast, constant, identity
from tapegrad.dtypes import int32

__all__ = ["convert_image_dtype"]


def _limit(value, float_dtype, toward_zero_if):
    """An integer limit as ``float_dtype`` holds it, nudged toward zero when rounding crossed it."""
    held = np.array(value, dtype=float_dtype)
    if toward_zero_if(np.float64(held), np.float64(value)):  # compared in float64, as TF's limits are
        held = np.nextafter(held, np.array(0, dtype=float_dtype))
    return constant(held)


def _saturate_to_int(x, out):
    info = np.iinfo(out.as_numpy_dtype)
    f = x.dtype.as_numpy_dtype
    x = maximum(x, _limit(info.min, f, lambda h, v: h < v))
    return minimum(x, _limit(info.max, f, lambda h, v: h > v))


def _max(dtype):
    return dtype.max if isinstance(dtype, PixelType) else int(np.iinfo(dtype.as_numpy_dtype).max)


def _stored(x, out, saturate):
    """An integer result as ``out`` stores it: a pixel type's values wrap into its range as TF's uint casts
    do (clamped with ``saturate``), in an int32 tensor marked with it (Note [Pixel tensors])."""
    if not isinstance(out, PixelType):
        return x
    if saturate:
        x = minimum(maximum(x, constant(0, x.dtype)), constant(out.max, x.dtype))
    else:
        x = floormod(x, constant(out.max + 1, x.dtype))
    return mark(x, out)


@dispatch
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``image`` converted to ``dtype`` with its values rescaled (Note [Image dtype scaling]); the same
    dtype gives the image back. Only float and integer dtypes are images (AttributeError otherwise).
    uint8 / uint16 pixels are int32 tensors (Note [Pixel tensors] in _ops/image/pixels.py)."""
    image = as_image(image, "convert_image_dtype")
    out = as_pixel_type(dtype) or convert_arg(dtype, "dtype", "convert_image_dtype", "dtype")
    if not (out.is_floating or out.is_integer):
        raise AttributeError("convert_image_dtype: dtype must be either floating point or integer")
    src = pixel_dtype(image)
    if not (src.is_floating or src.is_integer):
        raise AttributeError("convert_image_dtype: image dtype must be either floating point or integer")
    store = int32 if isinstance(out, PixelType) else out  # the tensor dtype of the result
    if out is src or out == src:
        return mark(identity(image), out) if isinstance(out, PixelType) else identity(image)
    if src.is_floating and out.is_floating:
        return cast(image, out)
    if src.is_integer and out.is_integer:
        max_in, max_out = _max(src), _max(out)
        if max_in > max_out:
            return _stored(cast(floordiv(image, constant((max_in + 1) // (max_out + 1), image.dtype)), store), out,
                           saturate)
        return _stored(cast(image, store) * constant((max_out + 1) // (max_in + 1), store), out, saturate)
    if src.is_integer:
        scale = np.array(1.0 / _max(src), dtype=out.as_numpy_dtype)
        return cast(image, out) * constant(scale)
    scaled = image * constant(np.array(_max(out) + 0.5, dtype=src.as_numpy_dtype))
    return _stored(cast(_saturate_to_int(scaled, out) if saturate else scaled, store), out, False)
