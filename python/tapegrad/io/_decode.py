"""tf.io's image decoders (decode_png, decode_jpeg, decode_bmp, decode_gif, decode_image) on Pillow, with
TF's rules for which op takes which format and channel count.

Pixels come back as uint8 (or uint16) tensors. As in TF every decoder reads any format it can tell by its first bytes, except
that only decode_bmp / decode_image read BMP and decode_bmp reads only BMP; GIF and WebP give a 4-D
[frames, height, width, channels] tensor except through decode_png / decode_jpeg / decode_bmp (one
frame) and decode_image(expand_animations=False).
"""
import io

import numpy as np

from tapegrad import errors
from tapegrad._ops.image.convert_dtype import convert_image_dtype
from tapegrad._ops.image.pixels import UINT8, UINT16, as_pixel_type
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.tensor import constant
from tapegrad.io._args import scalar_bytes
from tapegrad.io._pillow import pil_image

__all__ = ["decode_png", "decode_jpeg", "decode_bmp", "decode_gif", "decode_image", "sniff", "check_jpeg_options",
           "decoded_frames", "pixel_tensor"]

_KNOWN = "Unknown image file format. One of JPEG, PNG, GIF, BMP, WebP required."
_OP_FOR = {"JPEG": "decode_jpeg", "PNG": "decode_png", "GIF": "decode_gif"}
_GRAY = np.array([0.299, 0.587, 0.114])  # TF's luma weights (Rec. 601), truncated as TF's PNG decoder does


def sniff(data):
    """The format ``data`` starts like: "JPEG", "PNG", "GIF", "BMP", "WebP", or None."""
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"GIF8"):
        return "GIF"
    if data.startswith(b"BM"):
        return "BMP"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WebP"
    return None


def _check_format(fmt, op):
    if op == "decode_bmp" and fmt in _OP_FOR:
        raise errors.InvalidArgumentError(f"decode_bmp: Trying to decode {fmt} format using DecodeBmp op. Use "
                                          f"`{_OP_FOR[fmt]}` or `decode_image` instead.")
    if fmt == "BMP" and op not in ("decode_bmp", "decode_image"):
        raise errors.InvalidArgumentError(f"{op}: Trying to decode BMP format using a wrong op. Use `decode_bmp` or "
                                          f"`decode_image` instead.")


def _check_channels(channels, fmt, op):
    """TF's channel checks: the op's, then the format's."""
    if channels not in (0, 1, 3, 4):
        raise errors.InvalidArgumentError(f"{op}: `channels` must be 0, 1, 3 or 4 but got {channels}")
    if (fmt == "BMP" or op == "decode_bmp") and channels == 1:
        raise errors.InvalidArgumentError(f"{op}: `channels` must be 0, 3 or 4 for BMP, but got 1")
    if fmt == "JPEG" and channels == 4:
        raise errors.InvalidArgumentError(f"{op}: JPEG does not support 4 channels")
    if fmt == "GIF" and channels not in (0, 3):
        raise errors.InvalidArgumentError(f"{op}: channels must be 0 or 3 for GIF, got {channels}")
    if fmt == "WebP" and channels == 1:
        raise errors.InvalidArgumentError(f"{op}: WebP only supports 3 or 4 channels")


def _bmp32(data, op):
    """A 32-bit BMP's pixels with their fourth byte as alpha, which Pillow drops and TF keeps."""
    offset, width = int.from_bytes(data[10:14], "little"), int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    if width <= 0 or offset + abs(height) * width * 4 > len(data):
        raise errors.InvalidArgumentError(f"{op}: Invalid BMP data: {len(data)} bytes hold no {width} x "
                                          f"{abs(height)} 32-bit image")
    px = np.frombuffer(data, np.uint8, abs(height) * width * 4, offset).reshape(abs(height), width, 4)
    return (px[::-1] if height > 0 else px)[..., [2, 1, 0, 3]]  # rows bottom-up unless height < 0; BGRA


