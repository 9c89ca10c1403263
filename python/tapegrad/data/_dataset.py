"""tf.data.Dataset: the public class; each method builds one dataset of _sources, _batching,
_ordering, _functions or _prefetch.

A dataset is a recipe: nothing runs until it is iterated, and each iteration starts over. Every
dataset provides (Note [Flat elements] for the element form):
  element_spec     the nested TensorSpecs of one element
  _card()          the cardinality: a count, INFINITE (-1) or UNKNOWN (-2)
  _flat()          a new Python iterator over the elements as flat tuples of arrays
  _columns         for a dataset of rows of in-memory arrays: the arrays (or None), and then
  _chunks()        a new iterator over index arrays into them, so that shuffle, take, skip,
                   shard and repeat move indices and batch gathers a whole batch in one NumPy
                   call per component (Note [Row datasets], _ordering.py)
  _tensors()       a new iterator over the elements as the user sees them (Tensors, nested);
                   by default _flat() converted, faster where a dataset knows better (batch
                   of rows converts each gathered batch inline; reorderings pass it on).
"""
import copy
import threading

import numpy as np

from tapegrad import _core, errors
from tapegrad._tensor.tensor import Tensor, constant
from tapegrad.dtypes import int64
from tapegrad.data import _structure as st
from tapegrad.data._numpy_iterator import numpy_iterator

__all__ = ["Dataset", "Iterator", "AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY"]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def check_count(value, what, op):
    """A Python int from ``value`` (int, NumPy integer or integer Tensor), else TF's TypeError."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer or value.shape.rank != 0:
            raise TypeError(f"{op}: {what} must be a scalar integer, got {value.dtype.name}{value.shape}")
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{op}: {what} must be an integer, got {type(value).__name__} {value!r}")
    return int(value)


def check_positive_count(value, what, op, label=None):
    """check_count, then TF's InvalidArgumentError unless the count is above zero (``label`` names it there)."""
    n = check_count(value, what, op)
    if n <= 0:
        raise errors.InvalidArgumentError(None, None, f"{op}: {label or what} must be greater than zero, got {n}.")
    return n


class Mapped:
    """fn over each item of source, as builtin map: an item that raises leaves the iteration going
    (Note [Element errors] in _functions.py); close() reaches the source (a prefetching thread ends)."""
    __slots__ = ("_fn", "_source", "_next")

    def __init__(self, fn, source):
        self._fn, self._source = fn, source
        self._next = iter(source).__next__

    def __iter__(self):
        return self

    def __next__(self):
        return self._fn(self._next())

    def close(self):
        close = getattr(self._source, "close", None)
        if close is not None:
            close()


class Iterator:
    """An iterator over a dataset's elements as Tensors (``iter(dataset)``); ``next(it)`` or
    ``it.get_next()`` gives the next element and raises StopIteration / OutOfRangeError at the end."""

    def __init__(self, dataset):
        self.element_spec = dataset.element_spec
        self._source = dataset._tensors()
        self._next = self._source.__next__
        self._lock = threading.Lock()  # threads sharing the iterator take turns (a generator runs one at a time)

    def __iter__(self):
        return self

    def __next__(self):
        if _core._tracing():
            return self._traced_next()
        with self._lock:
            return self._next()

    def get_next(self):
        if _core._tracing():
            return self._traced_next()
        try:
            with self._lock:
                return self._next()
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None

    def _traced_next(self):
        """next() inside a tf.function: a host call that takes the next element at every call of the
        graph (Note [Host calls with results]); the trace itself gets the first one. A dry trace
        (get_concrete_function) takes none: it traces with zeros of the element's shapes."""
        from tapegrad._function.host_call import fresh
        from tapegrad._function.trace_context import current_trace
        specs = st.flatten(self.element_spec)
        if any(st.passes_through(s) for s in specs):
            raise errors.UnimplementedError(None, None, "next() of an iterator over elements holding datasets, "
                                                        "RaggedTensors or SparseTensors in a tf.function: unsupported")

        def take(_):
            try:
                with self._lock:
                    element = self._next()
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None
            return st.flatten(element)

        trace = current_trace()
        if trace is not None and trace.dry:
            flat = [fresh([1 if d is None else d for d in s.shape], s.dtype.code) for s in specs]
        else:
            flat = take(None)
        _core._record_host_call(take, [], "IteratorGetNext", flat)
        return st.make_packer(self.element_spec)(flat)

    def get_next_as_optional(self):
        raise errors.UnimplementedError(None, None, "Iterator.get_next_as_optional is not supported")

    def close(self):
        """Stops the pipeline now (a prefetching thread ends), as the iterator's deletion does."""
        self._source.close()


