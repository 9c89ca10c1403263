"""The colour adjustments on images already converted to tensors, shared by the deterministic ops
(color.py, hsv.py) and their random and stateless random forms: brightness, contrast, saturation and hue,
and the RGB <-> HSV conversions the last two go through (Note [HSV formulas] in _ops/image/hsv.py). The
adjustments work on the float32 scale of to_working_float and return the image's dtype."""
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import stack
from tapegrad._ops._lib.shapes import refuse_varying
from tapegrad._ops._lib.tensors import select
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.image._common import from_working_float, to_working_float
from tapegrad._ops.math.elementwise import abs as _abs, floor, maximum, minimum
from tapegrad._ops.math.reduction import reduce_mean
from tapegrad._tensor.tensor import cast


def scalar_as(value, dtype, fn, arg):
    t = convert_arg(value, "tensor", fn, arg, dtype_hint=dtype)
    return t if t.dtype == dtype else cast(t, dtype)


def brightness(image, delta):
    """``image + delta`` (delta on the [0, 1] scale for integer images)."""
    flt = to_working_float(image)
    delta = scalar_as(delta, flt.dtype, "adjust_brightness", "delta")
    return from_working_float(flt + delta, image.dtype, True)


def contrast(images, contrast_factor):
    """``(x - mean) * contrast_factor + mean`` per channel, the mean over height and width."""
    flt = to_working_float(images)
    factor = scalar_as(contrast_factor, flt.dtype, "adjust_contrast", "contrast_factor")
    mean = reduce_mean(flt, axis=[-3, -2], keepdims=True)
    return from_working_float((flt - mean) * factor + mean, images.dtype, True)


def channels(images):
    """The three planes of [..., 3] images, as tf.unstack(images, axis=-1) gives them."""
    axis = images.ndim - 1
    refuse_varying(images, "unstack", "its number of results would be the traced size", axis)
    lead = (slice(None),) * axis
    return [images[lead + (i,)] for i in range(3)]


def _clip01(x):
    """clip_by_value(x, 0, 1): the minimum first, as TF's."""
    return _raw.Maximum(_raw.Minimum(x, 1.0), 0.0)


def to_hsv(images):
    """(h, s, v) of RGB images (Note [HSV formulas])."""
    r, g, b = channels(images)
    v = maximum(maximum(r, g), b)
    spread = v - minimum(minimum(r, g), b)
    s = select(v > 0, spread / select(v > 0, v, 1.0), 0.0)
    has_hue = spread > 0
    norm = 1.0 / (6.0 * select(has_hue, spread, 1.0))
    h = select(r == v, norm * (g - b), select(g == v, norm * (b - r) + 2.0 / 6.0, norm * (r - g) + 4.0 / 6.0))
    h = select(has_hue, h, 0.0)
    return select(h < 0, h + 1.0, h), s, v


def to_rgb(h, s, v):
    """RGB images [..., 3] of the hue, saturation and value planes (Note [HSV formulas])."""
    d = h * 6.0
    red = _clip01(_abs(d - 3.0) - 1.0)
    green = _clip01(2.0 - _abs(d - 2.0))
    blue = _clip01(2.0 - _abs(d - 4.0))
    return stack([(1.0 - s + s * c) * v for c in (red, green, blue)], axis=-1)


def saturation(image, saturation_factor):
    """RGB ``image`` with its saturation multiplied by ``saturation_factor`` and clipped to [0, 1]."""
    flt = to_working_float(image)
    factor = convert_arg(saturation_factor, "tensor", "adjust_saturation", "saturation_factor", flt.dtype)
    factor = factor if factor.dtype == flt.dtype else cast(factor, flt.dtype)
    h, s, v = to_hsv(flt)
    return from_working_float(to_rgb(h, _clip01(s * factor), v), image.dtype, False)


def hue(image, delta):
    """RGB ``image`` with the float tensor ``delta`` added to its hue, which wraps around [0, 1)."""
    flt = to_working_float(image)
    h, s, v = to_hsv(flt)
    shifted = h + (delta if delta.dtype == flt.dtype else cast(delta, flt.dtype))
    return from_working_float(to_rgb(shifted - floor(shifted), s, v), image.dtype, False)
