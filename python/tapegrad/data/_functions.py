"""Datasets that run a user function on each element: map, filter, flat_map; and Dataset.reduce.

Note [Traced element functions]
As in tf.data, map and filter trace their function once, when the dataset is built, from the
input's element_spec (tf.function's get_concrete_function; None dimensions trace at two sizes so
that the graph is checked to serve every size), and each element then runs the cached graph in C++.
The traced wrapper takes and returns flat tuples of tensors (Note [Flat elements]); while tracing it
records what the user function returned, which gives the output's element_spec: dimensions that
differ between the traces are None, and so is every dimension of an output whose sizes follow
the values (``tf.fill([n], n)``, ``tf.boolean_mask``: Note [Value-shaped ops]). A function the graph
cannot hold raises OperatorNotAllowedInGraphError while tracing; it then runs eagerly per element,
and its element_spec comes from two eager calls, on an element of zeros and one of ones.

Note [String elements]
String tensors live in Python (tapegrad._tensor.string_tensor), never in a graph, so a function of string
elements (file names, file contents) runs eagerly per element. Zeros and ones are no example for it:
``tf.io.read_file`` of an empty name fails. Its element_spec comes from eager calls on the first two
elements of the input (read once more for it when the dataset is built; dimensions that differ between
the two are None), or on an element of empty strings when the input has none.
"""
import os

import numpy as np

from tapegrad import _core, dtypes, errors
from tapegrad._function.function import function
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor, TensorSpec, convert_to_tensor
from tapegrad.data import _python_elements as elements
from tapegrad.data import _composites as composites, _structure as st
from tapegrad.data import _windowing
from tapegrad.data._dataset import AUTOTUNE, UNKNOWN_CARDINALITY, Dataset, Mapped, check_positive_count

__all__ = ["Map", "Filter", "FlatMap", "Interleave", "TakeWhile", "reduce", "get_single_element"]


def _call(func, element, structure):
    """TF's calling convention: a tuple element is spread over the arguments, anything else is one."""
    return func(*element) if type(structure) is tuple else func(element)


def _as_tensor(value, op):
    if isinstance(value, (Tensor, StringTensor, Dataset)):  # (converting a string tensor would copy it)
        return value
    if composites.is_composite_value(value):
        if _core._tracing():  # Note [Composite elements]: the function runs eagerly
            raise errors.OperatorNotAllowedInGraphError("a graph holds no RaggedTensor or SparseTensor")
        return value
    if value is None:
        raise TypeError(f"{op}: the function returned None; it must return a tensor or a (nested) structure "
                        f"of tensors")
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{op}: the function returned {type(value).__name__} {value!r}, which is not a tensor: "
                        f"{e}") from None


def _spec_of(value):
    """The spec of what the function returned; inside a trace a size that follows values (after
    tf.unique, tf.where, tf.fill([n], n): Note [Varying dimensions]) is None in its shape."""
    if isinstance(value, Dataset):
        return st.DatasetSpec(value.element_spec)
    if composites.is_composite_value(value):
        return composites.spec_of_value(value)
    return TensorSpec(tuple(value.shape), value.dtype)


def _merged(a, b):
    """One spec for what two traces returned: dimensions that differ are None."""
    if composites.is_composite(a) and type(a) is type(b):
        return composites.merge(a, b)
    if not isinstance(a, TensorSpec) or a.shape.rank is None or b.shape.rank is None or a.shape.rank != b.shape.rank:
        return a if isinstance(a, st.DatasetSpec) else TensorSpec(None, a.dtype)
    return TensorSpec([x if x == y else None for x, y in zip(a.shape, b.shape)], a.dtype)


def example(spec, fill=np.zeros, unknown=1):
    """A value for ``spec``: a tensor of zeros (or ones; empty strings), None dimensions of size ``unknown``;
    for a DatasetSpec, a dataset of one such element."""
    if isinstance(spec, st.DatasetSpec):
        return _windowing.Elements([example(spec.element_spec, fill, unknown)], spec.element_spec)
    if composites.is_composite(spec):
        return composites.example(spec)
    shape = [unknown if d is None else d for d in (spec.shape if spec.shape.rank is not None else [])]
    if spec.dtype is dtypes.string:
        return StringTensor(np.full(shape, b"", dtype=object))
    return convert_to_tensor(fill(shape, spec.dtype.as_numpy_dtype))


