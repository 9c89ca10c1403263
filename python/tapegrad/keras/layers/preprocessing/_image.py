"""Shared image steps of the resizing and augmentation layers: data formats, aspect-ratio crops and pads,
and resizing that keeps an integer image's dtype (rounded, as Keras does)."""
import tapegrad as tf

__all__ = ["to_channels_last", "from_channels_last", "resize", "crop_to_aspect", "pad_to_aspect", "check_format",
           "float_image", "spatial_size"]


def check_format(data_format):
    data_format = "channels_last" if data_format is None else data_format
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError("The `data_format` argument must be one of {'channels_first', 'channels_last'}. "
                         f"Received: data_format={data_format}")
    return data_format


def to_channels_last(images, data_format):
    """images as [batch, height, width, channels] (a rank-3 image gets a batch axis), and whether it
    was unbatched."""
    unbatched = len(images.shape) == 3
    if len(images.shape) not in (3, 4):
        raise ValueError("Invalid images rank: expected rank 3 (single image) or rank 4 (batch of images). "
                         f"Received: images.shape={tuple(images.shape)}")
    if unbatched:
        images = tf.expand_dims(images, 0)
    if data_format == "channels_first":
        images = tf.transpose(images, [0, 2, 3, 1])
    return images, unbatched


def from_channels_last(images, data_format, unbatched):
    if data_format == "channels_first":
        images = tf.transpose(images, [0, 3, 1, 2])
    return images[0] if unbatched else images


def spatial_size(images):
    """(height, width) of a channels-last batch, as Python ints (the static shape)."""
    return int(images.shape[1]), int(images.shape[2])


def float_image(images, dtype):
    return images if images.dtype == dtype else tf.cast(images, dtype)


def crop_to_aspect(images, height, width):
    """The largest central window of the target aspect ratio (heights and widths truncated to ints)."""
    h, w = spatial_size(images)
    crop_h, crop_w = min(h, int(w * height / width)), min(w, int(h * width / height))
    top, left = (h - crop_h) // 2, (w - crop_w) // 2
    return images[:, top:top + crop_h, left:left + crop_w, :]


def pad_to_aspect(images, height, width, fill_value):
    """The image centred on the smallest canvas of the target aspect ratio, filled with fill_value."""
    h, w = spatial_size(images)
    pad_h, pad_w = max(h, int(w * height / width)), max(w, int(h * width / height))
    top, left = (pad_h - h) // 2, (pad_w - w) // 2
    paddings = [[0, 0], [top, pad_h - h - top], [left, pad_w - w - left], [0, 0]]
    return tf.pad(images, paddings, constant_values=fill_value)


def resize(images, height, width, interpolation, antialias, out_dtype):
    """tf.image.resize to (height, width); an integer ``out_dtype`` gets the values rounded half to even."""
    out = tf.image.resize(images, [height, width], method=interpolation, antialias=antialias)
    if out_dtype.is_integer:
        return tf.cast(tf.round(out), out_dtype)
    return out if out.dtype == out_dtype else tf.cast(out, out_dtype)
