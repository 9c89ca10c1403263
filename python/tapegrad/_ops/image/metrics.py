"""tf.image measures and filters: total_variation, image_gradients, sobel_edges, psnr and ssim (single
scale, Gaussian window). Composed of slices, pads and a depthwise convolution, so all differentiate.
psnr and ssim compare images as float32 on the [0, 1] scale of convert_image_dtype, as TF does.
"""
import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._lib.arrays import concat, stack
from tapegrad._ops.image._common import as_image, check_float, convert_image, reflect_pad, sized_zeros, static_sizes
from tapegrad._ops.math.elementwise import abs as _abs, log
from tapegrad._ops.math.reduction import reduce_mean, reduce_sum
from tapegrad._tensor.tensor import cast, constant

__all__ = ["total_variation", "image_gradients", "sobel_edges", "psnr", "ssim"]


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


@dispatch("images")
def total_variation(images, name=None):
    """The sum of absolute differences between neighbouring pixels (down and across), per image:
    a scalar for [h, w, c], one value per image for [batch, h, w, c]; in the images' dtype."""
    rank = images.shape.rank
    if rank not in (3, 4):
        raise ValueError("total_variation: 'images' must be either 3 or 4-dimensional.")
    down = images[..., 1:, :, :] - images[..., :-1, :, :]
    across = images[..., :, 1:, :] - images[..., :, :-1, :]
    axes = None if rank == 3 else [1, 2, 3]
    return reduce_sum(_abs(down), axis=axes) + reduce_sum(_abs(across), axis=axes)


@dispatch
def image_gradients(image):
    """(dy, dx): forward differences of ``image`` ([batch, h, w, d]) down and across, each the image's
    shape with zeros in the last row (dy) or column (dx)."""
    image = as_image(image, "image_gradients")
    if image.shape.rank != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not {tuple(image.shape)}.")
    b, h, w, d = static_sizes(image, "image_gradients")
    dy = concat([image[:, 1:] - image[:, :-1], sized_zeros([b, 1, w, d], image.dtype)], axis=1)
    dx = concat([image[:, :, 1:] - image[:, :, :-1], sized_zeros([b, h, 1, d], image.dtype)], axis=2)
    return dy, dx


_SOBEL_Y = ((-1, -2, -1), (0, 0, 0), (1, 2, 1))
_SOBEL_X = ((-1, 0, 1), (-2, 0, 2), (-1, 0, 1))


def _filter3x3(padded, taps, h, w):
    out = None
    for i in range(3):
        for j in range(3):
            if taps[i][j]:
                term = padded[:, i:i + h, j:j + w, :] * float(taps[i][j])
                out = term if out is None else out + term
    return out


@dispatch
def sobel_edges(image):
    """Sobel responses of ``image`` ([batch, h, w, d], float), edges mirrored: [batch, h, w, d, 2] with
    the vertical (dy) response first and the horizontal (dx) second."""
    image = as_image(image, "sobel_edges")
    check_float(image, "sobel_edges")
    if image.shape.rank != 4:
        raise _invalid(f"sobel_edges: 'image' must be 4-dimensional [batch, h, w, d], got shape "
                       f"{tuple(image.shape)}")
    _, h, w, _ = static_sizes(image, "sobel_edges")
    padded = reflect_pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]])
    return stack([_filter3x3(padded, _SOBEL_Y, h, w), _filter3x3(padded, _SOBEL_X, h, w)], axis=-1)


def _compared_pair(a, b, fn):
    for t in (a, b):
        if t.shape.rank < 3:
            raise _invalid(f"{fn}: images must be at least 3-D [..., h, w, c], got shape {tuple(t.shape)}")
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        raise _invalid(f"{fn}: incompatible image shapes {tuple(a.shape)} and {tuple(b.shape)}") from None
    return a, b


def _compatible(a, b):
    if min(a.shape.rank, b.shape.rank) < 3 or tuple(a.shape[-3:]) != tuple(b.shape[-3:]):
        return False
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        return False
    return True


