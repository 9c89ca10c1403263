"""Argument checks and float round trips shared by the tf.image modules (image_geometry, image_color,
image_hsv, image_random, image_metrics); errors name the public function and argument, with TF's classes."""
import numpy as np

from tapegrad import _core, dtypes
from tapegrad._function.trace_context import note_frozen_size
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import Tensor


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
    return image if image.dtype == dtypes.float32 else _convert_dtype.convert_image_dtype(image, dtypes.float32)


def from_working_float(adjusted, dtype, saturate):
    return _convert_dtype.convert_image_dtype(adjusted, dtype, saturate=saturate)


def known_value(value):
    """A NumPy value for a Python number or eager tensor; None for a tensor traced in a graph (its value
    is known only when the graph runs, so checks on it are skipped)."""
    if isinstance(value, Tensor):
        return None if _core._tracing() and _core._is_traced(value) else value.numpy()
    return np.asarray(value)


# Imported after the definitions above: these modules import this one (their names are read at call time).
from tapegrad._ops.image import convert_dtype as _convert_dtype  # noqa: E402
