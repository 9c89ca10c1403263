"""tf.unique, tf.unique_with_counts, tf.dynamic_partition, tf.dynamic_stitch, the broadcast shape
helpers, tf.shape_n, tf.unravel_index, the fixed-width histograms, tf.saturate_cast and the truncating
division ops (tf.reverse_sequence and the space/batch ops are in space_batch.py).

Results whose length is read from values (the distinct values, a partition's rows, dynamic_stitch's
rows) come from value-shaped registry ops (cpp/ops/set_ops.cpp, Note [Value-shaped set ops]), so one
tf.function trace serves every value; the data rows move by GatherV2, so dynamic_partition and
dynamic_stitch differentiate with respect to their data through its rule.
"""
import collections

import numpy as np

from tapegrad._ops._dispatch import dispatch
from tapegrad import dtypes, errors
from tapegrad._ops._wrap import binary, convert_arg, public_op
from tapegrad._ops._lib.arrays import concat
from tapegrad._ops._lib.tensors import tensor_list
from tapegrad._ops.array._common import is_traced, value_needed
from tapegrad._ops.math.elementwise import floor
from tapegrad._tensor.string_tensor import StringTensor, is_text, string_constant
from tapegrad._tensor.tensor import Tensor, cast, constant, shape
from tapegrad._tensor.tensor_shape import TensorShape, unknown_shape
from tapegrad._ops import _raw

__all__ = ["unique", "unique_with_counts", "dynamic_partition", "dynamic_stitch", "broadcast_dynamic_shape",
           "broadcast_static_shape", "shape_n", "unravel_index", "histogram_fixed_width",
           "histogram_fixed_width_bins", "saturate_cast", "truncatediv", "truncatemod"]

_InvalidArgument = errors.InvalidArgumentError
_gather, _reshape = _raw.GatherV2, _raw.Reshape
_unique_values = _raw.UniqueValues
_unique_index = _raw.UniqueIndex
_unique_count = _raw.UniqueCount
_partition_positions = _raw.PartitionPositions
_stitch_sources = _raw.StitchSources
_broadcast_args = _raw.BroadcastArgs
_unravel_index = _raw.UnravelIndex
_histogram = _raw.HistogramFixedWidth
_INDEX_DTYPES = (dtypes.int32, dtypes.int64)

Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])

truncatediv = binary("TruncateDiv", "truncatediv", "truncatediv(x, y, name=None): x / y rounded toward zero "
                     "(C's integer division); no gradient, as TF.")
truncatemod = binary("TruncateMod", "truncatemod", "truncatemod(x, y, name=None): the remainder of truncatediv, "
                     "with x's sign (C's %, fmod for floats).")
nextafter = public_op("NextAfter", "nextafter", "x1, x2",
                      "nextafter(x1, x2, name=None): the next representable float after x1 toward x2.")


def _index_dtype(value, fn, arg):
    dt = convert_arg(value, "dtype", fn, arg)
    if dt not in _INDEX_DTYPES:
        raise _InvalidArgument(f"{fn}: {arg} must be int32 or int64, got {dt.name}")
    return dt


def _unique_strings(x, out_idx, fn, with_counts):
    """unique of a string vector (strings live in Python, as NumPy object arrays)."""
    values = string_constant(x)._value
    if values.ndim != 1:
        raise _InvalidArgument(f"{fn}: x must be 1-D (unique expects a 1-D vector), got shape {values.shape}")
    first, ids = {}, np.empty(values.shape, out_idx.as_numpy_dtype)
    for i, v in enumerate(values):
        ids[i] = first.setdefault(v, len(first))
    y = StringTensor(np.array(list(first), dtype=object))
    if not with_counts:
        return Unique(y, constant(ids))
    return UniqueWithCounts(y, constant(ids), constant(np.bincount(ids, minlength=len(first)).astype(ids.dtype)))


def _unique(x, out_idx, fn, with_counts):
    dt = _index_dtype(out_idx, fn, "out_idx")
    if isinstance(x, StringTensor) or not isinstance(x, Tensor) and is_text(x):
        return _unique_strings(x, dt, fn, with_counts)
    t = convert_arg(x, "tensor", fn, "x")
    if t.ndim != 1:
        raise _InvalidArgument(f"{fn}: x must be 1-D (unique expects a 1-D vector), got shape {tuple(t._shape)}")
    y, idx = _unique_values(t), _unique_index(t, out_idx=dt.code)
    return UniqueWithCounts(y, idx, _unique_count(idx, y, out_idx=dt.code)) if with_counts else Unique(y, idx)