def _pixels(im, fmt):
    """One decoded frame as a [height, width, channels] uint8 (uint16 for 16-bit PNGs) array, channels
    as the file has them: 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA)."""
    if fmt == "GIF":  # always RGB; transparent pixels are black, as TF's GIF decoder leaves them
        rgba = np.asarray(im.convert("RGBA"))
        rgb = rgba[..., :3].copy()
        rgb[rgba[..., 3] == 0] = 0
        return rgb
    mode = im.mode
    if mode.startswith("I"):  # 16-bit grayscale ("I;16", "I;16B", or "I" holding 0..65535)
        return np.clip(np.asarray(im), 0, 65535).astype(np.uint16)[..., None]
    if mode == "1":
        im = im.convert("L")
    elif mode in ("P", "PA"):
        im = im.convert("RGBA" if mode == "PA" or "transparency" in im.info else "RGB")
    elif mode not in ("L", "LA", "RGB", "RGBA"):  # CMYK and YCbCr JPEGs, ...
        im = im.convert("RGB")
    a = np.asarray(im)
    return a[..., None] if a.ndim == 2 else a


def _to_channels(a, want):
    """``a`` ([h, w, c]) with ``want`` channels (0: as it is), converted as TF converts them."""
    have = a.shape[-1]
    if want in (0, have):
        return a
    color = a[..., :3] if have >= 3 else np.repeat(a[..., :1], 3, axis=-1)
    if want == 1:
        return a[..., :1] if have < 3 else np.floor(color @ _GRAY).astype(a.dtype)[..., None]
    if want == 3:
        return color
    top = np.iinfo(a.dtype).max
    alpha = a[..., -1:] if have in (2, 4) else np.full(a.shape[:-1] + (1,), top, a.dtype)
    return np.concatenate([color, alpha], axis=-1)


def check_jpeg_options(ratio, dct_method, op):
    if ratio not in (1, 2, 4, 8):
        raise errors.InvalidArgumentError(f"{op}: ratio must be 1, 2, 4, or 8, got {ratio}")
    if dct_method not in ("", "INTEGER_FAST", "INTEGER_ACCURATE"):
        raise errors.InvalidArgumentError(f"{op}: dct_method must be one of {{'', 'INTEGER_FAST', "
                                          f"'INTEGER_ACCURATE'}}, got {dct_method!r}")