class _TracedElementFunction:
    """``func`` over elements of ``dataset``, traced once (Note [Traced element functions])."""

    def __init__(self, func, dataset, op):
        if not callable(func):
            raise TypeError(f"{op}: the function must be callable, got {type(func).__name__}")
        pack, structure = dataset._pack, dataset.element_spec
        self._traces, recording = [], [True]

        def on_flat(*flat):
            flat = list(flat)
            result = st.map_structure(lambda v: _as_tensor(v, op), _call(func, pack(flat), structure), lists_nest=True)
            outputs = st.flatten(result)
            if recording[0]:  # the traces and sample calls only: an eager function runs per element
                self._traces.append((result, [_spec_of(t) for t in outputs]))
            return tuple(outputs)

        on_flat.__name__ = getattr(func, "__name__", "element_function")
        self._function = function(on_flat)
        strings = elements.has_strings(dataset._specs) or any(composites.is_composite(s) for s in dataset._specs)
        try:
            if any(isinstance(s, st.DatasetSpec) for s in dataset._specs):
                raise errors.OperatorNotAllowedInGraphError("a graph holds no datasets")
            if strings:  # Note [String elements]
                raise errors.OperatorNotAllowedInGraphError("string tensors live in Python, outside graphs")
            self._function.get_concrete_function(*dataset._specs)
            if any(not s.shape.is_fully_defined() for s in dataset._specs):
                # a call at a second size verifies the graph serves every size and records what the
                # function returns there: dimensions that differ become None
                for size in (3, 5):  # (a size other than the one get_concrete_function traced with)
                    if len(self._traces) < 2:
                        self._function(*[example(s, np.zeros, size) for s in dataset._specs])
        except errors.OperatorNotAllowedInGraphError:
            # Note [Traced element functions]: what a graph cannot hold runs eagerly, element by element
            self._traces, self._function = [], on_flat
            inputs = elements.samples(dataset) if strings else []  # Note [String elements]
            for flat in inputs or [[example(s, fill) for s in dataset._specs] for fill in (np.zeros, np.ones)]:
                on_flat(*flat)
        recording[0] = False
        first, specs = self._traces[0]
        for _, other in self._traces[1:]:
            specs = [_merged(a, b) for a, b in zip(specs, other)]
        self._traces = None
        self.output_spec = st.structure_of(first, specs)
        self.output_specs = specs
        codes = st.leaf_codes(dataset._specs)
        convert, run = st.leaf_converter(dataset._specs), self._function

        def apply(flat):
            return run(*[a if c is None else convert(a, c) for a, c in zip(flat, codes)])

        self.apply = apply


class Map(Dataset):
    def __init__(self, dataset, map_func):
        self._input = dataset
        self._func = _TracedElementFunction(map_func, dataset, "Dataset.map")
        super().__init__(self._func.output_spec)

    def _card(self):
        return self._input._card()

    def _flat(self):
        return Mapped(self._func.apply, self._input._flat())  # see Note [Element errors]


# Note [Element errors]: as in TF, an element whose map function raises (a py_function failing on
# one input) raises from next() and the iteration goes on with the next element; a batch holding it
# is dropped. So Map, Batch and the conversion to tensors are plain iterators (Mapped, _groups),
# not generators: a generator that lets an exception out is finished.


class _Predicated(Dataset):
    """A dataset of ``dataset``'s elements chosen by a traced ``predicate`` (a tf.bool scalar); ``_op`` names it."""
    _op = None

    def __init__(self, dataset, predicate):
        self._input = dataset
        self._func = _TracedElementFunction(predicate, dataset, self._op)
        spec = self._func.output_spec
        if not isinstance(spec, TensorSpec) or spec.dtype.name != "bool" or spec.shape.rank != 0:
            raise ValueError(f"{self._op}: Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, "
                             f"but its return type is {spec}.")
        super().__init__(dataset.element_spec)


