"""Rows for SetRow and ResizeRows, the ops graph loops collect rows with (TensorArray, map_fn, scan)."""
import numpy as np

import tapegrad as tf
from opinfo.core import OpInfo, SampleInput, uniform

_set_row = tf._core.op("SetRow")
_resize_rows = tf._core.op("ResizeRows")


def _index(i):
    # An internal handle converts a NumPy input to the first tensor's dtype (TF's dtype_hint): an
    # index is given as a tensor, as the Python callers do.
    return tf.constant(i) if not isinstance(i, tf.Tensor) else i


def _np_set_row(buffer, index, value, grow=False):
    rows = buffer.shape[0]
    if grow and index >= rows:
        out = np.zeros((max(index + 1, 2 * rows),) + buffer.shape[1:], buffer.dtype)
        out[:rows] = buffer
    else:
        out = buffer.copy()
    out[index] = value
    return out


def _set_row_samples(rng, dtype):
    for shape, index, grow in [((4, 3), 2, False), ((3,), 0, False), ((2, 2, 3), 1, False), ((3, 2), 5, True),
                               ((3, 2), 1, True), ((0, 2), 0, True)]:
        args = [uniform(rng, shape, dtype), np.asarray(index, np.int32), uniform(rng, shape[1:], dtype)]
        yield SampleInput(args, {"grow": grow} if grow else {})
    # a scalar written over a whole row
    yield SampleInput([uniform(rng, (3, 4), dtype), np.asarray(1, np.int64), uniform(rng, (), dtype)])


def _np_resize_rows(x, n, like=False):
    n = np.shape(n)[0] if like else int(n)
    out = np.zeros((n,) + x.shape[1:], x.dtype)
    out[:min(n, x.shape[0])] = x[:min(n, x.shape[0])]
    return out


def _resize_rows_samples(rng, dtype):
    for shape, n in [((4, 3), 2), ((2, 3), 5), ((3,), 3), ((3, 2), 0), ((0, 2), 2)]:
        yield SampleInput([uniform(rng, shape, dtype), np.asarray(n, np.int32)])
    # like=True: the rows of the second input (its shape, not its values)
    yield SampleInput([uniform(rng, (4, 3), dtype), np.zeros((2, 5), np.int32)], {"like": True})
    yield SampleInput([uniform(rng, (2, 3), dtype), np.zeros((3,), np.int32)], {"like": True})


rows = [
    OpInfo("SetRow", lambda b, i, v, **k: _set_row(b, _index(i), v, **k), _np_set_row, samples=_set_row_samples,
           order=2),
    OpInfo("ResizeRows", lambda x, n, **k: _resize_rows(x, _index(n), **k), _np_resize_rows, samples=_resize_rows_samples,
           order=2),
]