def _max_val_float(peak, dtype):
    """max_val (a tensor) in the images' dtype, then on the [0, 1] float32 scale the images are compared on."""
    return convert_image(peak if peak.dtype == dtype else cast(peak, dtype), dtypes.float32)


@dispatch("a, b:tensor_own_dtype, max_val:tensor_own_dtype")
def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio (dB) between images ``a`` and ``b`` whose values span [0, max_val],
    per image: 20 log10(max_val) - 10 log10(mean squared error); float32."""
    a, b = _compared_pair(a, b, "psnr")
    peak = _max_val_float(max_val, a.dtype)
    a, b = convert_image(a, dtypes.float32), convert_image(b, dtypes.float32)
    mse = reduce_mean((a - b) * (a - b), axis=[-3, -2, -1])
    return 20.0 * log(peak) / np.float32(np.log(np.float32(10.0))) - np.float32(10 / np.log(10)) * log(mse)


def _gaussian_window(size, sigma):
    """A size x size Gaussian (softmax of -r^2 / (2 sigma^2)), float32, as [size, size, 1, 1]."""
    coords = np.arange(size, dtype=np.float32) - np.float32(size - 1) / np.float32(2)
    g = coords * coords * (np.float32(-0.5) / np.float32(sigma) ** 2)
    g = (g[None, :] + g[:, None]).reshape(-1)
    e = np.exp(g - g.max())
    return (e / e.sum()).astype(np.float32).reshape(size, size, 1, 1)


def _window_mean(x, window):
    """Gaussian-weighted local means over height and width (VALID), for any number of batch axes."""
    shape = list(x.shape)
    y = _raw.DepthwiseConv2dNative(_raw.Reshape(x, shape=[-1] + shape[-3:]), window, strides=[1, 1], padding="VALID",
                                   dilations=[1, 1])
    return _raw.Reshape(y, shape=shape[:-3] + list(y.shape[1:]))


@dispatch
def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False):
    """Structural similarity between ``img1`` and ``img2`` ([..., h, w, c], values in [0, max_val]),
    with a ``filter_size`` Gaussian window of ``filter_sigma``: luminance term times contrast-structure
    term, averaged over the window positions and channels (or, with ``return_index_map``, the map of
    window positions, averaged over channels). float32; h and w must be at least ``filter_size``."""
    img1, img2 = as_image(img1, "ssim", "img1"), as_image(img2, "ssim", "img2")
    if not _compatible(img1, img2):  # TF checks the static shapes before running
        raise ValueError(f"ssim: img1 and img2 must be [..., h, w, c] images of the same h, w and c and "
                         f"broadcastable batch dimensions, got shapes {tuple(img1.shape)} and {tuple(img2.shape)}")
    for t in (img1, img2):
        if min(static_sizes(t, "ssim")[-3:-1]) < filter_size:
            raise _invalid(f"ssim: images of shape {tuple(t.shape)} are smaller than filter_size={filter_size}")
    peak = _max_val_float(as_image(max_val, "ssim", "max_val"), img1.dtype)
    x, y = convert_image(img1, dtypes.float32), convert_image(img2, dtypes.float32)
    window = constant(np.tile(_gaussian_window(int(filter_size), filter_sigma), [1, 1, x.shape[-1], 1]))
    c1, c2 = (k1 * peak) * (k1 * peak), (k2 * peak) * (k2 * peak)
    mean_x, mean_y = _window_mean(x, window), _window_mean(y, window)
    num0 = mean_x * mean_y * 2.0
    den0 = mean_x * mean_x + mean_y * mean_y
    luminance = (num0 + c1) / (den0 + c1)
    num1 = _window_mean(x * y, window) * 2.0
    den1 = _window_mean(x * x + y * y, window)
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    index_map = luminance * cs
    if return_index_map:
        return reduce_mean(index_map, axis=-1)
    return reduce_mean(reduce_mean(index_map, axis=[-3, -2]), axis=-1)
