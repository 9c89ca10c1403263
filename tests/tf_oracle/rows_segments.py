"""Oracle rows of the segment reductions beyond the sum."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import FLOAT, NUMERIC, Sample


def _unsorted(rng, dtype):
    x = (rng.permutation(12).reshape(4, 3) - 6).astype(dtype)
    yield "r43", Sample([x, np.array([1, 1, 0, 3], np.int32), 5])
    yield "dropped", Sample([x, np.array([-1, 2, 0, 2], np.int32), 3])
    yield "ids2d", Sample([x, np.array([[0, 1, 1], [2, 0, 1], [0, 0, 0], [1, 2, 2]], np.int32), 3])
    yield "empty", Sample([np.zeros((0, 2), dtype), np.zeros(0, np.int32), 2], grad=False)
    yield "ties", Sample([np.array([1, 5, 5, 2], dtype), np.array([0, 0, 0, 1], np.int64), 2])
    yield "outside", Sample([x, np.array([0, 9, 0, 0], np.int32), 3])
    yield "negnum", Sample([x, np.array([0, 0, 0, 0], np.int32), -1])
    if dtype in FLOAT:
        yield "nan", Sample([np.array([1, np.nan, 3], dtype), np.array([0, 0, 1], np.int32), 2], grad=False)


def _sorted(rng, dtype):
    x = (rng.permutation(12).reshape(4, 3) - 6).astype(dtype)
    yield "r43", Sample([x, np.array([0, 0, 2, 3], np.int32)])
    yield "unsorted", Sample([x, np.array([1, 0, 2, 3], np.int32)])


def _cumprod(rng, dtype):
    x = (rng.permutation(12).reshape(3, 4) % 5 - 2).astype(dtype)
    yield "ax0", Sample([x])
    yield "ax1", Sample([x], {"axis": 1})
    yield "excl", Sample([x], {"axis": 1, "exclusive": True})
    yield "rev", Sample([x], {"axis": -1, "reverse": True})
    yield "nonzero", Sample([np.array([1.5, -2.0, 0.5, 3.0], dtype)])
    yield "badaxis", Sample([x], {"axis": 2})
    yield "empty", Sample([np.zeros((0, 3), dtype)])


SEGMENTS = [
    Row("math.cumprod", _cumprod, NUMERIC, opinfo="Cumprod"),
    Row("math.unsorted_segment_prod", _unsorted, NUMERIC, opinfo="UnsortedSegmentProd"),
    Row("math.segment_prod", _sorted, NUMERIC),
    Row("math.unsorted_segment_max", _unsorted, NUMERIC, opinfo="UnsortedSegmentMax"),
    Row("math.unsorted_segment_min", _unsorted, NUMERIC, opinfo="UnsortedSegmentMin"),
    Row("math.unsorted_segment_mean", _unsorted, NUMERIC, opinfo="unsorted_segment_mean"),
    Row("math.unsorted_segment_sqrt_n", _unsorted, FLOAT, opinfo="unsorted_segment_sqrt_n"),
    Row("math.segment_max", _sorted, NUMERIC),
    Row("math.segment_min", _sorted, NUMERIC),
]