class Dataset:
    """A sequence of elements, each a (nested) structure of tensors, built from in-memory data or a
    generator and transformed lazily; iterate it in a Python loop, or pass it to ``Model.fit``."""

    _columns = None

    def __init__(self, element_spec):
        self._structure = element_spec
        self._specs = st.flatten(element_spec)
        self._pack = st.make_packer(element_spec)
        self._to_tensors = st.tensor_converter(self._specs, self._pack)

    # ---- the contract of a dataset (see the module docstring)
    def _card(self):
        return UNKNOWN_CARDINALITY

    def _flat(self):
        columns = self._columns
        if len(columns) == 2:  # (x, y), the common case, without a generator per element
            c0, c1 = columns
            for chunk in self._chunks():
                for i in chunk.tolist():
                    yield c0[i], c1[i]
            return
        for chunk in self._chunks():
            for i in chunk.tolist():
                yield tuple(c[i] for c in columns)

    def _chunks(self):
        raise NotImplementedError

    def _tensors(self):
        """The elements as the user sees them (Tensors, nested); a dataset may do this faster."""
        return Mapped(self._to_tensors, self._flat())  # not a generator: Note [Element errors] in _functions.py

    # ---- sources
    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """The slices of ``tensors`` along their first dimension, one element each; a tuple or dict
        of arrays gives elements of the same structure (all must have the same first dimension)."""
        return _sources.TensorSlices(tensors)

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element: ``tensors`` itself."""
        return _sources.Tensors(tensors)

    @staticmethod
    def range(*args, output_type=None, name=None):
        """``range(stop)``, ``range(start, stop[, step])`` as Python's range, int64 elements."""
        return _sources.Range(*args, output_type=output_type)

    @staticmethod
    def counter(start=0, step=1, dtype=int64, name=None):
        """``start, start + step, ...`` without end."""
        return _sources.Counter(start, step, dtype)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None):
        """The elements ``generator(*args)`` yields, converted to ``output_signature`` (TensorSpecs),
        or to ``output_types`` / ``output_shapes``; the generator is called again on each iteration."""
        return _sources.Generator(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """The names of the files matching the glob ``file_pattern`` (or a list of globs), as scalar
        strings in a new random order each iteration unless ``shuffle`` is False (then sorted); the glob
        runs now, and InvalidArgumentError says when it matches nothing."""
        return _sources.list_files(file_pattern, shuffle, seed)

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """Elements combined from a (nested) tuple or dict of datasets, until the shortest ends."""
        return _sources.Zip(args, datasets)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then ``dataset``'s (the element specs must be compatible)."""
        return _sources.Concatenate(self, dataset)

    # ---- batching
    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Consecutive elements stacked into batches of ``batch_size`` (the last may be smaller unless
        ``drop_remainder``)."""
        return _batching.Batch(self, batch_size, drop_remainder)

    def unbatch(self, name=None):
        """Splits each element along its first dimension into elements."""
        return _batching.Unbatch(self)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches of elements padded to ``padded_shapes`` (None dimensions: the longest in the batch)
        with ``padding_values`` (0, False by default)."""
        return _batching.PaddedBatch(self, batch_size, padded_shapes, padding_values, drop_remainder)

    # ---- order and selection
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """Elements drawn at random from a buffer of ``buffer_size`` elements that is refilled from the
        input (a full permutation when the buffer holds the whole dataset)."""
        return _ordering.Shuffle(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count=None, name=None):
        """The dataset ``count`` times over (forever for None or -1)."""
        return _ordering.Repeat(self, count)

    def take(self, count, name=None):
        """The first ``count`` elements (all of them for -1)."""
        return _ordering.Take(self, count)

    def skip(self, count, name=None):
        """All but the first ``count`` elements (none for -1)."""
        return _ordering.Skip(self, count)

    def shard(self, num_shards, index, name=None):
        """Every ``num_shards``-th element, starting at ``index``."""
        return _ordering.Shard(self, num_shards, index)

    def unique(self, name=None):
        """Each distinct element once, at its first occurrence (int32 / int64 elements)."""
        return _ordering.Unique(self)

    def cache(self, filename="", name=None):
        """Keeps the elements of the first complete iteration in memory and replays them after."""
        return _ordering.Cache(self, filename)

    def enumerate(self, start=0, name=None):
        """Elements ``(i, element)`` with an int64 counter ``i`` from ``start``."""
        start = check_count(start, "start", "Dataset.enumerate")
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of ``size`` elements (each ``stride`` apart), a new window every ``shift`` elements;
        each element is a (nested) structure of datasets, to be batched in ``flat_map``."""
        return _windowing.Window(self, size, shift, stride, drop_remainder)

    # ---- functions of elements
    def map(self, map_func, num_parallel_calls=None, deterministic=None, synchronous=None,
            use_unbounded_threadpool=False, name=None):
        """``map_func`` applied to each element (a tuple element is passed as positional arguments),
        traced once with tf.function so that each call runs as a graph."""
        return _functions.Map(self, map_func)

    def filter(self, predicate, name=None):
        """The elements for which ``predicate`` returns True (a scalar bool)."""
        return _functions.Filter(self, predicate)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets ``map_func`` returns for each element, in order."""
        return _functions.FlatMap(self, map_func)

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None):
        """The elements of the datasets ``map_func`` returns, ``cycle_length`` datasets at a time (the
        number of cores by default), ``block_length`` (1) consecutive elements from each in turn."""
        return _functions.Interleave(self, map_func, cycle_length, block_length)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate`` returns False."""
        return _functions.TakeWhile(self, predicate)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """Each element from ``datasets[i]``, ``i`` the next element of ``choice_dataset`` (int64)."""
        return _choosing.Choose(datasets, choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Each element from one of ``datasets`` drawn at random with probabilities ``weights``."""
        return _choosing.Sample(datasets, weights, seed, stop_on_empty_dataset, rerandomize_each_iteration)

    def get_single_element(self, name=None):
        """The dataset's only element (InvalidArgumentError if it has none or more than one)."""
        return _functions.get_single_element(self)

    def reduce(self, initial_state, reduce_func, name=None):
        """Folds the elements into a state: ``state = reduce_func(state, element)``."""
        return _functions.reduce(self, initial_state, reduce_func)

    def apply(self, transformation_func):
        """``transformation_func(self)``, which must return a Dataset."""
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(f"Dataset.apply: `transformation_func` must return a Dataset, got {type(result).__name__}")
        return result

    # ---- prefetching and options
    def prefetch(self, buffer_size, name=None):
        """Prepares up to ``buffer_size`` elements ahead (AUTOTUNE: a few) on a background thread
        while the consumer works."""
        return _prefetch.Prefetch(self, buffer_size)

    def with_options(self, options, name=None):
        """Accepted: threading and optimization are chosen here (Options)."""
        if not isinstance(options, Options):
            raise TypeError(f"Dataset.with_options: `options` must be a tf.data.Options, got {type(options).__name__}")
        dataset = copy.copy(self)
        dataset._options = options
        return dataset

    def options(self):
        return getattr(self, "_options", None) or Options()

    # ---- inspection and iteration
    @property
    def element_spec(self):
        """The structure of one element as TensorSpecs (nested as the elements are)."""
        return self._structure

    def cardinality(self):
        """The number of elements as an int64 scalar; INFINITE_CARDINALITY (-1) or
        UNKNOWN_CARDINALITY (-2) when not a known count."""
        return constant(self._card(), dtype=int64)

    def __len__(self):
        n = self._card()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # not len(): an infinite dataset is still a dataset

    def __iter__(self):
        if _core._tracing():
            # Without a dataset node in the graph the loop would unroll, each element a constant: a
            # replay would see the first trace's elements again.
            raise errors.OperatorNotAllowedInGraphError(
                "Iterating over a tf.data.Dataset inside a tf.function needs AutoGraph (a `for x in dataset` "
                "loop in the function's own code, with autograph=True): a Python iteration would bake the first "
                "trace's elements into the graph")
        return Iterator(self)

    def _autograph_for_stmt(self, extra_test, body, get_state, set_state, names, opts, where):
        """``for x in dataset`` converted by AutoGraph: a graph loop in a tf.function (Note [Dataset
        loops in graphs] in _graph_loop.py), a Python loop otherwise."""
        from tapegrad.data._graph_loop import dataset_for_stmt
        return dataset_for_stmt(self, extra_test, body, get_state, set_state, names, opts, where)

    def as_numpy_iterator(self):
        """The elements as NumPy values (arrays, NumPy scalars for scalars), nested alike."""
        return numpy_iterator(self)

    def __repr__(self):
        return f"<{type(self).__name__}Dataset element_spec={self.element_spec}>"


class Options:
    """tf.data.Options: any option group and value is accepted
    (``options.experimental_distribute.auto_shard_policy = ...``) and none changes the pipeline:
    threading and optimization are chosen here."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        group = Options()
        object.__setattr__(self, name, group)
        return group


# the datasets the methods build subclass Dataset, so they load after it
from tapegrad.data import _batching, _choosing, _functions, _ordering, _prefetch  # noqa: E402
from tapegrad.data import _sources, _windowing  # noqa: E402