@dispatch
def unique(x, out_idx=dtypes.int32, name=None):
    """(y, idx): the distinct values of the 1-D ``x`` in order of first appearance, and for each entry of
    x the position of its value in y (x == gather(y, idx)), as ``out_idx``. -0.0 equals 0.0; each NaN is
    a value of its own, as in TF. Not differentiable."""
    return _unique(x, out_idx, "unique", False)


@dispatch
def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """(y, idx, count): as unique, with how many times each value of y occurs in x (as ``out_idx``)."""
    return _unique(x, out_idx, "unique_with_counts", True)


def _rows(t, lead, fn):
    """t [lead dims..., rest...] as [n, rest...], n the product of the ``lead`` leading dimensions."""
    rest = list(t._shape[lead:])
    n = int(np.prod(t._shape[:lead], dtype=np.int64))
    return _reshape(t, shape=[-1 if np.prod(rest) else n] + rest)


def _count_arg(value, fn, arg):
    """An integer attribute given as a Python number or a (known) tensor; a float is truncated, as TF's
    attribute conversion does."""
    if isinstance(value, Tensor):
        value_needed(value, f"{fn}'s {arg} (it sets the number of results)")
    elif isinstance(value, (float, np.floating)) and np.isfinite(value):
        value = int(value)
    return convert_arg(value, "int", fn, arg)


@dispatch("data, partitions:any, num_partitions:any")
def dynamic_partition(data, partitions, num_partitions, name=None):
    """Splits ``data`` into ``num_partitions`` tensors: result i holds the slices data[j] (j running over
    the entries of the int32 ``partitions``, whose shape is a prefix of data's) with partitions[j] == i,
    in order. Differentiable with respect to data (each result is a gather of data's rows)."""
    fn = "dynamic_partition"
    d = data
    p = convert_arg(partitions, "tensor", fn, "partitions", dtypes.int32)
    if p.dtype != dtypes.int32:
        raise _InvalidArgument(f"{fn}: partitions must be int32, got {p.dtype.name}")
    n = _count_arg(num_partitions, fn, "num_partitions")
    if n < 1:
        raise _InvalidArgument(f"{fn}: num_partitions must be at least 1, got {n}")
    if tuple(d._shape[:p.ndim]) != tuple(p._shape):
        raise _InvalidArgument(f"{fn}: data.shape must start with partitions.shape, got data.shape = "
                               f"{list(d._shape)}, partitions.shape = {list(p._shape)}")
    rows, flat = _rows(d, p.ndim, fn), _reshape(p, shape=[-1])
    return [_gather(rows, _partition_positions(flat, num_partitions=n, partition=i), axis=0, batch_dims=0)
            for i in range(n)]


@dispatch
def dynamic_stitch(indices, data, name=None):
    """Interleaves the slices of ``data`` into one tensor: merged[indices[m][i]] = data[m][i] (each
    data[m] has shape indices[m].shape + one common row shape); the result has max(indices) + 1 rows,
    where an index given twice takes the later slice and a row no index names is zeros, as in TF.
    Differentiable with respect to data: a slice overwritten by a later one gets no gradient."""
    fn = "dynamic_stitch"
    idx_list, data_list = tensor_list(indices, fn, "indices"), tensor_list(data, fn, "data")
    if len(idx_list) != len(data_list):
        raise _InvalidArgument(f"{fn}: List argument 'data' to 'dynamic_stitch' Op with length {len(data_list)} "
                               f"must match length {len(idx_list)} of argument 'indices'.")
    if not idx_list:
        raise _InvalidArgument(f"{fn}: indices and data must hold at least one tensor each")
    idx_list = [convert_arg(v, "tensor", fn, f"indices[{m}]", dtypes.int32) for m, v in enumerate(idx_list)]
    for m, i in enumerate(idx_list):
        if i.dtype != dtypes.int32:
            raise _InvalidArgument(f"{fn}: indices[{m}] must be int32, got {i.dtype.name}")
    first = next((v for v in data_list if isinstance(v, Tensor)), None)
    hint = None if first is None else first.dtype
    data_list = [convert_arg(v, "tensor", fn, f"data[{m}]", hint) for m, v in enumerate(data_list)]
    dt, rest = data_list[0].dtype, None
    for m, (i, d) in enumerate(zip(idx_list, data_list)):
        if d.dtype != dt:
            raise _InvalidArgument(f"{fn}: data[{m}] is {d.dtype.name}, data[0] is {dt.name}: they must have one dtype")
        if tuple(d._shape[:i.ndim]) != tuple(i._shape):
            raise _InvalidArgument(f"{fn}: data[{m}].shape = {list(d._shape)} does not start with indices[{m}].shape"
                                   f" = {list(i._shape)}")
        if rest is None:
            rest = list(d._shape[i.ndim:])
        elif list(d._shape[i.ndim:]) != rest:
            raise _InvalidArgument(f"{fn}: Need data[0].shape[{idx_list[0].ndim}:] = data[{m}].shape[{i.ndim}:], got "
                                   f"data[0].shape = {list(data_list[0]._shape)}, data[{m}].shape = {list(d._shape)}")
    flat = [_reshape(i, shape=[-1]) for i in idx_list]
    rows = [_rows(d, i.ndim, fn) for i, d in zip(idx_list, data_list)]
    zero_row = constant(np.zeros([1] + rest, dt.as_numpy_dtype))  # what a row no index names gets
    sources = _stitch_sources(flat[0] if len(flat) == 1 else concat(flat, 0))
    return _gather(concat(rows + [zero_row], 0), sources, axis=0, batch_dims=0)


