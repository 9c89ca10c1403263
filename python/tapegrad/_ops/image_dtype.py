"""tf.image.convert_image_dtype: images move between dtypes with their value range rescaled (floats
span [0, 1], integers [0, dtype max]), as TF 2 does for the dtypes tapegrad has.

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
"""
import numpy as np

from tapegrad._ops._image_common import as_image
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.elementwise import floordiv, maximum, minimum
from tapegrad._tensor import cast, constant, identity

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


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``image`` converted to ``dtype`` with its values rescaled (Note [Image dtype scaling]); the same
    dtype gives the image back. Only float and integer dtypes are images (AttributeError otherwise)."""
    image = as_image(image, "convert_image_dtype")
    out = convert_arg(dtype, "dtype", "convert_image_dtype", "dtype")
    if not (out.is_floating or out.is_integer):
        raise AttributeError("convert_image_dtype: dtype must be either floating point or integer")
    src = image.dtype
    if not (src.is_floating or src.is_integer):
        raise AttributeError("convert_image_dtype: image dtype must be either floating point or integer")
    if out == src:
        return identity(image)
    if src.is_floating and out.is_floating:
        return cast(image, out)
    if src.is_integer and out.is_integer:
        max_in, max_out = int(np.iinfo(src.as_numpy_dtype).max), int(np.iinfo(out.as_numpy_dtype).max)
        if max_in > max_out:
            return cast(floordiv(image, constant((max_in + 1) // (max_out + 1), src)), out)
        return cast(image, out) * constant((max_out + 1) // (max_in + 1), out)
    if src.is_integer:
        scale = np.array(1.0 / np.iinfo(src.as_numpy_dtype).max, dtype=out.as_numpy_dtype)
        return cast(image, out) * constant(scale)
    scaled = image * constant(np.array(np.iinfo(out.as_numpy_dtype).max + 0.5, dtype=src.as_numpy_dtype))
    return cast(_saturate_to_int(scaled, out) if saturate else scaled, out)
