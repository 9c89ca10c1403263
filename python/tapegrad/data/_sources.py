"""Datasets that start a pipeline or join pipelines: tensor slices, tensors, range, a Python
generator, zip and concatenate."""
import itertools

import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.string_tensor import is_text, string_constant
from tapegrad._tensor.tensor import Tensor, TensorSpec
from tapegrad.data import _composites as composites, _structure as st
from tapegrad.data._dataset import Dataset, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, check_count
from tapegrad.io import matching_files

__all__ = ["TensorSlices", "Tensors", "Range", "Counter", "Generator", "Zip", "Concatenate", "list_files"]


class TensorSlices(Dataset):
    """Rows of in-memory arrays: a row dataset (Note [Row datasets])."""

    def __init__(self, tensors):
        structure = tensors
        if tensors is None:
            raise ValueError("from_tensor_slices: Invalid `element`. `element` should not be empty (got None).")
        leaves = st.flatten(structure)
        if not leaves:
            raise ValueError("from_tensor_slices: Invalid `element`. `element` should not be empty.")
        columns, specs = [], []
        for v in leaves:
            if composites.is_composite_value(v):  # Note [Composite elements]
                column, spec = composites.slice_column(v)
            else:
                column = st.as_array(v, what="from_tensor_slices")
                if column.ndim == 0:
                    raise ValueError("from_tensor_slices: Unbatching a tensor is only supported for rank >= 1, "
                                     f"got a scalar {column.dtype.name}")
                spec = st.spec_of(column, batched=True)
            columns.append(column)
            specs.append(spec)
        lengths = {len(c) for c in columns}
        if len(lengths) > 1:
            raise ValueError(f"from_tensor_slices: the components have different first dimensions "
                             f"{[len(c) for c in columns]} (dimensions {' and '.join(map(str, sorted(lengths)))} "
                             f"are not compatible)")
        self._columns = columns
        self._n = len(columns[0])
        super().__init__(st.structure_of(structure, specs))

    def _card(self):
        return self._n

    def _chunks(self):
        yield np.arange(self._n)


class Tensors(Dataset):
    def __init__(self, tensors):
        self._values = tuple(v if composites.is_composite_value(v) else st.as_array(v, what="from_tensors")
                             for v in st.flatten(tensors))
        super().__init__(st.structure_of(tensors, [composites.spec_of_value(v) if composites.is_composite_value(v)
                                                   else st.spec_of(v) for v in self._values]))

    def _card(self):
        return 1

    def _flat(self):
        yield self._values


class _RangeColumn:
    """The values of a range, indexed like an array (an int or an index array)."""

    def __init__(self, start, step, np_dtype):
        self.start, self.step, self.dtype = start, step, np_dtype

    def __getitem__(self, index):
        return (np.asarray(index, np.int64) * self.step + self.start).astype(self.dtype)