@dispatch
def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (a 1-D int32 or int64 tensor) that tensors of shapes ``shape_x`` and ``shape_y`` broadcast
    to; incompatible shapes raise InvalidArgumentError (at run time in a tf.function)."""
    sx = convert_arg(shape_x, "tensor", "broadcast_dynamic_shape", "shape_x", dtypes.int32)
    sy = convert_arg(shape_y, "tensor", "broadcast_dynamic_shape", "shape_y", sx.dtype)
    return _broadcast_args(sx, sy)


def _static_dim(a, b):
    if a is None or b is None:  # unknown: a known dimension above 1 is assumed to be the result, as TF
        known = a if a is not None else b
        return known if known is not None and known > 1 else None
    if a == b or b == 1:
        return a
    return b if a == 1 else False


@dispatch
def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape that tensors of TensorShapes ``shape_x`` and ``shape_y`` broadcast to (unknown rank
    if either is); a known incompatible pair of dimensions raises ValueError."""
    for arg, s in (("shape_x", shape_x), ("shape_y", shape_y)):
        if not isinstance(s, TensorShape):
            raise TypeError(f"broadcast_static_shape: {arg} must be a TensorShape, got {type(s).__name__} {s!r}")
    if shape_x.rank is None or shape_y.rank is None:
        return unknown_shape()
    n = max(len(shape_x), len(shape_y))
    x, y = [1] * (n - len(shape_x)) + list(shape_x), [1] * (n - len(shape_y)) + list(shape_y)
    dims = [_static_dim(a, b) for a, b in zip(x, y)]
    if any(d is False for d in dims):
        raise ValueError(f"broadcast_static_shape: Incompatible shapes for broadcasting. Two shapes are compatible "
                         f"if for each dimension pair they are either equal or one of them is 1. Received: "
                         f"{shape_x} and {shape_y}.")
    return TensorShape(dims)


@dispatch
def shape_n(input, out_type=dtypes.int32, name=None):
    """[tf.shape(t, out_type) for t in input] (a tensor's rows when ``input`` is one tensor)."""
    fn = "shape_n"
    items = tensor_list(input, fn, "input")
    if not items:
        raise _InvalidArgument(f"{fn}: input must hold at least one tensor")
    dt = _index_dtype(out_type, fn, "out_type")
    return [shape(convert_arg(t, "tensor", fn, f"input[{k}]"), out_type=dt) for k, t in enumerate(items)]


@dispatch
def unravel_index(indices, dims, name=None):
    """The coordinates of the flat ``indices`` (a scalar or a vector) into an array of shape ``dims``:
    [len(dims)] + indices.shape, in indices' dtype (int32 or int64). An index >= prod(dims) raises; a
    negative one gives C's truncated coordinates, as TF."""
    idx = convert_arg(indices, "tensor", "unravel_index", "indices", dtypes.int32)
    return _unravel_index(idx, convert_arg(dims, "tensor", "unravel_index", "dims", idx.dtype))


def _histogram_args(v, value_range, nbins, fn):
    """(values, value_range) as tensors, value_range taking values' dtype (v, a tensor already)."""
    r = convert_arg(value_range, "tensor", fn, "value_range", v.dtype)
    if isinstance(nbins, (float, np.floating)):
        raise TypeError(f"{fn}: nbins must be an integer, got {nbins!r}")
    return v, r


