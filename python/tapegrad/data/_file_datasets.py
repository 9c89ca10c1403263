"""Datasets of files' contents: tf.data.TFRecordDataset (the records of TFRecord files, Note [TFRecord
framing] in io/_tfrecord.py) and tf.data.TextLineDataset (their lines), one scalar tf.string element
each, file after file, or interleaved over ``num_parallel_reads`` files as TF's interleave does."""
import numpy as np

from tapegrad import dtypes, errors
from tapegrad._tensor.string_tensor import StringTensor, is_text, string_constant
from tapegrad._tensor.tensor import Tensor, TensorSpec
from tapegrad.data._dataset import AUTOTUNE, Dataset
from tapegrad.io._tfrecord import compression_of, read_lines, read_records

__all__ = ["TFRecordDataset", "TextLineDataset"]


def _filenames(filenames):
    """The names as a list of str (from str, bytes, a list of them, a string tensor or a Dataset), or the
    Dataset itself, read when iterated."""
    if isinstance(filenames, Dataset):
        spec = filenames.element_spec
        if not (isinstance(spec, TensorSpec) and spec.dtype is dtypes.string):
            got = spec.dtype.name if isinstance(spec, TensorSpec) else type(spec).__name__
            raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `tf.{got}` elements.")
        return filenames
    if isinstance(filenames, StringTensor):
        values = np.asarray(filenames._value, dtype=object).reshape(-1)
    elif isinstance(filenames, Tensor):
        if filenames.dtype is not dtypes.string:
            raise TypeError("The `filenames` argument must contain `tf.string` elements. Got "
                            f"`tf.{filenames.dtype.name}` elements.")
        values = np.asarray(filenames._value, dtype=object).reshape(-1)
    elif isinstance(filenames, (str, bytes)) or (isinstance(filenames, (list, tuple)) and is_text(filenames)):
        values = np.asarray(string_constant(filenames)._value, dtype=object).reshape(-1)
    else:
        kind = type(filenames).__name__
        if isinstance(filenames, (list, tuple, np.ndarray)):
            kind = np.asarray(filenames).dtype.name if len(filenames) else "float32"
        elif isinstance(filenames, (int, float)):
            kind = "int32" if isinstance(filenames, int) else "float32"
        raise TypeError(f"The `filenames` argument must contain `tf.string` elements. Got `tf.{kind}` elements.")
    return [v.decode() if isinstance(v, bytes) else str(v) for v in values]


class _FileDataset(Dataset):
    """The elements ``_elements(path)`` yields of each file (flat tuples): by default the pieces
    ``_read(path, compression)`` yields, as scalar tf.string elements."""

    _read = None

    def _elements(self, path):
        for piece in type(self)._read(path, self._compression):
            yield (np.array(piece, dtype=object),)

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        self._names = _filenames(filenames)
        self._compression = compression_of(compression_type)
        if num_parallel_reads is not None and num_parallel_reads != AUTOTUNE and \
                (not isinstance(num_parallel_reads, (int, np.integer)) or num_parallel_reads < 1):
            raise errors.InvalidArgumentError(None, None, f"{type(self).__name__}: `cycle_length` must be > 0 "
                                              f"(num_parallel_reads={num_parallel_reads!r})")
        # AUTOTUNE reads the files in order, as TF's does on a CPU
        self._cycle = 1 if num_parallel_reads in (None, AUTOTUNE) else int(num_parallel_reads)
        super().__init__(TensorSpec([], dtypes.string))

    def _paths(self):
        if isinstance(self._names, Dataset):
            for (name,) in self._names._flat():
                value = name.numpy() if isinstance(name, Tensor) else np.asarray(name).item()
                yield value.decode() if isinstance(value, bytes) else str(value)
        else:
            yield from self._names

    def _flat(self):
        paths = self._paths()
        if self._cycle == 1:
            for path in paths:
                yield from self._elements(path)
            return
        # TF's interleave: each turn a slot gives one element; a finished file empties its slot and the
        # turn passes; an empty slot opens the next file and gives its first element
        slots = [None] * self._cycle
        turn, more = 0, True
        while more or any(s is not None for s in slots):
            if slots[turn] is None and more:
                path = next(paths, None)
                if path is None:
                    more = False
                else:
                    slots[turn] = self._elements(path)
            if slots[turn] is not None:
                element = next(slots[turn], None)
                if element is None:
                    slots[turn] = None
                else:
                    yield element
            turn = (turn + 1) % self._cycle


class TFRecordDataset(_FileDataset):
    """The records of one or more TFRecord files, as scalar tf.string elements.

    Args:
      filenames: a file name, a list of them, a string tensor, or a Dataset of names.
      compression_type: "" (none), "ZLIB" or "GZIP".
      buffer_size: read-buffer bytes (accepted; reads are buffered by Python).
      num_parallel_reads: read that many files interleaved, one record from each in turn.

    >>> for record in tf.data.TFRecordDataset(path):
    ...     example = tf.io.parse_single_example(record, features)
    """

    _read = staticmethod(read_records)


class TextLineDataset(_FileDataset):
    """The lines of one or more text files, without their line ends ("\\n"; every "\\r" goes too, as in TF),
    as scalar tf.string elements; arguments as TFRecordDataset's."""

    _read = staticmethod(read_lines)
