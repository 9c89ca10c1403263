"""Dataset.prefetch: elements prepared ahead on a background thread.

Note [Prefetch thread]
A producer thread fills a bounded queue from the input while the consumer takes from it. The
thread holds no reference to the consumer's iterator, so dropping the iterator (or calling its
close()) sets a stop flag the producer sees within one queue timeout; it then ends. An exception
in the producer travels through the queue and is raised in the consumer. A pipeline of in-memory
rows and batches gathers a batch faster than two threads hand one over, so there prefetch runs
inline (Note [Row datasets]).
"""
import queue
import threading
import weakref

from tapegrad import errors
from tapegrad.data._batching import Batch
from tapegrad.data._dataset import AUTOTUNE, Dataset, check_count

__all__ = ["Prefetch"]

_AUTOTUNE_DEPTH = 4
_DONE = object()


def _is_in_memory(dataset):
    """Rows, or batches of rows: nothing for a second thread to overlap."""
    return dataset._columns is not None or isinstance(dataset, Batch) and dataset._input._columns is not None


class _Failure:
    def __init__(self, error):
        self.error = error


def _put(slots, item, stop):
    """Puts item into slots, waiting for room, unless stop is set first."""
    while not stop.is_set():
        try:
            slots.put(item, timeout=0.05)
            return
        except queue.Full:
            continue


def _produce(source, slots, stop):
    try:
        for item in source:
            _put(slots, item, stop)
            if stop.is_set():
                return
        item = _DONE
    except BaseException as e:  # noqa: BLE001  (re-raised in the consumer)
        item = _Failure(e)
    _put(slots, item, stop)


def _stop(flag, thread):
    flag.set()
    if thread is not threading.current_thread():
        thread.join(timeout=1.0)  # the producer sees the flag within one queue timeout


class _PrefetchIterator:
    def __init__(self, source, depth):
        self._slots = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=_produce, args=(source, self._slots, self._stop),
                                        name="tapegrad.data.prefetch", daemon=True)
        self._thread.start()
        self._finalizer = weakref.finalize(self, _stop, self._stop, self._thread)
        self._ended = False

    def __iter__(self):
        return self

    def __next__(self):
        if self._ended:
            raise StopIteration
        item = self._slots.get()
        if item is _DONE or isinstance(item, _Failure):
            self._ended = True
            self._thread.join()
            if item is not _DONE:
                raise item.error
            raise StopIteration
        return item

    def close(self):
        self._ended = True
        self._finalizer()


class Prefetch(Dataset):
    def __init__(self, dataset, buffer_size):
        size = check_count(buffer_size, "buffer_size", "Dataset.prefetch")
        if size < AUTOTUNE:
            raise errors.InvalidArgumentError(None, None, f"Dataset.prefetch: buffer_size must be >= 0 or set "
                                              f"buffer_size to be -1 for auto-tuning, got {size}")
        self._input = dataset
        self._depth = _AUTOTUNE_DEPTH if size == AUTOTUNE else size
        super().__init__(dataset.element_spec)

    def _card(self):
        return self._input._card()

    def _inline(self):
        return self._depth == 0 or _is_in_memory(self._input)

    def _flat(self):
        if self._inline():
            return self._input._flat()
        return _PrefetchIterator(self._input._flat(), self._depth)

    def _tensors(self):
        if self._inline():
            return self._input._tensors()  # batch's fast path stays
        return Dataset._tensors(self)
