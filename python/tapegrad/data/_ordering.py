"""Datasets that reorder or select elements: shuffle, repeat, take, skip, shard, cache.

Note [Row datasets]
A dataset whose elements are rows of in-memory arrays (from_tensor_slices, range) exposes the
arrays as ``_columns`` and one pass as ``_chunks()``, index arrays into them. The datasets here
keep that form when their input has it: they pass the same columns on and move index arrays
(shuffle through the vectorized buffer of Note [Shuffle buffer]), so that ``batch`` downstream
gathers each batch with one NumPy call per component. Otherwise they work element by element.
"""
import numpy as np

from tapegrad import dtypes, errors, random
from tapegrad.data import _shuffle
from tapegrad.data._dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset, check_count

__all__ = ["Shuffle", "Repeat", "Take", "Skip", "Shard", "Cache", "Unique"]


class _Reordering(Dataset):
    """One input; the same element_spec; rows stay rows."""

    def __init__(self, dataset):
        self._input = dataset
        self._columns = dataset._columns
        super().__init__(dataset.element_spec)

    def _flat(self):
        if self._columns is not None:
            return Dataset._flat(self)
        return self._elements(self._input._flat())

    def _chunks(self):
        return self._elements(self._input._chunks())

    def _tensors(self):
        # over elements the reordering only counts or moves them: it can move the input's tensors, so
        # that a batch of rows upstream keeps its fast path (Batch._tensors)
        if self._columns is not None:
            return Dataset._tensors(self)
        return self._elements(self._input._tensors())


class Shuffle(_Reordering):
    def __init__(self, dataset, buffer_size, seed, reshuffle_each_iteration):
        super().__init__(dataset)
        size = check_count(buffer_size, "buffer_size", "Dataset.shuffle")
        if size <= 0 and size != UNKNOWN_CARDINALITY:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shuffle: buffer_size must be greater than "
                                              f"zero or UNKNOWN_CARDINALITY, got {size}")
        self._buffer_size = size if size > 0 else np.iinfo(np.int64).max
        self._seed = int(seed) if seed is not None else int(random._numpy_generator().integers(1 << 62))
        self._reshuffle = reshuffle_each_iteration is None or bool(reshuffle_each_iteration)
        self._epoch = 0

    def _card(self):
        return self._input._card()

    def _rng(self):
        epoch = self._epoch
        if self._reshuffle:
            self._epoch += 1
        return np.random.default_rng([self._seed, epoch])

    def _chunks(self):
        size = self._buffer_size
        n = self._input._card()
        if n >= 0:
            size = min(size, n)
        return _shuffle.shuffle_indices(self._input._chunks(), size, self._rng())

    def _flat(self):
        if self._columns is not None:
            return Dataset._flat(self)
        return _shuffle.shuffle_elements(self._input._flat(), self._buffer_size, self._rng())

    def _tensors(self):
        if self._columns is not None:
            return Dataset._tensors(self)
        return _shuffle.shuffle_elements(self._input._tensors(), self._buffer_size, self._rng())


class Repeat(_Reordering):
    def __init__(self, dataset, count):
        super().__init__(dataset)
        self._count = -1 if count is None else check_count(count, "count", "Dataset.repeat")

    def _card(self):
        n = self._input._card()
        if self._count == 0 or n == 0:
            return 0
        if self._count < 0:
            return INFINITE_CARDINALITY
        return n if n < 0 else n * self._count

    def _passes(self, make_pass):
        done = 0
        while self._count < 0 or done < self._count:
            empty = True
            for item in make_pass():
                empty = False
                yield item
            done += 1
            if empty:  # an empty input repeated forever is empty, not a hang
                return

    def _flat(self):
        if self._columns is not None:
            return Dataset._flat(self)
        return self._passes(self._input._flat)

    def _chunks(self):
        return self._passes(self._input._chunks)

    def _tensors(self):
        if self._columns is not None:
            return Dataset._tensors(self)
        return self._passes(self._input._tensors)


