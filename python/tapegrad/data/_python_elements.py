"""What tf.data's traced graphs cannot carry: string elements, whose functions run eagerly on sampled
elements (Note [String elements] in _functions.py), and the uint8-pixel marks of decoded images.

Note [Pixel marks in pipelines]
tf.io's decoders mark the int32 tensors they return as uint8 (or uint16) pixels, so that
convert_image_dtype scales them by 255 (Note [Pixel tensors] in _ops/image/pixels.py). A map that
returns such tensors records which components were marked (on its sample calls or its trace), and a
map further down the pipeline marks those components of its input again, so that
``ds.map(decode).batch(32).map(lambda x: tf.image.convert_image_dtype(x, tf.float32))`` scales as in
TF. Datasets that keep their input's components (batch, shuffle, prefetch, take, filter, ...) pass
the record on; those that combine inputs (zip, concatenate) drop it.
"""
from tapegrad import dtypes
from tapegrad._ops.image.pixels import mark, pixel_type_of
from tapegrad.data import _structure as st

__all__ = ["has_strings", "samples", "pixel_types_of", "output_pixel_types", "pixel_marker"]


def has_strings(specs):
    return any(getattr(s, "dtype", None) is dtypes.string for s in specs)


def samples(dataset, count=2):
    """The first ``count`` elements of ``dataset`` as flat lists of tensors (fewer if it has fewer)."""
    elements = dataset._flat()
    try:
        flats = [flat for flat, _ in zip(elements, range(count))]
    finally:
        getattr(elements, "close", lambda: None)()  # a prefetching input stops its thread
    convert = st.leaf_converter(dataset._specs)
    codes = [None if isinstance(s, st.DatasetSpec) else s.dtype.code for s in dataset._specs]
    return [[a if c is None else convert(a, c) for a, c in zip(flat, codes)] for flat in flats]


def output_pixel_types(tensors):
    """Per flat output, its pixel type or None; None when no output is marked."""
    types = [pixel_type_of(t) for t in tensors]
    return types if any(types) else None


def pixel_types_of(dataset):
    """The pixel types of ``dataset``'s flat components (Note [Pixel marks in pipelines]), or None: a map
    says (its ``_pixel_types``), a dataset of its input's elements asks its ``_input``."""
    while dataset is not None and not hasattr(dataset, "_pixel_types"):
        dataset = getattr(dataset, "_input", None)
    return None if dataset is None else dataset._pixel_types


def pixel_marker(dataset):
    """A function flat inputs -> the same with ``dataset``'s pixel components marked, or None."""
    types = pixel_types_of(dataset)
    if types is None or len(types) != len(dataset._specs):
        return None
    if any(t is not None and getattr(s, "dtype", None) is not dtypes.int32 for t, s in zip(types, dataset._specs)):
        return None  # (a component changed dtype on the way)
    return lambda flat: [a if t is None else mark(a, t) for a, t in zip(flat, types)]