def decoded_frames(contents, op, channels=0, ratio=1):
    """(format, [frames as arrays]) of the image in ``contents``, checked as ``op`` checks it."""
    data = scalar_bytes(contents, op, "contents")
    if not data:
        raise errors.InvalidArgumentError(f"{op}: Input is empty.")
    fmt = sniff(data)
    if fmt is None:
        raise errors.InvalidArgumentError(f"{op}: {_KNOWN}")
    _check_format(fmt, op)
    _check_channels(channels, fmt, op)
    if fmt == "BMP" and int.from_bytes(data[28:30], "little") == 32:
        return fmt, [_to_channels(_bmp32(data, op), channels)]
    Image = pil_image(op)
    try:
        im = Image.open(io.BytesIO(data))
        if fmt == "JPEG" and (channels == 1 and im.mode in ("RGB", "YCbCr") or ratio > 1):
            # libjpeg scales by 1/ratio, and gives the luma plane for one channel, while it decodes (as TF)
            w, h = im.size
            im.draft("L" if channels == 1 else im.mode, (max(1, w // ratio), max(1, h // ratio)))
        frames = []
        for k in range(getattr(im, "n_frames", 1)):
            im.seek(k)
            frames.append(_pixels(im, fmt))
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise errors.InvalidArgumentError(f"{op}: Invalid {fmt} data ({len(data)} bytes): {e}") from None
    if fmt == "WebP" and channels and channels != frames[0].shape[-1]:
        raise errors.InvalidArgumentError(f"{op}: Number of channels requested does not match input")
    return fmt, [_to_channels(f, channels) for f in frames]


def pixel_tensor(a, pixel_type, fmt="PNG"):
    """A ``pixel_type`` (uint8 / uint16) tensor of the uint8 / uint16 array ``a``. As in
    TF, 16 -> 8 bits keeps the high byte; 8 -> 16 bits multiplies by 257 for PNG (libpng's expansion)
    and by 256 for the other formats (convert_image_dtype of their uint8)."""
    if pixel_type is UINT8 and a.dtype == np.uint16:
        a = a >> 8
    elif pixel_type is UINT16 and a.dtype == np.uint8:
        a = a.astype(np.uint16) * np.uint16(257 if fmt == "PNG" else 256)
    return constant(a.astype(pixel_type.as_numpy_dtype))


def _decode(contents, op, channels, pixel_type=UINT8, frames="one", ratio=1):
    """The image ``op`` decodes from ``contents``. ``frames``: "one" for decode_png / decode_jpeg /
    decode_bmp (3-D; a GIF must have one frame; WebP gives 4-D all the same, as in TF), "all" for
    decode_gif (4-D always), "animations" for decode_image (4-D for GIF and WebP), "first" for
    decode_image(expand_animations=False) (3-D). ``pixel_type`` None: uint16 for PNG, uint8 for the rest
    (what TF decodes to before converting to another dtype)."""
    fmt, arrays = decoded_frames(contents, op, channels, ratio)
    if frames == "one" and fmt == "GIF" and len(arrays) > 1:
        raise errors.InvalidArgumentError(f"{op}: Got {len(arrays)} frames, but animated gifs can only be decoded "
                                          f"by tf.io.decode_gif or tf.io.decode_image")
    if fmt == "WebP" and pixel_type is not UINT8:
        raise errors.InvalidArgumentError(f"{op}: WebP only supports uint8 for dtype")
    if pixel_type is None:
        pixel_type = UINT16 if fmt == "PNG" else UINT8
    animated = fmt == "WebP" if frames == "one" else frames == "all" or frames == "animations" and fmt in (
        "GIF", "WebP")
    return pixel_tensor(np.stack(arrays) if animated else arrays[0], pixel_type, fmt)


def _channels(channels, op):
    if isinstance(channels, bool) or not isinstance(channels, (int, np.integer)):
        raise TypeError(f"{op}: `channels` must be an int, got {type(channels).__name__} {channels!r}")
    return int(channels)


def decode_png(contents, channels=0, dtype="uint8", name=None):
    """The PNG (or JPEG, one-frame GIF) image in the scalar string ``contents`` as a [height, width,
    channels] uint8 tensor (uint16 with ``dtype=tf.uint16``); ``channels`` 1, 3 or 4
    converts, 0 keeps the file's."""
    pixel_type = as_pixel_type(dtype)
    if pixel_type is None:
        raise errors.InvalidArgumentError(f"decode_png: Value for attr 'dtype' of {getattr(dtype, 'name', dtype)} is "
                                          f"not in the list of allowed values: uint8, uint16")
    return _decode(contents, "decode_png", _channels(channels, "decode_png"), pixel_type)


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True, try_recover_truncated=False,
                acceptable_fraction=1, dct_method="", name=None):
    """The JPEG (or PNG, one-frame GIF) image in ``contents`` as [height, width, channels] uint8 pixels;
    ``ratio`` (2, 4, 8) downscales while decoding. libjpeg's accurate integer IDCT decodes always
    (TF's default fast one differs by a few levels); the other options are accepted and not used."""
    check_jpeg_options(ratio, dct_method, "decode_jpeg")
    return _decode(contents, "decode_jpeg", _channels(channels, "decode_jpeg"), ratio=ratio)


def decode_bmp(contents, channels=0, name=None):
    """The BMP image in ``contents`` as [height, width, channels] uint8 pixels (channels 0, 3, 4)."""
    return _decode(contents, "decode_bmp", _channels(channels, "decode_bmp"))


def decode_gif(contents, name=None):
    """The frames of the GIF (or PNG, JPEG) image in ``contents`` as [frames, height, width, 3] uint8
    pixels."""
    return _decode(contents, "decode_gif", 3, frames="all")  # always RGB, as TF


def decode_image(contents, channels=None, dtype="uint8", name=None, expand_animations=True):
    """Any of JPEG, PNG, GIF, BMP, WebP in ``contents``: [height, width, channels], or [frames, height,
    width, channels] for GIF / WebP unless ``expand_animations`` is False (then the first frame). uint8
    pixels by default; ``dtype`` float32 gives [0, 1] (convert_image_dtype)."""
    op = "decode_image"
    channels = 0 if channels is None else _channels(channels, op)
    frames = "animations" if expand_animations else "first"
    pixel_type = as_pixel_type(dtype)
    if pixel_type is not None:
        return _decode(contents, op, channels, pixel_type, frames)
    out = convert_arg(dtype, "dtype", op, "dtype")
    if not (out.is_floating or out.is_integer):
        raise AttributeError(f"{op}: dtype must be either floating point or integer, got {out.name}")
    # as TF: PNG decoded at 16 bits, the other formats at 8, then converted
    return convert_image_dtype(_decode(contents, op, channels, None, frames), out)