class Range(Dataset):
    def __init__(self, *args, output_type=None):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"Dataset.range takes 1 to 3 arguments (start, stop, step), got {len(args)}")
        values = [check_count(a, "an argument", "Dataset.range") for a in args]
        start, stop, step = ([0] + values + [1])[:3] if len(values) == 1 else (values + [1])[:3]
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "Dataset.range: step must be a non-zero integer.")
        dtype = dtypes.int64 if output_type is None else dtypes.as_dtype(output_type)
        self._n = max(0, (stop - start + step - (1 if step > 0 else -1)) // step)  # len(range()), unbounded
        self._columns = [_RangeColumn(start, step, dtype.as_numpy_dtype)]
        super().__init__(TensorSpec([], dtype))

    def _card(self):
        return self._n

    def _chunks(self):
        chunk = 1 << 16  # enumerate() zips a range of 2^63 elements: never one index array
        for begin in range(0, self._n, chunk):
            yield np.arange(begin, min(begin + chunk, self._n))


def _signature(output_types, output_shapes, output_signature):
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("from_generator: The `output_types` argument can not be used together with the "
                            "`output_signature` argument.")
        for spec in st.flatten(output_signature):
            if not isinstance(spec, TensorSpec) and not composites.is_composite(spec):
                raise TypeError(f"from_generator: `output_signature` must hold tf.TensorSpec objects, got "
                                f"{type(spec).__name__}")
        return output_signature
    if output_types is None:
        raise TypeError("from_generator: To specify the output signature you need to provide either the "
                        "`output_signature` argument or the `output_types` argument.")
    if output_shapes is None:
        return st.map_structure(lambda t: TensorSpec(None, t), output_types)
    types = st.flatten(output_types)
    shapes = list(_shapes_under(output_types, output_shapes))
    if len(types) != len(shapes):
        raise ValueError(f"from_generator: `output_shapes` ({output_shapes}) does not match the structure of "
                         f"`output_types` ({output_types})")
    return st.structure_of(output_types, [TensorSpec(s, t) for t, s in zip(types, shapes)])


def _shapes_under(types, shapes):
    """output_shapes flattened to output_types' structure (a shape is a list or tuple of dims)."""
    if isinstance(types, dict):
        for k in sorted(types):
            yield from _shapes_under(types[k], shapes[k])
    elif isinstance(types, tuple):
        if len(types) != len(shapes):
            raise ValueError(f"from_generator: `output_shapes` {shapes} does not match `output_types` {types}")
        for t, s in zip(types, shapes):
            yield from _shapes_under(t, s)
    else:
        yield shapes


class Generator(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: `generator` must be a Python callable.")
        self._generator = generator
        self._args = tuple(np.asarray(st.as_array(a, what="from_generator args")) for a in (args or ()))
        super().__init__(_signature(output_types, output_shapes, output_signature))

    def _flat(self):
        specs = self._specs
        dtypes_np = [s.dtype.as_numpy_dtype for s in specs]
        for value in self._generator(*self._args):
            yield self._convert(value, specs, dtypes_np)

    def _convert(self, value, specs, dtypes_np):
        def fail(what):
            return errors.InvalidArgumentError(None, None, f"from_generator: TypeError: `generator` yielded an "
                                               f"element {what}")
        try:
            leaves = _leaves_like(self._structure, value)
        except (TypeError, ValueError, KeyError):
            raise fail(f"that did not match the expected structure. The expected structure was "
                       f"{st.map_structure(lambda s: s.dtype, self._structure)}, but the yielded element was "
                       f"{value!r}.") from None
        out = []
        for leaf, spec, dt in zip(leaves, specs, dtypes_np):
            if composites.is_composite(spec):  # Note [Composite elements]
                out.append(composites.conformed(leaf, spec, fail))
                continue
            try:
                if spec.dtype is dtypes.string:  # str / bytes (and arrays of them) as a string tensor holds them
                    if not is_text(leaf):
                        raise ValueError
                    a = string_constant(leaf)._value
                else:
                    a = np.asarray(leaf.numpy() if isinstance(leaf, Tensor) else leaf)
                    if a.dtype.kind not in "biuf":
                        raise ValueError
                    a = a.astype(dt)
            except (TypeError, ValueError):
                raise fail(f"that could not be converted to the expected type. The expected type was "
                           f"{spec.dtype.name}, but the yielded element was {leaf!r}.") from None
            if not spec.shape.is_compatible_with(a.shape):
                raise fail(f"of shape {a.shape} where an element of shape {st.shape_text(spec.shape)} was "
                           f"expected.")
            out.append(a)
        return tuple(out)


def _leaves_like(structure, value):
    """value's leaves in structure's order; TypeError/ValueError/KeyError if it nests differently."""
    if isinstance(structure, dict):
        if not isinstance(value, dict) or set(value) != set(structure):
            raise ValueError
        return [leaf for k in sorted(structure) for leaf in _leaves_like(structure[k], value[k])]
    if isinstance(structure, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(structure):
            raise ValueError
        return [leaf for s, v in zip(structure, value) for leaf in _leaves_like(s, v)]
    return [value]


class Zip(Dataset):
    def __init__(self, args, datasets):
        if datasets is not None and args:
            raise TypeError("Dataset.zip: give the datasets either positionally or as `datasets`, not both")
        if datasets is None and not args:
            raise TypeError("Dataset.zip: Must pass at least one dataset to `zip`.")
        structure = datasets if datasets is not None else (args[0] if len(args) == 1 else tuple(args))
        if isinstance(structure, list) or any(isinstance(d, list) for d in st.flatten(structure)):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                            "`tf.data.Dataset` objects. Python `list` is not supported and you should use "
                            "`tuple` instead.")
        self._datasets = st.flatten(structure)
        if not self._datasets:
            raise errors.InvalidArgumentError(None, None, f"Dataset.zip: {structure!r} holds no dataset")
        for d in self._datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"Invalid input to `zip`. Inputs are expected to be (nested) structures of "
                                f"`tf.data.Dataset` objects but encountered object of type {type(d)}.")
        super().__init__(st.map_structure(lambda d: d.element_spec, structure))

    def _card(self):
        cards = [d._card() for d in self._datasets]
        if UNKNOWN_CARDINALITY in cards:
            return UNKNOWN_CARDINALITY
        known = [c for c in cards if c != INFINITE_CARDINALITY]
        return min(known) if known else INFINITE_CARDINALITY

    def _flat(self):
        for parts in zip(*(d._flat() for d in self._datasets)):
            yield tuple(itertools.chain.from_iterable(parts))


class Concatenate(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"Dataset.concatenate: `dataset` must be a Dataset, got {type(second).__name__}")
        a, b = first.element_spec, second.element_spec
        def skeleton(structure):
            return st.map_structure(lambda _: 0, structure)

        if skeleton(a) != skeleton(b) or not all(st.specs_compatible(x, y) for x, y in zip(first._specs,
                                                                                              second._specs)):
            raise TypeError(f"Incompatible dataset elements:   {a} vs.   {b}")
        self._parts = (first, second)
        super().__init__(st.structure_of(a, [st.merge_specs(x, y) for x, y in zip(first._specs, second._specs)]))

    def _card(self):
        cards = [d._card() for d in self._parts]
        if INFINITE_CARDINALITY in cards:
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in cards:
            return UNKNOWN_CARDINALITY
        return sum(cards)

    def _flat(self):
        for d in self._parts:
            yield from d._flat()


class Counter(Range):
    """start, start + step, ... without end (TF's cardinality: infinite)."""

    def __init__(self, start, step, dtype):
        step = check_count(step, "step", "Dataset.counter")
        start = check_count(start, "start", "Dataset.counter")
        bound = np.iinfo(np.int64).max if step > 0 else np.iinfo(np.int64).min
        super().__init__(start, bound, step, output_type=dtype)

    def _card(self):
        return INFINITE_CARDINALITY


def list_files(file_pattern, shuffle, seed):
    """Dataset.list_files: the matching names, sliced, shuffled over all of them unless ``shuffle`` is False."""
    names = matching_files(file_pattern)
    if not len(names):
        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else np.asarray(file_pattern).reshape(-1)
        text = ", ".join(p.decode() if isinstance(p, bytes) else str(p) for p in patterns)
        raise errors.InvalidArgumentError(None, None, f"Dataset.list_files: No files matched pattern: {text}")
    dataset = TensorSlices(names)
    return dataset if shuffle is not None and not shuffle else dataset.shuffle(len(names), seed=seed)
