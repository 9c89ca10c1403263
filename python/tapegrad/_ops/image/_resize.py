"""tf.image.resize on an image tensor, which resize.py's public op and geometry.py's resize_with_pad
share, and the interpolation methods it names: gathers along the height and width axes and a weighted
sum (Note [Resize coordinates] in _ops/image/resize.py)."""
import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import expand_dims
from tapegrad._tensor.tensor import Tensor, cast, constant


class ResizeMethod:
    """The interpolation methods of tf.image.resize (their names are the strings it accepts)."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_UNIMPLEMENTED = (ResizeMethod.BICUBIC, ResizeMethod.AREA, ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5,
                  ResizeMethod.GAUSSIAN, ResizeMethod.MITCHELLCUBIC)


def _target_size(size):
    """(new_height, new_width) as Python ints, with TF's errors."""
    if isinstance(size, Tensor):
        if not size.dtype.is_integer:
            raise ValueError("'size' must be a 1-D int32 Tensor")
        size = size.numpy().tolist()
    values = np.asarray(size)
    if values.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    if values.dtype.kind not in "iu":
        raise ValueError("'size' must be a 1-D int32 Tensor")
    return int(values[0]), int(values[1])


def _bilinear_axis(in_size, out_size):
    """Per output index along one axis: (first source index, second source index, weight of the second)."""
    scale = np.float32(in_size) / np.float32(out_size)
    src = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int32)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int32)
    return lower, upper, (src - floor).astype(np.float32)


def _nearest_axis(in_size, out_size):
    scale = np.float32(in_size) / np.float32(out_size)
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale)
    return np.minimum(src, in_size - 1).astype(np.int32)


def _gather(images, positions, axis):
    """The entries of ``axis`` at the int32 NumPy ``positions``."""
    return _raw.GatherV2(images, constant(positions), axis=axis, batch_dims=0)


def _lerp(images, lower, upper, weight, axis):
    """images interpolated along axis (1: height, 2: width) between the lower and upper indices."""
    a = _gather(images, lower, axis)
    b = _gather(images, upper, axis)
    shape = [1, 1, 1, 1]
    shape[axis] = len(weight)
    return a + (b - a) * constant(weight.reshape(shape))


def resize_images(images, size, method, preserve_aspect_ratio, antialias):
    """tf.image.resize(images, size, method, preserve_aspect_ratio, antialias) for a tensor ``images``."""
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    if method in _UNIMPLEMENTED:
        raise errors.UnimplementedError(f"resize: method {method!r} is not supported (only 'bilinear' and 'nearest')")
    if method not in (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR):
        raise ValueError(f"Resize method is not implemented: {method}")
    new_h, new_w = _target_size(size)
    x = images if rank == 4 else expand_dims(images, 0)
    _, in_h, in_w, _ = x.shape
    if preserve_aspect_ratio and in_h and in_w:
        factor = min(new_h / in_h, new_w / in_w)
        new_h, new_w = int(round(factor * in_h)), int(round(factor * in_w))
    if new_h <= 0 or new_w <= 0:
        raise _core.InvalidArgumentError(f"resize: output dimensions must be positive, got {[new_h, new_w]}")
    if in_h == 0 or in_w == 0:
        raise _core.InvalidArgumentError(f"resize: input image must be of non-zero size, got shape {images.shape}")
    if x.shape[-1] == 0:
        raise _core.InvalidArgumentError(f"resize: image must have at least one channel, got shape {images.shape}")
    if x.dtype == dtypes.bool:
        raise _core.InvalidArgumentError("resize: images of dtype bool are not supported")
    if antialias and method == ResizeMethod.BILINEAR and (new_h < in_h or new_w < in_w):
        raise errors.UnimplementedError("resize: antialias=True when an axis shrinks is not supported")
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        out = _gather(_gather(x, _nearest_axis(in_h, new_h), 1), _nearest_axis(in_w, new_w), 2)
    else:
        x = x if x.dtype == dtypes.float32 else cast(x, dtypes.float32)
        out = _lerp(_lerp(x, *_bilinear_axis(in_w, new_w), axis=2), *_bilinear_axis(in_h, new_h), axis=1)
    return out if rank == 4 else _raw.Squeeze(out, axis=[0])
