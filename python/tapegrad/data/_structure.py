"""Element structures of tf.data: nesting, TensorSpecs, and the flat form datasets pass around.

Note [Flat elements]
Inside tapegrad.data an element travels as a flat tuple of leaves (NumPy arrays or Tensors), in the
order tf.nest flattens its structure (tuples and namedtuples in order, dicts by sorted key). The
nested structure lives once, in the dataset's element_spec; it is rebuilt only where a user sees
the element (iteration, map and filter functions), by a packer compiled once per dataset. As in
tf.data, tuples and dicts nest and a list is a value (``from_tensor_slices([1, 2])`` has scalar
elements), except in a map function's result, where a list becomes a tuple.
"""
import collections.abc as _abc

import numpy as np

from tapegrad import _core, _nest as nest, dtypes
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor, TensorShape, TensorSpec, convert_to_tensor
from tapegrad.data import _composites as composites

__all__ = ["flatten", "structure_of", "make_packer", "as_array", "spec_of", "specs_compatible", "merge_specs",
           "map_structure", "tensor_converter", "leaf_converter", "DatasetSpec", "require_tensors", "passes_through",
           "leaf_codes"]

_STRING_CODE = dtypes.string.code


def _nested(value):
    return isinstance(value, (tuple, _abc.Mapping))


# Module functions, not closures that call themselves: such a closure's reference cycle would hold
# every element's tensors until the cyclic collector runs (Note [No closures that recurse] in _nest.py).
def _flatten_into(v, lists_nest, out):
    if _nested(v) or (lists_nest and isinstance(v, list)):
        for child in nest._children(v):
            _flatten_into(child, lists_nest, out)
    else:
        out.append(v)


def flatten(value, lists_nest=False):
    """The leaves of a tf.data structure in tf.nest order (Note [Flat elements])."""
    out = []
    _flatten_into(value, lists_nest, out)
    return out


def map_structure(fn, structure, lists_nest=False):
    """``structure`` with each leaf replaced by ``fn(leaf)``; lists become tuples when they nest."""
    if isinstance(structure, list) and lists_nest:
        return tuple(map_structure(fn, c, lists_nest) for c in structure)
    if _nested(structure):
        return nest.sequence_like(structure, [map_structure(fn, c, lists_nest) for c in nest._children(structure)])
    return fn(structure)


def structure_of(structure, flat):
    """``structure`` with its leaves replaced, in order, by ``flat``."""
    it = iter(flat)
    return map_structure(lambda _: next(it), structure)


def make_packer(structure):
    """A function flat leaves -> the element as ``structure`` nests it; fast for the common shapes."""
    if not _nested(structure):
        return lambda flat: flat[0]
    if type(structure) is tuple and not any(_nested(c) for c in structure):
        return tuple
    return lambda flat: structure_of(structure, flat)


def as_array(value, dtype=None, what="tf.data"):
    """A NumPy array holding ``value`` as the tensor tapegrad makes of it (float -> float32, ...)."""
    if isinstance(value, Tensor):
        t = value if dtype is None or value.dtype == dtype else None
    else:
        t = None
    if t is None:
        if isinstance(value, np.generic) or isinstance(value, list) and any(
                isinstance(v, (np.ndarray, np.generic)) for v in value):
            value = np.asarray(value)  # NumPy values keep their dtype, as in TF
        try:
            t = convert_to_tensor(value, dtype=dtype)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{what}: cannot convert {type(value).__name__} to a tensor"
                          f"{'' if dtype is None else ' of ' + dtype.name}: {e}") from None
    return np.asarray(t)


def spec_of(array, batched=False):
    """The TensorSpec of one element (of one slice of ``array`` if ``batched``)."""
    shape = array.shape[1:] if batched else array.shape
    return TensorSpec(shape, dtypes.as_dtype(array.dtype))


def _shape_list(spec):
    return None if spec.shape.rank is None else list(spec.shape)


