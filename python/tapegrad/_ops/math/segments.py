"""Segment reductions beyond the sum: tf.math.unsorted_segment_max / min (registry ops, cpp/ops/index.cpp),
unsorted_segment_mean / sqrt_n (the sum over the count), and the sorted segment_max / segment_min."""
from tapegrad import dtypes, errors
from tapegrad._ops import _raw
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops._lib.shapes import num_segments_arg, segment_op
from tapegrad._ops._lib.tensors import select
from tapegrad._ops.math._common import sorted_segments
from tapegrad._ops.math.elementwise import maximum, sqrt
from tapegrad._tensor.tensor import cast

__all__ = ["unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod", "unsorted_segment_mean",
           "unsorted_segment_sqrt_n", "segment_max", "segment_min", "segment_prod"]

_max = _raw.UnsortedSegmentMax
_min = _raw.UnsortedSegmentMin
_prod = _raw.UnsortedSegmentProd
_sum = _raw.UnsortedSegmentSum
_reshape = _raw.Reshape


# The ids keep their own dtype (not data's); num_segments is an int, or a tensor computed in the tf.function
# (num_segments_arg), which an int argument would refuse.
_UNSORTED = "data, segment_ids:tensor_own_dtype, num_segments:any"


@dispatch(_UNSORTED)
def unsorted_segment_max(data, segment_ids, num_segments, *, name=None):
    """out[s] = max of data[i] over segment_ids[i] == s; an empty segment holds the dtype's lowest value,
    a negative id drops its row, a NaN makes its segment NaN (as TF)."""
    return segment_op(_max, data, segment_ids, num_segments_arg(num_segments, "unsorted_segment_max"))


@dispatch(_UNSORTED)
def unsorted_segment_min(data, segment_ids, num_segments, *, name=None):
    """As unsorted_segment_max with the minimum (an empty segment holds the dtype's highest value)."""
    return segment_op(_min, data, segment_ids, num_segments_arg(num_segments, "unsorted_segment_min"))


@dispatch(_UNSORTED)
def unsorted_segment_prod(data, segment_ids, num_segments, *, name=None):
    """out[s] = product of data[i] over segment_ids[i] == s (1 for an empty segment); its gradient needs
    no division, so zeros in a segment get the product of the others."""
    return segment_op(_prod, data, segment_ids, num_segments_arg(num_segments, "unsorted_segment_prod"))


def _sum_and_count(d, ids, num_segments, fn):
    n = num_segments_arg(num_segments, fn)
    if not d.dtype.is_floating:  # TF averages integers in float64
        d = cast(d, dtypes.float64)
    ones = cast(ids >= 0, d.dtype)  # (a dropped row counts nowhere anyway)
    count = segment_op(_sum, ones, ids, n)
    count = _reshape(maximum(count, 1.0), shape=[-1] + [1] * (d.ndim - ids.ndim))
    return segment_op(_sum, d, ids, n), count


@dispatch(_UNSORTED)
def unsorted_segment_mean(data, segment_ids, num_segments, *, name=None):
    """The mean of each segment (0 for an empty one); integer data is averaged in float64, as TF."""
    total, count = _sum_and_count(data, segment_ids, num_segments, "unsorted_segment_mean")
    return total / count


@dispatch(_UNSORTED)
def unsorted_segment_sqrt_n(data, segment_ids, num_segments, *, name=None):
    """Each segment's sum over the square root of its size (0 for an empty one); float data only."""
    if not data.dtype.is_floating:
        raise errors.InvalidArgumentError(None, None, f"unsorted_segment_sqrt_n: argument 'data' must be a float "
                                                      f"tensor, got {data.dtype.name}")
    total, count = _sum_and_count(data, segment_ids, num_segments, "unsorted_segment_sqrt_n")
    return total / sqrt(count)


def _sorted(data, segment_ids, fn, op, missing=0):
    d, ids, n = sorted_segments(data, segment_ids, fn)
    out = segment_op(op, d, ids, n)
    if missing == 1:  # (the product's value for an empty segment is already 1)
        return out
    present = segment_op(_sum, cast(ids >= 0, dtypes.int32), ids, n) > 0
    present = _reshape(present, shape=[-1] + [1] * (d.ndim - 1))
    return select(present, out, cast(0, out.dtype))  # TF's sorted kernels give 0 to a missing id


@dispatch("data, segment_ids:tensor_own_dtype")
def segment_max(data, segment_ids, *, name=None):
    """The maximum of each segment for sorted ids (segment_ids[-1] + 1 rows; 0 for a missing id)."""
    return _sorted(data, segment_ids, "segment_max", _max)


@dispatch("data, segment_ids:tensor_own_dtype")
def segment_min(data, segment_ids, *, name=None):
    """The minimum of each segment for sorted ids (segment_ids[-1] + 1 rows; 0 for a missing id)."""
    return _sorted(data, segment_ids, "segment_min", _min)


@dispatch("data, segment_ids:tensor_own_dtype")
def segment_prod(data, segment_ids, *, name=None):
    """The product of each segment for sorted ids (segment_ids[-1] + 1 rows; 1 for a missing id, as TF)."""
    return _sorted(data, segment_ids, "segment_prod", _prod, missing=1)
