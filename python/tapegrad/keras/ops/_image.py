"""keras.ops.image over tapegrad's tf.image (images channels_last unless data_format says otherwise)."""
import tapegrad as tf
from tapegrad.keras import _image_transform as _affine
from tapegrad.keras import backend
from tapegrad.keras.ops._dtypes import as_tensor, to_float


def _unimplemented(what):
    raise tf.errors.UnimplementedError(None, None, what)


def _to_last(images, data_format):
    images = as_tensor(images)
    if (data_format or backend.image_data_format()) != "channels_first":
        return images
    rank = len(images.shape)
    return tf.transpose(images, list(range(rank - 3)) + [rank - 2, rank - 1, rank - 3])


def _from_last(images, data_format):
    if (data_format or backend.image_data_format()) != "channels_first":
        return images
    rank = len(images.shape)
    return tf.transpose(images, list(range(rank - 3)) + [rank - 1, rank - 3, rank - 2])


def _per_pixel(fn):
    def op(images, data_format=None):
        return _from_last(fn(_to_last(to_float(images), data_format)), data_format)
    return op


_RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5", "area")


def _resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
            pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        _unimplemented("keras.ops.image.resize: crop_to_aspect_ratio and pad_to_aspect_ratio")
    if interpolation not in _RESIZE_METHODS:
        raise ValueError(f"resize: invalid interpolation {interpolation!r}, expected one of {_RESIZE_METHODS}")
    images = _to_last(images, data_format)
    out = tf.image.resize(images, list(size), method=interpolation, antialias=antialias)
    out = tf.cast(out, images.dtype) if images.dtype.is_floating else out
    return _from_last(out, data_format)


def _extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    images = _to_last(images, data_format)
    size = [size, size] if isinstance(size, int) else list(size)
    strides = size if strides is None else [strides, strides] if isinstance(strides, int) else list(strides)
    rates = [dilation_rate, dilation_rate] if isinstance(dilation_rate, int) else list(dilation_rate)
    single = len(images.shape) == 3
    batch = images[None] if single else images
    out = tf.image.extract_patches(batch, [1, *size, 1], [1, *strides, 1], [1, *rates, 1], padding.upper())
    out = out[0] if single else out
    return _from_last(out, data_format)


def _box(name, first, second, target, size, total):
    """The offset and the size on one axis from Keras's (top or left, bottom or right, target) arguments."""
    grow = 1 if name == "pad_images" else -1
    if (target is None) + (first is None) + (second is None) != 1:
        raise ValueError(f"{name}: give exactly two of {total}")
    if target is None:
        return first, size + grow * (first + second)
    if first is None:
        first = grow * (target - size) - second
    return first, target


def _pad_or_crop(name, op):
    def run(images, top=None, left=None, bottom=None, right=None, target_height=None, target_width=None,
            data_format=None):
        images = _to_last(images, data_format)
        h, w = images.shape[-3], images.shape[-2]
        top, height = _box(name, top, bottom, target_height, h, "top, bottom and target_height")
        left, width = _box(name, left, right, target_width, w, "left, right and target_width")
        return _from_last(op(images, top, left, height, width), data_format)
    return run


def _pad_images(images, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
                target_height=None, target_width=None, data_format=None):
    return _pad_or_crop("pad_images", tf.image.pad_to_bounding_box)(
        images, top_padding, left_padding, bottom_padding, right_padding, target_height, target_width, data_format)


def _crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
                 target_height=None, target_width=None, data_format=None):
    return _pad_or_crop("crop_images", tf.image.crop_to_bounding_box)(
        images, top_cropping, left_cropping, bottom_cropping, right_cropping, target_height, target_width,
        data_format)


def _sobel_edges(images, data_format=None):
    x = to_float(images)
    single = len(x.shape) == 3
    x = _to_last(x[None] if single else x, data_format)
    out = tf.image.sobel_edges(x)  # [batch, height, width, channels, 2]
    if (data_format or backend.image_data_format()) == "channels_first":
        out = tf.transpose(out, [0, 3, 1, 2, 4])
    return out[0] if single else out


def _ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, data_format=None):
    a, b = _to_last(to_float(image1), data_format), _to_last(to_float(image2), data_format)
    return tf.image.ssim(a, tf.cast(b, a.dtype), max_val, filter_size=filter_size, filter_sigma=filter_sigma,
                         k1=k1, k2=k2)


def _gaussian_kernel(size, sigma):
    offsets = tf.cast(tf.range(size), "float64") - (size - 1) / 2.0
    weights = tf.exp(-tf.square(offsets) / (2.0 * sigma * sigma))
    return weights / tf.reduce_sum(weights)


def _gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    if kernel_size[0] != kernel_size[1] or sigma[0] != sigma[1]:
        _unimplemented("keras.ops.image.gaussian_blur: a kernel that is not square with one sigma (Keras's "
                       "answer for the others is not mapped)")
    x = to_float(images)
    single = len(x.shape) == 3
    x = _to_last(x[None] if single else x, data_format)
    rows, cols = _gaussian_kernel(kernel_size[0], sigma[0]), _gaussian_kernel(kernel_size[1], sigma[1])
    kernel = tf.cast(rows[:, None] * cols[None, :], x.dtype)
    kernel = tf.tile(kernel[:, :, None, None], [1, 1, x.shape[-1], 1])
    out = _from_last(tf.nn.depthwise_conv2d(x, kernel, [1, 1, 1, 1], "SAME"), data_format)
    return out[0] if single else out


def _affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
                      data_format=None):
    """Keras's affine_transform: each image sampled through its row [a0 .. a7] of ``transform`` (TF's
    ImageProjectiveTransformV3; keras/_image_transform.py)."""
    if interpolation not in _affine.INTERPOLATIONS:
        raise ValueError(f"Invalid value for argument `interpolation`. Expected of one {_affine.INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation}")
    if fill_mode not in _affine.FILL_MODES:
        raise ValueError(f"Invalid value for argument `fill_mode`. Expected of one {_affine.FILL_MODES}. "
                         f"Received: fill_mode={fill_mode}")
    x = _to_last(images, data_format)
    transform = as_tensor(transform)
    single = len(x.shape) == 3
    if len(x.shape) not in (3, 4) or len(transform.shape) not in (1, 2):
        raise ValueError("Invalid images rank or transform rank: expected images of rank 3 or 4 and transform of "
                         f"rank 1 or 2. Received: images.shape={tuple(x.shape)}, transform.shape="
                         f"{tuple(transform.shape)}")
    out = _affine.projective_transform(x[None] if single else x, transform, interpolation, fill_mode, fill_value)
    return _from_last(out[0] if single else out, data_format)


IMAGE = {
    "affine_transform": _affine_transform,
    "gaussian_blur": _gaussian_blur,
    "sobel_edges": _sobel_edges, "ssim": _ssim,
    "resize": _resize, "extract_patches": _extract_patches, "pad_images": _pad_images, "crop_images": _crop_images,
    "rgb_to_grayscale": _per_pixel(tf.image.rgb_to_grayscale), "rgb_to_hsv": _per_pixel(tf.image.rgb_to_hsv),
    "hsv_to_rgb": _per_pixel(tf.image.hsv_to_rgb),
}
