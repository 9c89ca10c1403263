"""Argument checks, dtype conversions and pieces shared by the tf.image modules (geometry, color, hsv,
metrics, random_adjust, stateless_random); errors name the public function and argument, with TF's
classes."""
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function.trace_context import note_frozen_size
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import arange, zeros
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.array._common import mirror_along
from tapegrad._ops.math.elementwise import floordiv, floormod, maximum, minimum
from tapegrad._tensor.string_tensor import string_constant
from tapegrad._tensor.tensor import Tensor, cast, constant, identity


def as_image(value, fn, arg="image"):
    """``value`` as a tensor (Python values by the usual dtype rules)."""
    return value if isinstance(value, Tensor) else convert_arg(value, "tensor", fn, arg)


def static_sizes(image, fn):
    """``image``'s static shape as a list. While tracing, the graph is marked as built for these sizes:
    it holds numbers computed from them (offsets, crop sizes), which at two sizes can coincide (a
    central crop of 2 or 3 rows keeps them all), so a relaxed trace must not reuse it for other sizes."""
    if _core._tracing():
        note_frozen_size(f"tf.image.{fn} computes from the image's size")
    return list(image.shape)


# A shape built from static_sizes holds None for a size that changes from call to call of the tf.function
# being traced: tf.zeros and tf.reshape refuse it, with these errors.
def sized_zeros(shape, dtype):
    """tf.zeros(shape, dtype) (empty strings for a string dtype)."""
    if None in shape:
        raise ValueError(f"zeros: shape {shape!r} has an unknown (None) dimension")
    return string_constant(b"", shape) if dtype is dtypes.string else zeros(shape, dtype)


def sized_reshape(x, shape):
    """tf.reshape(x, shape)."""
    if None in shape:
        raise errors.InvalidArgumentError(f"reshape(): argument 'shape' must be an int or a list of ints, got "
                                          f"{shape!r} (list)")
    return _raw.Reshape(x, shape=shape)


def check_rank(image, fn, arg="image", ranks=(3, 4), at_least=None):
    """ValueError unless the rank is one of ``ranks`` (or >= ``at_least``) and the inner three dimensions
    are non-empty, as TF's image checks."""
    rank = image.shape.rank
    if at_least is not None and rank < at_least:
        raise ValueError(f"{fn}: '{arg}' (shape {tuple(image.shape)}) must be at least {at_least}-dimensional.")
    if at_least is None and rank not in ranks:
        raise ValueError(f"{fn}: '{arg}' (shape {tuple(image.shape)}) must have either 3 or 4 dimensions.")
    if any(d == 0 for d in image.shape[-3:]):
        raise ValueError(f"{fn}: inner 3 dims of '{arg}.shape' must be > 0: {tuple(image.shape)}")
    return rank


def check_channels(image, fn, error=_core.InvalidArgumentError, arg="images"):
    if image.shape.rank < 1 or image.shape[-1] != 3:
        raise error(f"{fn}: '{arg}' must have 3 channels (RGB) in its last dimension, got shape {tuple(image.shape)}")


def check_float(image, fn, arg="image"):
    if not image.dtype.is_floating:
        raise _core.InvalidArgumentError(f"{fn}: '{arg}' must be float32 or float64, got {image.dtype.name}")


def to_working_float(image):
    """TF's adjust_* ops work in float32 (float16/float32 inputs as they are): integer images are scaled
    to [0, 1] by convert_image_dtype and float64 ones are cast."""
    return image if image.dtype == dtypes.float32 else convert_image(image, dtypes.float32)


def from_working_float(adjusted, dtype, saturate):
    return convert_image(adjusted, dtype, saturate)


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
    return int(np.iinfo(dtype.as_numpy_dtype).max)


def _stored(x, out, saturate):
    """An integer result x (in the input's integer dtype) as ``out``: cast, so values outside out's range
    wrap as TF's casts do, or clamped to that range first with ``saturate``."""
    if saturate:
        info = np.iinfo(out.as_numpy_dtype)
        lo, hi = max(int(info.min), x.dtype.min), min(int(info.max), x.dtype.max)
        x = minimum(maximum(x, constant(lo, x.dtype)), constant(hi, x.dtype))
    return cast(x, out)