@dispatch
def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts of ``values`` in ``nbins`` equal bins spanning ``value_range`` [lo, hi] (lo < hi), as
    ``dtype`` (int32 or int64): values below lo count in the first bin, values at or above hi in the
    last. NaN values raise InvalidArgumentError, as in TF."""
    fn = "histogram_fixed_width"
    v, r = _histogram_args(convert_arg(values, "tensor", fn, "values"), value_range, nbins, fn)
    if isinstance(nbins, Tensor):
        value_needed(nbins, f"{fn}'s nbins (it sets the result's size)")
    n = convert_arg(nbins, "int", fn, "nbins")
    if n > 2**31 - 1:  # TF's nbins is an int32: this count wraps there and is refused
        raise _InvalidArgument(f"HistogramFixedWidth: nbins should be a positive number, but got '{n}' (past int32)")
    return _histogram(v, r, nbins=n, dtype=_index_dtype(dtype, fn, "dtype").code)


@dispatch("values:tensor_own_dtype, value_range:any, nbins:any=100, dtype:any='int32'")
def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin of each value (int32, whatever ``dtype`` says, as TF): floor(nbins * (v - lo) / (hi - lo))
    clipped to [0, nbins - 1], computed in values' float dtype as TF does (NaN gives int32's minimum)."""
    fn = "histogram_fixed_width_bins"
    v, r = _histogram_args(values, value_range, nbins, fn)
    if not v.dtype.is_floating:
        raise _InvalidArgument(f"{fn}: values must be float32 or float64 (TF scales them in their own dtype), "
                               f"got {v.dtype.name}")
    if r.dtype != v.dtype:
        raise _InvalidArgument(f"{fn}: value_range is {r.dtype.name}, values are {v.dtype.name}: they must have "
                               "one dtype")
    n = convert_arg(nbins, "tensor", fn, "nbins", dtypes.int32)
    if not is_traced(n) and not n._item() > 0:
        raise _InvalidArgument(f"{fn}: nbins must be > 0, got {n._item()}")
    bins = cast(n, v.dtype)
    lo, hi = r[0], r[1]
    scaled = floor(bins * ((v - lo) / (hi - lo)))
    return cast(_clip(scaled, constant(0, v.dtype), bins - constant(1, v.dtype)), dtypes.int32)


def _clip(t, lo, hi):
    """tf.clip_by_value of tensors of one dtype: max(min(t, hi), lo), in TF's order; NaN stays NaN."""
    return _raw.Maximum(_raw.Minimum(t, hi), lo)


def _limit(value, dtype, below):
    """The integer or float ``value`` held in ``dtype``, stepped toward zero when rounding crossed it (so
    that it stays inside the target's range); below: value is a lower limit."""
    held = np.array(value, dtype=dtype.as_numpy_dtype)
    if dtype.is_floating and (held.item() < value if below else held.item() > value):
        held = np.nextafter(held, np.array(0, dtype=dtype.as_numpy_dtype))
    return constant(held)


@dispatch("value, dtype:any")
def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype`` with values outside its range clamped to its limits first (float
    limits held in the value's dtype are stepped toward zero: float32 -> int32 clamps at 2147483520). As
    TF, a float value is always clamped to the finite range (inf -> the largest float) and NaN stays NaN
    (an integer dtype receives its minimum, as the cast gives). bool is refused, as TF. Differentiable
    where the value is not clamped."""
    fn = "saturate_cast"
    x = value
    dt = convert_arg(dtype, "dtype", fn, "dtype")  # (by hand: None is TF's TypeError, and a DType passes at once)
    if not (x.dtype.is_floating or x.dtype.is_integer) or not (dt.is_floating or dt.is_integer):
        raise TypeError(f"{fn}: cannot saturate a cast from {x.dtype.name} to {dt.name}: only numbers have a range")
    src_min, src_max = (float(x.dtype.min), float(x.dtype.max)) if x.dtype.is_floating else (int(x.dtype.min),
                                                                                           int(x.dtype.max))
    dst_min, dst_max = (float(dt.min), float(dt.max)) if dt.is_floating else (int(dt.min), int(dt.max))
    lo, hi = max(src_min, dst_min), min(src_max, dst_max)
    if x.dtype.is_floating or lo > src_min or hi < src_max:
        x = _clip(x, _limit(lo, x.dtype, True), _limit(hi, x.dtype, False))
    return cast(x, dt)
