"""tf.image geometry: flips, quarter turns, transposes, crops, pads and patch extraction of
[height, width, channels] or [batch, height, width, channels] images, as reversals, slices, gathers and
pads, so gradients come from those ops. Sizes are the images' static dimensions (as in tf.image.resize).
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import _core, dtypes, errors
from tapegrad._function.control_flow import switch_case
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import arange, stack
from tapegrad._ops.image._common import as_image, check_rank, reverse_axes, sized_reshape, sized_zeros, static_sizes
from tapegrad._ops._wrap import convert_arg
from tapegrad._ops.image._resize import ResizeMethod, resize_images
from tapegrad._tensor.tensor import Tensor, cast

__all__ = ["flip_left_right", "flip_up_down", "rot90", "transpose", "central_crop", "crop_to_bounding_box",
           "pad_to_bounding_box", "resize_with_crop_or_pad", "resize_with_pad", "extract_patches"]


def _traced(t):
    return isinstance(t, Tensor) and _core._tracing() and _core._is_traced(t)


def _hw(image, fn):
    return tuple(static_sizes(image, fn)[-3:-1])


@dispatch
def flip_left_right(image):
    """``image`` mirrored along its width axis."""
    image = as_image(image, "flip_left_right")
    check_rank(image, "flip_left_right")
    return reverse_axes(image, [-2])


@dispatch
def flip_up_down(image):
    """``image`` mirrored along its height axis."""
    image = as_image(image, "flip_up_down")
    check_rank(image, "flip_up_down")
    return reverse_axes(image, [-3])


def _swap_hw(image):
    return _raw.Transpose(image, perm=[1, 0, 2] if image.shape.rank == 3 else [0, 2, 1, 3])


@dispatch("image")
def transpose(image, name=None):
    """``image`` with its height and width axes swapped."""
    check_rank(image, "transpose")
    return _swap_hw(image)


def _quarter_turns(image, k):
    """``image`` turned counter-clockwise by k quarter turns, k a Python int in 0..3."""
    if k == 1:
        return _swap_hw(reverse_axes(image, [-2]))
    if k == 2:
        return reverse_axes(image, [-3, -2])
    if k == 3:
        return reverse_axes(_swap_hw(image), [-2])
    return image


def _turns(k):
    """rot90's ``k``: a Python int, or a traced int32 scalar tensor; TF's errors for other values."""
    if isinstance(k, Tensor):
        if k.dtype != dtypes.int32:
            raise ValueError(f"rot90: k: Tensor conversion requested dtype int32 for Tensor with dtype {k.dtype.name}")
        if k.shape.rank != 0:
            raise ValueError(f"rot90: k must be a scalar: shape {tuple(k.shape)} must have rank 0")
        return k if _traced(k) else int(k.numpy())
    if isinstance(k, (bool, float, np.floating)) or not isinstance(k, (int, np.integer)):
        if np.ndim(k) != 0:
            raise ValueError(f"rot90: k must be a scalar: shape {np.shape(k)} must have rank 0")
        raise TypeError(f"rot90: cannot convert k={k!r} to an int32 scalar")
    return int(k)


@dispatch("image, k:any=1")
def rot90(image, k=1, name=None):
    """``image`` rotated counter-clockwise by ``k`` quarter turns (k may be negative, or an int32 scalar
    tensor; a traced one chooses among the four turns when the graph runs)."""
    check_rank(image, "rot90")
    k = _turns(k)
    if isinstance(k, Tensor):
        return switch_case(k % 4, [lambda t=t: _quarter_turns(image, t) for t in (0, 1, 2, 3)])
    return _quarter_turns(image, k % 4)


def _slice_hw(image, top, left, height, width):
    return image[..., top:top + height, left:left + width, :]


@dispatch
def central_crop(image, central_fraction):
    """The central ``central_fraction`` (in (0, 1]) of ``image``'s height and width."""
    image = as_image(image, "central_crop")
    fraction = convert_arg(central_fraction, "float", "central_crop", "central_fraction")
    if not 0.0 < fraction <= 1.0:  # NaN too
        raise ValueError("central_crop: central_fraction must be within (0, 1]")
    check_rank(image, "central_crop")
    if fraction == 1.0:
        return image
    h, w = _hw(image, "central_crop")
    top, left = int((h - h * fraction) / 2), int((w - w * fraction) / 2)
    return _slice_hw(image, top, left, h - 2 * top, w - 2 * left)


