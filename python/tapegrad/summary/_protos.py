"""Summary protos for each kind of data, built by TensorBoard's own plugin helpers (the formats
TensorBoard's scalars, histograms, images and text dashboards read, as TF writes them). It needs the
tensorboard extra (TensorBoard and Pillow), so tf.summary imports it at the first summary it writes."""
import io

import numpy as np
from PIL import Image
from tensorboard.compat.proto import summary_pb2
from tensorboard.plugins.histogram import metadata as histogram_metadata
from tensorboard.plugins.image import metadata as image_metadata
from tensorboard.plugins.scalar import summary_v2 as scalar_summary_v2
from tensorboard.plugins.text import summary_v2 as text_summary_v2
from tensorboard.util import tensor_util

__all__ = ["scalar_summary", "histogram_summary", "image_summary", "text_summary"]


def _values(data):
    """A tensor, Variable, NumPy array or Python value as a NumPy array."""
    return np.asarray(data.numpy() if hasattr(data, "numpy") else data)


def scalar_summary(name, data, description):
    a = _values(data)
    if a.shape != ():
        raise ValueError(f"Expected scalar shape, saw shape: {a.shape}.")
    if a.dtype.kind not in "biuf":
        raise ValueError(f"tf.summary.scalar: {name}: cannot write a {a.dtype} value as a float scalar")
    return scalar_summary_v2.scalar_pb(name, a, description)


def _buckets(data, k):
    """[k, 3] rows (left edge, right edge, count) of k equal-width buckets over [min, max], the last one
    closed, as TensorBoard's histogram_pb computes them, in O(n) memory (a bincount, where it builds an
    n x k one-hot table: 750 MB for a 25M-weight model). Constant data fills the last bucket."""
    if k == 0 or data.size == 0:
        return np.zeros((k, 3))
    low, high = np.min(data), np.max(data)
    if high == low:
        counts = np.zeros(k)
        counts[-1] = data.size
        return np.stack([np.full(k, low), np.full(k, low), counts], axis=1)
    with np.errstate(invalid="ignore", over="ignore"):  # NaN and inf: NaN edges, as TensorBoard's
        index = np.floor((data - low) / ((high - low) / k))
        edges = np.linspace(low, high, k + 1)
    index = np.minimum(index[np.isfinite(index)], k - 1).astype(np.int64)  # NaN lands in no bucket
    return np.stack([edges[:-1], edges[1:], np.bincount(index, minlength=k)[:k]], axis=1).astype(np.float64)


def histogram_summary(name, data, buckets, description):
    a = _values(data)
    if a.dtype.kind not in "biuf":
        raise ValueError(f"tf.summary.histogram: {name}: cannot bucket {a.dtype} values")
    if buckets is not None and not isinstance(buckets, bool) and int(buckets) > 2**31 - 1:  # TF's class and words
        raise TypeError(f"tf.summary.histogram: {name}: buckets: tensor must be of type tf.int32; got tf.int64 "
                        f"({buckets!r})")
    if buckets is not None and (isinstance(buckets, bool) or int(buckets) < 0):
        raise ValueError(f"tf.summary.histogram: {name}: buckets must be a positive int, got {buckets!r}")
    table = _buckets(a.ravel().astype(np.float64), 30 if buckets is None else int(buckets))
    summary = summary_pb2.Summary()
    summary.value.add(tag=name, metadata=histogram_metadata.create_summary_metadata(None, description),
                      tensor=tensor_util.make_tensor_proto(table, dtype=np.float64))
    return summary


def _as_uint8(images):
    """Pixels as uint8, as TF's convert_image_dtype makes them: floats in [0, 1] scaled by 255.5 and
    saturated; wider integers shifted down to their top 8 bits."""
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind == "f":
        return np.clip(np.nan_to_num(images) * 255.5, 0, 255).astype(np.uint8)
    if images.dtype.kind in "iu":
        shift = 8 * images.dtype.itemsize - (9 if images.dtype.kind == "i" else 8)
        return np.clip(images >> shift, 0, 255).astype(np.uint8)
    if images.dtype.kind == "b":
        return images.astype(np.uint8) * 255
    raise ValueError(f"tf.summary.image: cannot convert {images.dtype} pixels to an image")


def _png(image):
    buffer = io.BytesIO()
    Image.fromarray(image[..., 0] if image.shape[-1] == 1 else image).save(buffer, format="PNG")
    return buffer.getvalue()


def image_summary(name, data, max_outputs, description):
    """[k, h, w, c] images (c = 1, 3 or 4) as TF's image summary: width, height, then the first
    ``max_outputs`` images as PNG."""
    a = _values(data)
    if a.ndim != 4:
        raise ValueError(f"Tensor  must have rank 4.  Received rank {a.ndim}, shape {a.shape}")
    if a.shape[-1] not in (1, 3, 4):
        raise ValueError(f"tf.summary.image: {name}: images need 1, 3 or 4 channels, got shape {a.shape}")
    if isinstance(max_outputs, bool) or int(max_outputs) < 0:
        raise ValueError(f"tf.summary.image: {name}: max_outputs must be >= 0, got {max_outputs!r}")
    pixels = _as_uint8(a[:int(max_outputs)])
    blobs = [str(a.shape[2]).encode(), str(a.shape[1]).encode()] + [_png(img) for img in pixels]
    summary = summary_pb2.Summary()
    summary.value.add(tag=name, metadata=image_metadata.create_summary_metadata(None, description),
                      tensor=tensor_util.make_tensor_proto(np.array(blobs, dtype=object)))
    return summary


def _text_values(data):
    a = _values(data)
    if a.dtype.kind not in "USO":
        raise TypeError(f"tf.summary.text: data must be strings, got {a.dtype}")
    return a


def text_summary(name, data, description):
    return text_summary_v2.text_pb(name, _text_values(data), description)
