"""What tf.data's traced graphs cannot carry: string elements, whose functions run eagerly on sampled
elements (Note [String elements] in _functions.py)."""
from tapegrad import dtypes
from tapegrad.data import _structure as st

__all__ = ["has_strings", "samples"]


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
    codes = st.leaf_codes(dataset._specs)
    return [[a if c is None else convert(a, c) for a, c in zip(flat, codes)] for flat in flats]