def _int(value, fn, arg):
    return convert_arg(value, "int", fn, arg)


def _offset(value, fn, arg):
    """An offset as a Python int, or a traced integer scalar (its bounds then go unchecked)."""
    return value if _traced(value) else _int(value, fn, arg)


def _take(image, offset, size, axis):
    """``size`` entries of ``axis`` from a traced ``offset`` on: a gather, so the graph reads the offset."""
    return _raw.GatherV2(image, cast(offset, dtypes.int32) + arange(size), axis=axis, batch_dims=0)


@dispatch
def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height`` x ``target_width`` window of ``image`` whose top-left pixel is at
    (``offset_height``, ``offset_width``); the offsets may be traced tensors."""
    fn = "crop_to_bounding_box"
    image = as_image(image, fn)
    check_rank(image, fn)
    top, left = _offset(offset_height, fn, "offset_height"), _offset(offset_width, fn, "offset_width")
    th, tw = _int(target_height, fn, "target_height"), _int(target_width, fn, "target_width")
    h, w = _hw(image, fn)
    for arg, value in (("offset_width", left), ("offset_height", top)):
        if isinstance(value, int) and value < 0:
            raise ValueError(f"{fn}: {arg} must be >= 0.")
    if tw <= 0:
        raise ValueError(f"{fn}: target_width must be > 0.")
    if th <= 0:
        raise ValueError(f"{fn}: target_height must be > 0.")
    if tw > w or (isinstance(left, int) and tw + left > w):
        raise ValueError(f"{fn}: width must be >= target + offset.")
    if th > h or (isinstance(top, int) and th + top > h):
        raise ValueError(f"{fn}: height must be >= target + offset.")
    rank = image.shape.rank
    out = image[..., top:top + th, :, :] if isinstance(top, int) else _take(image, top, th, rank - 3)
    return out[..., left:left + tw, :] if isinstance(left, int) else _take(out, left, tw, rank - 2)


@dispatch
def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """``image`` placed at (``offset_height``, ``offset_width``) in a zero
    ``target_height`` x ``target_width`` canvas."""
    fn = "pad_to_bounding_box"
    image = as_image(image, fn)
    check_rank(image, fn)
    top, left = _int(offset_height, fn, "offset_height"), _int(offset_width, fn, "offset_width")
    th, tw = _int(target_height, fn, "target_height"), _int(target_width, fn, "target_width")
    h, w = _hw(image, fn)
    bottom, right = th - top - h, tw - left - w
    if top < 0:
        raise ValueError(f"{fn}: offset_height must be >= 0")
    if left < 0:
        raise ValueError(f"{fn}: offset_width must be >= 0")
    if right < 0:
        raise ValueError(f"{fn}: width must be <= target - offset")
    if bottom < 0:
        raise ValueError(f"{fn}: height must be <= target - offset")
    paddings = [[top, bottom], [left, right], [0, 0]]
    return _pad(image, paddings if image.shape.rank == 3 else [[0, 0]] + paddings)


def _pad(image, paddings):
    """``image`` with [before, after] zeros along each axis (tf.pad with ints)."""
    return _raw.Pad(image, paddings=[p for pair in paddings for p in pair], constant_values=0.0)


def _target_size(target_height, target_width, fn):
    """(height, width) as positive Python ints, with TF's ValueErrors."""
    th, tw = _int(target_height, fn, "target_height"), _int(target_width, fn, "target_width")
    if tw <= 0:
        raise ValueError(f"{fn}: target_width must be > 0.")
    if th <= 0:
        raise ValueError(f"{fn}: target_height must be > 0.")
    return th, tw


