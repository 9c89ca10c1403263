"""tf.image.convert_image_dtype: images move between dtypes with their value range rescaled (floats
span [0, 1], integers [0, dtype max]), as TF 2 does.

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
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops.image._common import convert_image
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.image.pixels import as_pixel_type

__all__ = ["convert_image_dtype"]


@dispatch("image, dtype:any, saturate:bool=False")
def convert_image_dtype(image, dtype, saturate=False, name=None):
    """``image`` converted to ``dtype`` with its values rescaled (Note [Image dtype scaling]); the same
    dtype gives the image back. Only float and integer dtypes are images (AttributeError otherwise)."""
    out = as_pixel_type(dtype) or convert_arg(dtype, "dtype", "convert_image_dtype", "dtype")
    if not (out.is_floating or out.is_integer):
        raise AttributeError("convert_image_dtype: dtype must be either floating point or integer")
    return convert_image(image, out, saturate)