class Take(_Reordering):
    def __init__(self, dataset, count):
        super().__init__(dataset)
        self._count = check_count(count, "count", "Dataset.take")

    def _card(self):
        n = self._input._card()
        if self._count < 0:
            return n
        if n == UNKNOWN_CARDINALITY:
            return n
        return self._count if n == INFINITE_CARDINALITY else min(n, self._count)

    def _elements(self, items):
        left = self._count
        if left < 0:
            yield from items
            return
        if left == 0:
            return
        for item in items:
            if self._columns is not None:
                item = item[:left]
                left -= len(item)
            else:
                left -= 1
            yield item
            if left <= 0:
                return


class Skip(_Reordering):
    def __init__(self, dataset, count):
        super().__init__(dataset)
        self._count = check_count(count, "count", "Dataset.skip")

    def _card(self):
        n = self._input._card()
        if n < 0:
            return n
        return 0 if self._count < 0 else max(n - self._count, 0)

    def _elements(self, items):
        left = self._count
        for item in items:
            if left < 0:
                continue
            if self._columns is not None:
                cut, left = min(left, len(item)), left - min(left, len(item))
                if cut < len(item):
                    yield item[cut:]
            elif left:
                left -= 1
            else:
                yield item


class Shard(_Reordering):
    def __init__(self, dataset, num_shards, index):
        super().__init__(dataset)
        self._num = check_count(num_shards, "num_shards", "Dataset.shard")
        self._index = check_count(index, "index", "Dataset.shard")
        if self._num <= 0:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: Number of shards must be greater than zero "
                                              f"(currently num_shards = {self._num}).")
        if not 0 <= self._index < self._num:
            raise errors.InvalidArgumentError(None, None, f"Dataset.shard: Index must be between 0 and "
                                              f"{self._num - 1} (currently index = {self._index}).")

    def _card(self):
        n = self._input._card()
        if n < 0:
            return n
        return n // self._num + (self._index < n % self._num)

    def _elements(self, items):
        position = 0
        for item in items:
            if self._columns is not None:
                first = (self._index - position) % self._num
                position += len(item)
                yield item[first::self._num]
            else:
                if position % self._num == self._index:
                    yield item
                position += 1


class Cache(_Reordering):
    """The first complete pass is kept (its elements, or its row indices) and replayed after; a pass
    left unfinished is not kept. A ``filename`` is accepted and the cache is kept in memory."""

    def __init__(self, dataset, filename):
        super().__init__(dataset)
        if not isinstance(filename, str):
            raise TypeError(f"Dataset.cache: filename must be a string, got {type(filename).__name__}")
        self._kept = None

    def _card(self):
        return self._input._card()

    def _tensors(self):
        return Dataset._tensors(self)  # the cache holds flat elements, whichever way it is read

    def _elements(self, items):
        if self._kept is not None:
            yield from self._kept
            return
        seen = []
        for item in items:
            seen.append(item)
            yield item
        self._kept = seen


class Unique(_Reordering):
    """The first occurrence of each element (int32 or int64 components), in order."""

    def __init__(self, dataset):
        for spec in dataset._specs:
            if getattr(spec, "dtype", None) not in (dtypes.int32, dtypes.int64):
                raise TypeError(f"Dataset.unique: `tf.data.Dataset.unique` does not support type "
                                f"{getattr(spec, 'dtype', spec)!r} -- only `tf.int32`, `tf.int64` (and `tf.string`) "
                                f"are supported.")
        super().__init__(dataset)
        self._columns = None

    def _chunks(self):
        raise NotImplementedError

    def _elements(self, items):
        seen = set()
        for item in items:
            key = tuple((np.asarray(a).shape, np.asarray(a).tobytes()) for a in item)
            if key not in seen:
                seen.add(key)
                yield item

    def _tensors(self):
        return Dataset._tensors(self)