@dispatch
def resize_with_crop_or_pad(image, target_height, target_width):
    """``image`` cropped centrally and/or padded evenly with zeros to ``target_height`` x ``target_width``."""
    fn = "resize_with_crop_or_pad"
    image = as_image(image, fn)
    check_rank(image, fn)
    th, tw = _target_size(target_height, target_width, fn)
    h, w = _hw(image, fn)
    dh, dw = th - h, tw - w
    # crop offsets round down and pad offsets round down, so an odd difference leaves its extra row at the end
    cropped = _slice_hw(image, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h), min(tw, w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


@dispatch
def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR, antialias=False):
    """``image`` resized (tf.image.resize with ``method``) to fit ``target_height`` x ``target_width``
    without distortion, then padded with zeros to that size, centred."""
    fn = "resize_with_pad"
    image = as_image(image, fn)
    check_rank(image, fn)
    th, tw = _target_size(target_height, target_width, fn)
    f32 = np.float32
    h, w = (f32(d) for d in _hw(image, fn))
    ratio = max(w / f32(tw), h / f32(th))  # float32 throughout, so the sizes round as TF's do
    new_h, new_w = h / ratio, w / ratio
    pad_h, pad_w = (f32(th) - new_h) / f32(2), (f32(tw) - new_w) / f32(2)
    resized = resize_images(image, [int(np.floor(new_h)), int(np.floor(new_w))], method, False, antialias)
    return pad_to_bounding_box(resized, max(0, int(np.floor(pad_h))), max(0, int(np.floor(pad_w))), th, tw)


def _window_arg(values, fn, arg, what):
    if len(values) != 4:
        raise errors.InvalidArgumentError(None, None, f"{fn}: '{arg}' must have 4 entries, got {values}")
    if values[0] != 1 or values[3] != 1:
        raise errors.UnimplementedError(None, None, f"{fn}: only {what} across space are supported, got {arg}={values}")
    if min(values) < 1:
        raise errors.OutOfRangeError(None, None, f"{fn}: {arg} must be positive, got {values}")
    return values[1], values[2]


def _patch_axis(size, k, stride, rate, padding):
    """(output length, padding before, padding after) along one axis, as TF's windowed ops count them."""
    span = (k - 1) * rate + 1
    if padding == "VALID":
        return max(0, -(-(size - span + 1) // stride)), 0, 0
    out = -(-size // stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


@dispatch("images, sizes:ints, strides:ints, rates:ints, padding:any")
def extract_patches(images, sizes, strides, rates, padding, name=None):
    """Every ``sizes[1]`` x ``sizes[2]`` patch of ``images`` ([batch, height, width, depth]) taken
    ``strides`` apart, its pixels ``rates`` apart, flattened (rows, then columns, then depth) into the
    last axis: [batch, out_rows, out_cols, rows * cols * depth]. ``padding`` is "VALID" or "SAME"
    (zeros around the image)."""
    fn = "extract_patches"
    kh, kw = _window_arg(sizes, fn, "sizes", "ksizes")
    sh, sw = _window_arg(strides, fn, "strides", "strides")
    rh, rw = _window_arg(rates, fn, "rates", "rates")
    if not isinstance(padding, str) or padding not in ("VALID", "SAME"):
        raise errors.InvalidArgumentError(None, None, f"{fn}: padding must be 'SAME' or 'VALID', got {padding!r}")
    if images.shape.rank != 4:
        raise errors.InvalidArgumentError(None, None, f"{fn}: images must be 4-dimensional, got shape "
                                                      f"{tuple(images.shape)}")
    if images.dtype == dtypes.bool:
        raise errors.InvalidArgumentError(None, None, f"{fn}: images of dtype bool are not supported")
    batch, h, w, depth = static_sizes(images, fn)
    oh, top, bottom = _patch_axis(h, kh, sh, rh, padding)
    ow, left, right = _patch_axis(w, kw, sw, rw, padding)
    if oh == 0 or ow == 0:
        return sized_zeros([batch, oh, ow, kh * kw * depth], images.dtype)
    x = _pad(images, [[0, 0], [top, bottom], [left, right], [0, 0]]) if top + bottom + left + right else images
    taps = [x[:, i * rh:i * rh + (oh - 1) * sh + 1:sh, j * rw:j * rw + (ow - 1) * sw + 1:sw, :]
            for i in range(kh) for j in range(kw)]
    return sized_reshape(stack(taps, axis=3), [batch, oh, ow, kh * kw * depth])
