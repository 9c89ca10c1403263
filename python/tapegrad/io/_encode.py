"""tf.io.encode_png (written here with zlib: Pillow cannot write 16-bit color PNGs) and encode_jpeg
(Pillow); images are uint8 or uint16 tensors or NumPy arrays."""
import io
import struct
import zlib

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._ops._wrap import convert_arg
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._function.trace_context import is_symbolic_tensor
from tapegrad.io._args import strings
from tapegrad.io._pillow import pil_image

__all__ = ["encode_png", "encode_jpeg"]


def _values(image, op):
    """(``image``'s values as a NumPy array, whether it holds uint16 pixels)."""
    if isinstance(image, np.ndarray) and image.dtype in (np.uint8, np.uint16):
        return image, image.dtype == np.uint16
    if isinstance(image, StringTensor):
        raise TypeError(f"{op}: `image` must be a tensor of pixels, got a string tensor")
    t = convert_arg(image, "tensor", op, "image")
    if is_symbolic_tensor(t):  # the result is a string, which lives in Python, outside graphs
        raise errors.OperatorNotAllowedInGraphError(f"{op}: cannot encode a tensor traced into a graph: its "
                                                    f"string result is computed in Python from known values")
    return np.asarray(t), t.dtype == dtypes.uint16


def _chunk(tag, data):
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def _filtered(rows, bpp):
    """PNG scanlines, each prefixed by the filter (none, sub, up, average, Paeth) whose output has the
    smallest sum of absolute values as signed bytes (libpng's heuristic for choosing)."""
    x = rows.astype(np.int16)
    left, up, upleft = np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)
    left[:, bpp:], up[1:], upleft[1:, bpp:] = x[:, :-bpp], x[:-1], x[:-1, :-bpp]
    p = left + up - upleft
    pa, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - upleft)
    paeth = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, upleft))
    candidates = (np.stack([x, x - left, x - up, x - (left + up) // 2, x - paeth]) & 0xFF).astype(np.uint8)
    cost = np.abs(candidates.view(np.int8).astype(np.int32)).sum(axis=-1)  # [5 filters, rows]
    choice = cost.argmin(axis=0)
    out = np.empty((rows.shape[0], rows.shape[1] + 1), np.uint8)
    out[:, 0] = choice
    out[:, 1:] = candidates[choice, np.arange(rows.shape[0])]
    return out


def _png(a, level):
    """The PNG file of ``a`` ([h, w, c] uint8 or uint16, c = 1..4)."""
    h, w, c = a.shape
    depth = 16 if a.dtype == np.uint16 else 8
    raw = a.astype(">u2").view(np.uint8) if depth == 16 else a
    rows = np.ascontiguousarray(raw).reshape(h, -1)
    header = struct.pack(">IIBBBBB", w, h, depth, {1: 0, 2: 4, 3: 2, 4: 6}[c], 0, 0, 0)
    data = zlib.compress(_filtered(rows, c * depth // 8).tobytes(), level)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def encode_png(image, compression=-1, name=None):
    """``image`` ([..., height, width, channels], 1 to 4 channels) as PNG: a scalar string, or a string
    tensor of the batch shape. 8-bit from int32 pixels in [0, 255]; 16-bit from int32 pixels decoded as
    uint16, or a NumPy uint16 array. ``compression`` -1 (zlib's default) or 0..9."""
    op = "encode_png"
    a, sixteen = _values(image, op)
    if a.ndim < 3:
        raise errors.InvalidArgumentError(f"{op}: images must be at least rank 3, got shape {list(a.shape)}")
    if not 1 <= a.shape[-1] <= 4:
        raise errors.InvalidArgumentError(f"{op}: image must have 1, 2, 3, or 4 channels, got {a.shape[-1]}")
    if not -1 <= compression <= 9:
        raise errors.InvalidArgumentError(f"{op}: compression should be in [-1,9], got {compression}")
    if a.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(f"{op}: image must hold uint8 or uint16 pixels (int32 tensors here), got "
                                          f"{a.dtype}; scale and convert it first, e.g. "
                                          f"tf.image.convert_image_dtype(image, 'uint8')")
    if a.dtype not in (np.uint8, np.uint16):
        top, kind = (65535, "uint16") if sixteen else (255, "uint8")
        if a.size and (a.min() < 0 or a.max() > top):
            raise errors.InvalidArgumentError(f"{op}: pixel values must be in [0, {top}] ({kind} held in {a.dtype}), "
                                              f"got values in [{a.min()}, {a.max()}]")
        a = a.astype(np.uint16 if sixteen else np.uint8)
    if 0 in a.shape[-3:-1]:
        raise errors.InvalidArgumentError(f"{op}: image must have a height and a width, got shape {list(a.shape)}")
    batch = a.shape[:-3]
    files = [_png(img, compression) for img in a.reshape((-1,) + a.shape[-3:])]
    return strings(files, batch)


def _jfif_units_in_cm(data):
    """``data`` with the JFIF header's density unit set to centimetres (Pillow writes inches)."""
    at = data.find(b"JFIF\x00", 0, 32)
    return data if at < 0 else data[:at + 7] + b"\x02" + data[at + 8:]


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False, chroma_downsampling=True,
                density_unit="in", x_density=300, y_density=300, xmp_metadata="", name=None):
    """``image`` ([height, width, 1 or 3] uint8 pixels) as a JPEG scalar string; other values are cast to
    uint8 as TF casts them (truncated, wrapped). ``format`` "grayscale" / "rgb" requires 1 / 3 channels;
    ``chroma_downsampling`` gives 4:2:0, otherwise 4:4:4."""
    op = "encode_jpeg"
    a, _ = _values(image, op)
    if a.ndim != 3:
        raise errors.InvalidArgumentError(f"{op}: image must be 3-dimensional, got shape {list(a.shape)}")
    channels = a.shape[-1]
    if channels not in (1, 3):
        raise errors.InvalidArgumentError(f"{op}: image must have 1 or 3 channels, got {list(a.shape)}")
    expected = {"": channels, "grayscale": 1, "rgb": 3}.get(format)
    if expected is None:
        raise errors.InvalidArgumentError(f"{op}: format must be '', 'grayscale' or 'rgb', got {format!r}")
    if expected != channels:
        raise errors.InvalidArgumentError(f"{op}: format {format} expects {expected} channels, got {list(a.shape)}")
    if not 0 <= quality <= 100:
        raise errors.InvalidArgumentError(f"{op}: quality must be in [0,100], got {quality}")
    if density_unit not in ("in", "cm"):
        raise errors.InvalidArgumentError(f"{op}: density_unit must be 'in' or 'cm', got {density_unit!r}")
    if a.dtype != np.uint8:
        with np.errstate(invalid="ignore"):  # NaN and infinities become some integer, as in TF's cast
            a = (np.trunc(a) if a.dtype.kind == "f" else a).astype(np.int64).astype(np.uint8)  # wraps
    Image = pil_image(op)
    options = dict(quality=int(quality), progressive=bool(progressive), optimize=bool(optimize_size),
                   subsampling=2 if chroma_downsampling else 0, dpi=(int(x_density), int(y_density)))
    if xmp_metadata:
        options["xmp"] = xmp_metadata.encode("utf-8") if isinstance(xmp_metadata, str) else bytes(xmp_metadata)
    out = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(a[..., 0] if channels == 1 else a)).save(out, "JPEG", **options)
    data = out.getvalue()
    return strings([_jfif_units_in_cm(data) if density_unit == "cm" else data], ())