def convert_image(image, out, saturate=False):
    """tf.image.convert_image_dtype of a tensor to ``out``, a float or integer DType (Note [Image dtype
    scaling] in _ops/image/convert_dtype.py); AttributeError for an image of another dtype."""
    src = image.dtype
    if not (src.is_floating or src.is_integer):
        raise AttributeError("convert_image_dtype: image dtype must be either floating point or integer")
    if out is src or out == src:
        return identity(image)
    if src.is_floating and out.is_floating:
        return cast(image, out)
    if src.is_integer and out.is_integer:
        max_in, max_out = _max(src), _max(out)
        if max_in > max_out:
            return _stored(floordiv(image, constant((max_in + 1) // (max_out + 1), image.dtype)), out, saturate)
        return cast(image, out) * constant((max_out + 1) // (max_in + 1), out)
    if src.is_integer:
        scale = np.array(1.0 / _max(src), dtype=out.as_numpy_dtype)
        return cast(image, out) * constant(scale)
    scaled = image * constant(np.array(_max(out) + 0.5, dtype=src.as_numpy_dtype))
    return cast(_saturate_to_int(scaled, out) if saturate else scaled, out)


def known_value(value):
    """A NumPy value for a Python number or eager tensor; None for a tensor traced in a graph (its value
    is known only when the graph runs, so checks on it are skipped)."""
    if isinstance(value, Tensor):
        return None if _core._tracing() and _core._is_traced(value) else value.numpy()
    return np.asarray(value)


def reverse_axes(image, axes):
    """``image`` with the listed axes (negative ones counted from the end) reversed, as tf.reverse."""
    return _raw.ReverseV2(image, axis=[a % image.ndim for a in axes])


def float_arg(value, fn, arg):
    return convert_arg(value, "float", fn, arg)


def check_range(lower, upper, fn):
    """A random op's [lower, upper) factor range as floats, with TF's ValueErrors."""
    lower, upper = float_arg(lower, fn, "lower"), float_arg(upper, fn, "upper")
    if upper <= lower:
        raise ValueError(f"{fn}: upper must be > lower.")
    if lower < 0:
        raise ValueError(f"{fn}: lower must be non-negative.")
    return lower, upper


def crop_size(size, value, fn="random_crop"):
    """A random crop's size as ints, one per dimension of ``value`` and none above it, and value's sizes."""
    if isinstance(size, _core.Tensor):
        if not size.dtype.is_integer:
            raise TypeError(f"{fn}: size must be integers, got dtype {size.dtype.name}")
        size = size.numpy().tolist()
    if any(isinstance(s, (float, np.floating)) for s in np.ravel(size).tolist()):
        raise TypeError(f"{fn}: cannot convert size={size!r} to int32")
    size = convert_arg(size, "ints", fn, "size")
    shape = static_sizes(value, fn)
    if len(size) != len(shape):
        raise errors.InvalidArgumentError(None, None, f"{fn}: size {size} must have one entry per dimension "
                                                      f"of value, of shape {tuple(shape)}")
    if any(s > d for s, d in zip(size, shape)):
        raise errors.InvalidArgumentError(None, None, f"{fn}: Need value.shape >= size, got {tuple(shape)} "
                                                      f"and {size}")
    return size, shape


def crop_at(value, size, limits, draws):
    """The ``size`` slice of value at offsets draws mod limits (the number of offsets per dimension)."""
    offsets = floormod(draws, constant(np.array(limits, dtype=np.int32)))
    out = value
    for axis, (s, limit) in enumerate(zip(size, limits)):
        if limit > 1:
            out = _raw.GatherV2(out, offsets[axis] + arange(s), axis=axis, batch_dims=0)
    return out


# tf.pad(x, paddings, "REFLECT") as array/slicing.py builds it (no registry op mirrors), for sobel_edges.
def reflect_pad(x, paddings):
    """``x`` padded by [before, after] pairs of ints, each axis mirrored without its edge entry."""
    for axis, (before, after) in enumerate(paddings):
        x = mirror_along(x, axis, before, after, 1)
    return x