def specs_compatible(a, b):
    """Same dtype and shapes that could describe the same tensor."""
    if isinstance(a, DatasetSpec) or isinstance(b, DatasetSpec):
        return a == b
    if a.dtype != b.dtype or type(a) is not type(b):
        return False
    if composites.is_composite(a):
        return composites.compatible(a, b)
    sa, sb = _shape_list(a), _shape_list(b)
    if sa is None or sb is None:
        return True
    return len(sa) == len(sb) and all(x is None or y is None or x == y for x, y in zip(sa, sb))


def merge_specs(a, b):
    """The most specific spec describing both (dimensions that differ become None)."""
    if isinstance(a, DatasetSpec):
        return a
    if composites.is_composite(a):
        return composites.merge(a, b)
    sa, sb = _shape_list(a), _shape_list(b)
    if sa is None or sb is None or len(sa) != len(sb):
        return TensorSpec(None, a.dtype)
    return TensorSpec([x if x == y else None for x, y in zip(sa, sb)], a.dtype)


def batched_spec(spec, size):
    if composites.is_composite(spec):
        return composites.batched_spec(spec, size)
    return TensorSpec(None if spec.shape.rank is None else [size] + list(spec.shape), spec.dtype)


def unbatched_spec(spec):
    if composites.is_composite(spec):
        return composites.unbatched_spec(spec)
    return TensorSpec(None if spec.shape.rank is None else list(spec.shape)[1:], spec.dtype)


class DatasetSpec:
    """The spec of an element that is itself a dataset (``window``'s elements): its element_spec."""

    def __init__(self, element_spec, dataset_shape=()):
        self.element_spec = element_spec
        self.dataset_shape = TensorShape(list(dataset_shape))

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and self.element_spec == other.element_spec

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({self.element_spec!r}, TensorShape({list(self.dataset_shape)}))"


def _convert_with_strings(value, code):
    """_core.convert, and for tf.string (which the engine does not hold) a Python string tensor."""
    if code != _STRING_CODE:
        return _core.convert(value, code)
    if isinstance(value, StringTensor):
        return value
    return StringTensor(np.asarray(value, dtype=object))


def leaf_converter(specs):
    """``convert(leaf, dtype code)`` for the leaves of ``specs``: the engine's when none is a string."""
    if any(getattr(s, "dtype", None) is dtypes.string for s in specs):
        return _convert_with_strings
    return _core.convert


def passes_through(spec):
    """Whether a leaf of ``spec`` stays as it is in the element: a dataset (DatasetSpec), a RaggedTensor or a
    SparseTensor (Note [Composite elements] in _composites.py)."""
    return isinstance(spec, DatasetSpec) or composites.is_composite(spec)


def leaf_codes(specs):
    """The dtype code each leaf converts to; None for a leaf that passes through."""
    return [None if passes_through(s) else s.dtype.code for s in specs]


def tensor_converter(specs, packer):
    """flat leaves -> the element as Tensors of the specs' dtypes, nested; one call per leaf (a dataset,
    RaggedTensor or SparseTensor leaf stays as it is)."""
    convert = leaf_converter(specs)
    if any(passes_through(s) for s in specs):
        codes = leaf_codes(specs)
        return lambda flat: packer([a if c is None else convert(a, c) for a, c in zip(flat, codes)])
    codes = [s.dtype.code for s in specs]
    if packer is tuple and len(codes) == 2:
        c0, c1 = codes
        return lambda flat: (convert(flat[0], c0), convert(flat[1], c1))
    if len(codes) == 1:
        (c0,) = codes
        return lambda flat: packer((convert(flat[0], c0),))
    return lambda flat: packer([convert(a, c) for a, c in zip(flat, codes)])


def shape_text(shape):
    return str(TensorShape(shape))


def require_tensors(dataset, op):
    """TypeError unless every component of the elements is a tensor (not a dataset, as window's are)."""
    if any(isinstance(s, DatasetSpec) for s in dataset._specs):
        raise TypeError(f"{op}: the elements hold datasets ({dataset.element_spec}); use flat_map, e.g. "
                        f"window(n).flat_map(lambda w: w.batch(n))")
