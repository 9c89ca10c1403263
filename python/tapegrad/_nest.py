"""Nested structures (lists, tuples, namedtuples, dicts) as the API takes and returns them: tf.nest.

Note [Nest order]: a structure flattens depth-first; a dict (and any Mapping) in sorted key order,
as TF's tf.nest does, so two dicts with the same keys flatten alike whatever their insertion order;
anything else (a tensor, a number, None) is a leaf. The C++ walker (cpp/bindings/nest.cpp) follows
the same rules and tests/ops/test_nest.py checks the two against each other.
"""
import collections.abc as _abc

from tapegrad._tensor.tensor_shape import TensorShape

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested"]


def is_nested(structure):
    """True for a list, tuple (namedtuples included) or mapping; strings, tensors and TensorShapes
    are leaves."""
    return isinstance(structure, (list, tuple, _abc.Mapping)) and not isinstance(structure, TensorShape)


def _sorted_keys(mapping):
    try:
        return sorted(mapping)
    except TypeError as e:
        raise TypeError(f"nest: the keys of a dict must be sortable, got {list(mapping)}") from e


def _children(structure):
    if isinstance(structure, _abc.Mapping):
        return [structure[k] for k in _sorted_keys(structure)]
    return list(structure)


def sequence_like(like, items):
    """A structure of ``like``'s type holding ``items`` in flattening order (a namedtuple takes them as
    arguments; a mapping pairs them with its sorted keys and keeps its own key order)."""
    if isinstance(like, _abc.Mapping):
        by_key = dict(zip(_sorted_keys(like), items))
        return type(like)((k, by_key[k]) for k in like)
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)


# Note [No closures that recurse]: the walkers are module functions taking their state as arguments.
# A nested function that calls itself sits in a reference cycle with its closure cell, and the
# cycle holds what the closure holds (the leaves: tensors) until the cyclic collector runs, so a
# step's gradients outlived the step and their buffers could not be reused.
def _flatten_into(s, out):
    if is_nested(s):
        for child in _children(s):
            _flatten_into(child, out)
    else:
        out.append(s)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order (Note [Nest order]); a leaf gives ``[leaf]``."""
    out = []
    _flatten_into(structure, out)
    return out


def _build(s, it, n):
    if is_nested(s):
        return sequence_like(s, [_build(child, it, n) for child in _children(s)])
    try:
        return next(it)
    except StopIteration:
        raise ValueError(f"pack_sequence_as: the structure has more leaves than the {n} values given") from None


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure`` with its leaves replaced, in order, by the items of ``flat_sequence``."""
    flat = list(flat_sequence)
    it = iter(flat)
    result = _build(structure, it, len(flat))
    if next(it, it) is not it:
        raise ValueError(f"pack_sequence_as: {len(flat)} values given for a structure of {len(flatten(structure))} "
                         f"leaves")
    return result


def _check_same(a, b, path, check_types):
    if is_nested(a) != is_nested(b):
        raise ValueError(f"The two structures don't have the same nested structure at {path or 'the top'}: "
                         f"{type(a).__name__} and {type(b).__name__}")
    if not is_nested(a):
        return
    if check_types and type(a) is not type(b):
        raise TypeError(f"The two structures don't have the same sequence type at {path or 'the top'}: "
                        f"{type(a).__name__} and {type(b).__name__}")
    if isinstance(a, _abc.Mapping) and set(a) != set(b):
        raise ValueError(f"The two structures don't have the same keys at {path or 'the top'}: "
                         f"{sorted(map(str, a))} and {sorted(map(str, b))}")
    ca, cb = _children(a), _children(b)
    if len(ca) != len(cb):
        raise ValueError(f"The two structures don't have the same number of elements at {path or 'the top'}: "
                         f"{len(ca)} and {len(cb)}")
    keys = _sorted_keys(a) if isinstance(a, _abc.Mapping) else range(len(ca))
    for k, x, y in zip(keys, ca, cb):
        _check_same(x, y, f"{path}[{k!r}]", check_types)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (TypeError for differing sequence types) unless the two nest alike."""
    _check_same(nest1, nest2, "", check_types)


def map_structure(func, *structure, check_types=True, expand_composites=False):
    """``func`` applied leaf by leaf over structures of the same nesting; the result nests as the first."""
    if not structure:
        raise TypeError("map_structure: at least one structure is required")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    leaves = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*args) for args in zip(*leaves)])
