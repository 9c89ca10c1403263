"""Dataset.as_numpy_iterator(): the elements as NumPy values, from an iterator with TF's next() too."""
import numpy as np

from tapegrad import _core
from tapegrad.data import _composites as composites, _structure as st

__all__ = ["numpy_iterator"]


class _NumpyIterator:
    def __init__(self, values):
        self._values = values

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._values)

    def next(self):
        return next(self._values)


def _values(dataset, pack, np_dtypes):
    for flat in dataset._flat():
        yield pack([np.asarray(a, dt)[()] for a, dt in zip(flat, np_dtypes)])


def numpy_iterator(dataset):
    """The elements as NumPy values (arrays, NumPy scalars for scalars), nested alike."""
    if _core._tracing():
        raise RuntimeError("Dataset.as_numpy_iterator() is only supported in eager mode (not inside a "
                           "tf.function)")
    if any(isinstance(s, st.DatasetSpec) for s in dataset._specs):
        raise TypeError(f"Dataset.as_numpy_iterator() is not supported for datasets that produce values of "
                        f"type DatasetSpec ({dataset.element_spec})")
    if any(composites.is_composite(s) for s in dataset._specs):
        return _NumpyIterator(_composite_values(dataset))
    return _NumpyIterator(_values(dataset, dataset._pack, [s.dtype.as_numpy_dtype for s in dataset._specs]))


def _composite_values(dataset):
    """As TF gives them: a RaggedTensor as its rows (an object array of arrays), a SparseTensor dense."""
    np_dtypes = [s.dtype.as_numpy_dtype for s in dataset._specs]
    for flat in dataset._flat():
        yield dataset._pack([composites.as_numpy(a) if composites.is_composite_value(a) else np.asarray(a, dt)[()]
                             for a, dt in zip(flat, np_dtypes)])
