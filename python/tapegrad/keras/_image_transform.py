"""TF's ImageProjectiveTransformV3 as composed ops (keras.ops.image.affine_transform and the RandomRotation,
RandomZoom and RandomTranslation layers sample through it): output pixel (x, y) of each image samples the input
at ((a0 x + a1 y + a2) / k, (a3 x + a4 y + a5) / k), k = a6 x + a7 y + 1, from the image's row of
``transforms`` [a0 .. a7] (one row for the batch, or one per image).

As in TF's kernel, a sampling point outside the image is first mapped back by the fill mode, on
each axis of length n separately: "reflect" (d c b a | a b c d | d c b a), "wrap" (a b c d | a b c d),
"nearest" (clamped to [0, n - 1]) or "constant" (left outside: the pixels read there are
fill_value). Then "nearest" reads the pixel at the rounded point (halves away from zero) and
"bilinear" mixes the four pixels around it, each outside pixel counting as fill_value; a point
with k == 0 is fill_value. Integer images get the mixed value truncated toward zero, as TF's cast.
"""
import tapegrad as tf

__all__ = ["projective_transform", "FILL_MODES", "INTERPOLATIONS"]

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("nearest", "bilinear")


def _trunc(x):
    """x rounded toward zero (the C++ cast of the kernel's index arithmetic)."""
    return tf.where(x < 0, tf.math.ceil(x), tf.math.floor(x))


def _reflect(c, n):
    if n <= 1:
        return tf.zeros_like(c)
    period = 2.0 * n
    low = c + period * _trunc(-c / period)
    low = tf.where(low < -n, low + period, -low - 1.0)
    high = c - period * _trunc(c / period)
    high = tf.where(high >= n, period - high - 1.0, high)
    return tf.where(c < 0, low, tf.where(c > n - 1, high, c))


def _wrap(c, n):
    if n <= 1:
        return tf.zeros_like(c)
    span = float(n - 1)
    low = c + n * (_trunc(-c / span) + 1.0)
    high = c - n * _trunc(c / span)
    return tf.where(c < 0, low, tf.where(c > n - 1, high, c))


def _map_coordinate(c, n, fill_mode):
    if fill_mode == "constant":
        return c
    mapped = c if fill_mode == "nearest" else (_reflect if fill_mode == "reflect" else _wrap)(c, n)
    return tf.clip_by_value(mapped, 0.0, float(n - 1))


def _reader(images, fill_value):
    """read(y, x): the pixels at integer float coordinates [batch, h, w] (fill_value outside), as
    float [batch, h, w, channels]."""
    height, width = int(images.shape[1]), int(images.shape[2])
    batch = tf.shape(images)[0]
    flat = tf.reshape(images, [-1, images.shape[3]])
    work = images.dtype if images.dtype.is_floating else tf.float32
    flat = tf.cast(flat, work)

    def read(y, x):
        inside = (y >= 0) & (y <= height - 1) & (x >= 0) & (x <= width - 1)
        yi = tf.cast(tf.clip_by_value(y, 0.0, height - 1.0), tf.int32)
        xi = tf.cast(tf.clip_by_value(x, 0.0, width - 1.0), tf.int32)
        rows = tf.reshape(tf.range(batch), [-1, 1, 1]) * (height * width)
        pixels = tf.gather(flat, rows + yi * width + xi)
        return tf.where(inside[..., None], pixels, tf.cast(fill_value, work))
    return read, work


def projective_transform(images, transforms, interpolation="bilinear", fill_mode="constant", fill_value=0.0,
                         output_shape=None):
    """images [batch, height, width, channels] sampled through transforms ([8] or [1 or batch, 8]) onto an
    output of (height, width) ``output_shape`` (the input's size by default). See the module's note."""
    images = tf.convert_to_tensor(images)
    if len(images.shape) != 4:
        raise tf.errors.InvalidArgumentError(None, None, "ImageProjectiveTransformV3: images must be 4-D, got shape "
                                                         f"{tuple(images.shape)}")
    fill_mode, interpolation = fill_mode.lower(), interpolation.lower()
    if fill_mode not in FILL_MODES:
        raise tf.errors.InvalidArgumentError(None, None, f"ImageProjectiveTransformV3: unknown fill_mode "
                                                         f"{fill_mode!r}; expected one of {FILL_MODES}")
    if interpolation not in INTERPOLATIONS:
        raise tf.errors.InvalidArgumentError(None, None, f"ImageProjectiveTransformV3: unknown interpolation "
                                                         f"{interpolation!r}; expected one of {INTERPOLATIONS}")
    transforms = tf.cast(tf.convert_to_tensor(transforms), tf.float32)
    if len(transforms.shape) == 1:
        transforms = transforms[None]
    if len(transforms.shape) != 2 or transforms.shape[1] != 8:
        raise tf.errors.InvalidArgumentError(None, None, "ImageProjectiveTransformV3: transforms must be [8] or "
                                                         f"[batch, 8], got shape {tuple(transforms.shape)}")
    height, width = int(images.shape[1]), int(images.shape[2])
    out_h, out_w = (height, width) if output_shape is None else (int(output_shape[0]), int(output_shape[1]))
    ys = tf.cast(tf.reshape(tf.range(out_h), [1, -1, 1]), tf.float32)
    xs = tf.cast(tf.reshape(tf.range(out_w), [1, 1, -1]), tf.float32)
    a = [tf.reshape(transforms[:, i], [-1, 1, 1]) for i in range(8)]
    k = a[6] * xs + a[7] * ys + 1.0
    safe_k = tf.where(k == 0, tf.ones_like(k), k)
    x = _map_coordinate((a[0] * xs + a[1] * ys + a[2]) / safe_k, width, fill_mode)
    y = _map_coordinate((a[3] * xs + a[4] * ys + a[5]) / safe_k, height, fill_mode)
    batch = tf.shape(images)[0]
    x, y = x + tf.zeros([batch, 1, 1]), y + tf.zeros([batch, 1, 1])  # one row of transforms serves the batch
    read, work = _reader(images, fill_value)
    if interpolation == "nearest":
        # std::round: halves away from zero (tf.round would take them to even)
        out = read(_trunc(y + tf.where(y < 0, -0.5, 0.5)), _trunc(x + tf.where(x < 0, -0.5, 0.5)))
    else:
        y0, x0 = tf.math.floor(y), tf.math.floor(x)
        wy, wx = tf.cast(y - y0, work)[..., None], tf.cast(x - x0, work)[..., None]
        top = (1 - wx) * read(y0, x0) + wx * read(y0, x0 + 1)
        bottom = (1 - wx) * read(y0 + 1, x0) + wx * read(y0 + 1, x0 + 1)
        out = (1 - wy) * top + wy * bottom
    out = tf.where((k == 0)[..., None], tf.cast(fill_value, work), out)
    return out if out.dtype == images.dtype else tf.cast(out, images.dtype)