class Filter(_Predicated):
    _op = "Dataset.filter"

    def _flat(self):
        apply = self._func.apply
        for flat in self._input._flat():
            if bool(apply(flat)[0]):
                yield flat


class FlatMap(Dataset):
    """The function returns a dataset per element, so it runs in Python; its element_spec comes from
    one call on a zero-filled element when the dataset is built."""
    def __init__(self, dataset, map_func):
        if not callable(map_func):
            raise TypeError(f"Dataset.flat_map: the function must be callable, got {type(map_func).__name__}")
        self._input, self._func = dataset, map_func
        inner = self._inner(dataset._pack([example(s) for s in dataset._specs]))
        super().__init__(inner.element_spec)

    def _inner(self, element):
        result = _call(self._func, element, self._input.element_spec)
        if not isinstance(result, Dataset):
            raise TypeError(f"Dataset.flat_map: the function must return a Dataset, got {type(result).__name__}")
        return result

    def _card(self):
        return UNKNOWN_CARDINALITY

    def _inner_flat(self, flat):
        inner = self._inner(self._input._to_tensors(flat))
        if [getattr(s, "dtype", None) for s in inner._specs] != [getattr(s, "dtype", None) for s in self._specs]:
            raise TypeError(f"Dataset.flat_map: the function returned datasets of different element specs: "
                            f"{inner.element_spec} and {self.element_spec}")
        return inner._flat()

    def _flat(self):
        for flat in self._input._flat():
            yield from self._inner_flat(flat)


def reduce(dataset, initial_state, reduce_func):
    """Dataset.reduce: the state as tensors, ``reduce_func(state, element)`` per element."""
    state = st.map_structure(lambda v: v if isinstance(v, Tensor) else convert_to_tensor(st.as_array(v)),
                             initial_state)
    for flat in dataset._flat():
        state = reduce_func(state, dataset._to_tensors(flat))
    return state


class Interleave(FlatMap):
    """flat_map's datasets, ``cycle_length`` open at a time, ``block_length`` elements from each in turn
    (TF's order: an exhausted slot takes the next input element's dataset when its turn comes)."""

    def __init__(self, dataset, map_func, cycle_length, block_length):
        super().__init__(dataset, map_func)
        if cycle_length is None or cycle_length == AUTOTUNE:
            self._cycle = os.cpu_count() or 1  # TF's default: the number of cores
        else:
            self._cycle = _positive_count(cycle_length, "cycle_length")
        self._block = 1 if block_length in (None, AUTOTUNE) else _positive_count(block_length, "block_length")

    def _flat(self):
        inputs = self._input._flat()
        slots = [None] * self._cycle
        index = taken = 0
        open_slots, input_ended = 0, False
        while not input_ended or open_slots:
            if slots[index] is not None:
                item = next(slots[index], None)
                if item is not None:
                    taken += 1
                    if taken == self._block:
                        index, taken = (index + 1) % self._cycle, 0
                    yield item
                    continue
                slots[index], open_slots = None, open_slots - 1
            elif not input_ended:
                flat = next(inputs, None)
                if flat is None:
                    input_ended = True
                else:
                    slots[index], open_slots = self._inner_flat(flat), open_slots + 1
                continue
            index, taken = (index + 1) % self._cycle, 0


def _positive_count(value, what):
    return check_positive_count(value, what, "Dataset.interleave")


class TakeWhile(_Predicated):
    _op = "Dataset.take_while"

    def _flat(self):
        apply = self._func.apply
        for flat in self._input._flat():
            if not bool(apply(flat)[0]):
                return
            yield flat


def get_single_element(dataset):
    """The only element of ``dataset``, as tensors; InvalidArgumentError if it has none or several."""
    elements = dataset._flat()
    first = next(elements, None)
    if first is None:
        raise errors.InvalidArgumentError(None, None, "Dataset.get_single_element: Dataset was empty.")
    if next(elements, None) is not None:
        raise errors.InvalidArgumentError(None, None, "Dataset.get_single_element: Dataset had more than one "
                                          "element.")
    return dataset._to_tensors(first)
