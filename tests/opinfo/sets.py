"""Rows for cpp/ops/set_ops.cpp (the value-shaped Unique*, PartitionPositions and StitchSources, and
BroadcastArgs, UnravelIndex, HistogramFixedWidth) and the differentiable ops composed in
python/tapegrad/_ops/array/unique_partition.py and _ops/array/space_batch.py (dynamic_partition, dynamic_stitch,
reverse_sequence, the space/batch ops, saturate_cast). TruncateDiv, TruncateMod and NextAfter, being
elementwise (fusable), have their rows in elementwise.py."""
import numpy as np

import tapegrad as tf
from opinfo import sets_edges
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, uniform

INTS = ("int32", "int64")
NUMERIC = ("float32", "float64") + INTS
_op = tf._core.op


def _np_unique(x):
    """(values, ids, counts) in first-appearance order; -0.0 is 0.0, each NaN its own value."""
    first, ids, values = {}, [], []
    for v in x.tolist():
        if v != v:
            ids.append(len(values))
            values.append(v)
            continue
        key = 0.0 if v == 0 else v
        if key not in first:
            first[key] = len(values)
            values.append(v)
        ids.append(first[key])
    counts = np.bincount(np.asarray(ids, np.int64), minlength=len(values))
    return np.asarray(values, x.dtype), np.asarray(ids), counts


def _unique_samples(rng, dtype):
    dtype = np.dtype(dtype)
    yield SampleInput([rng.integers(-3, 4, size=12).astype(dtype)])
    yield SampleInput([np.zeros(0, dtype)])
    yield SampleInput([np.array([5, 5, 5], dtype)])
    if dtype.kind == "f":
        yield SampleInput([np.array([1.5, np.nan, -0.0, 0.0, np.nan, 1.5], dtype)])
        yield SampleInput([uniform(rng, (7,), dtype)])


def _unique_index(x, out_idx=None):
    return _op("UniqueIndex")(x) if out_idx is None else _op("UniqueIndex")(x, out_idx=out_idx)


def _partition_samples(rng, dtype):
    for shape, n, which in [((7,), 3, 1), ((2, 3), 2, 0), ((0,), 2, 1), ((), 4, 3)]:
        yield SampleInput([rng.integers(0, n, size=shape).astype(dtype)], {"num_partitions": n, "partition": which})


def _np_partition(p, num_partitions, partition):
    return np.flatnonzero(p.reshape(-1) == partition).astype(np.int32)


def _stitch_samples(rng, dtype):
    yield SampleInput([np.array([3, 0, 5, 0, 2], dtype)])
    yield SampleInput([rng.permutation(6).astype(dtype)])
    yield SampleInput([np.zeros(0, dtype)])


def _np_stitch(idx):
    flat = idx.reshape(-1)
    rows = int(flat.max()) + 1 if flat.size else 0
    out = np.full(rows, flat.size, np.int32)
    for k, r in enumerate(flat):
        out[r] = k
    return out


def _broadcast_args_samples(rng, dtype):
    for a, b in [([2, 1, 3], [4, 1]), ([5], [1, 1, 5]), ([], [3, 2]), ([0, 1], [1, 7]), ([1], [1])]:
        yield SampleInput([np.array(a, dtype), np.array(b, dtype)])


def _np_broadcast_args(a, b):
    return np.array(np.broadcast_shapes(tuple(a.tolist()), tuple(b.tolist())), a.dtype)


def _unravel_samples(rng, dtype):
    yield SampleInput([np.array([22, 41, 37], dtype), np.array([7, 6], dtype)])
    yield SampleInput([np.array(1621, dtype), np.array([6, 7, 8, 9], dtype)])
    yield SampleInput([np.array([-1, -7, -13, -43], dtype), np.array([7, 6], dtype)])  # C's truncation, as TF
    yield SampleInput([np.array([0], dtype), np.zeros(0, dtype)])


def _np_unravel(idx, dims):
    flat = idx.reshape(-1).astype(np.int64)
    strides = [int(np.prod(dims[k + 1:], dtype=np.int64)) for k in range(len(dims))]
    trunc = lambda a, b: np.trunc(a / b).astype(np.int64)  # noqa: E731
    out = np.stack([np.fmod(trunc(flat, s), d) for s, d in zip(strides, dims.tolist())]) if len(dims) else \
        np.zeros((0, flat.size), np.int64)
    return out.reshape((len(dims),) + idx.shape).astype(idx.dtype)


def _histogram_samples(rng, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        yield SampleInput([uniform(rng, (4, 5), dtype, -3, 3), np.array([-2.0, 2.0], dtype)], {"nbins": 7})
        yield SampleInput([np.array([-1.0, 0.0, 1.5, 2.0, 5.0, 15, 0.3, 4.999, np.inf, -np.inf], dtype),
                           np.array([0.0, 5.0], dtype)], {"nbins": 5, "dtype": 3})
    else:
        yield SampleInput([rng.integers(-5, 25, size=(9,)).astype(dtype), np.array([0, 20], dtype)], {"nbins": 3})
    yield SampleInput([np.zeros(0, dtype), np.array([0, 1], dtype)], {"nbins": 2})


def _np_histogram(values, value_range, nbins, dtype=2):
    lo, hi = value_range[0], value_range[1]
    step = float(hi - lo) / nbins
    at = np.minimum((np.maximum(values, lo) - lo).astype(np.float64) / step, nbins - 1).astype(np.int64)
    return np.bincount(at.reshape(-1), minlength=nbins).astype(np.int64 if dtype == 3 else np.int32)


# ---- composites over the ops above


def _dynamic_partition(data, partitions, n):
    return tf.concat(tf.dynamic_partition(data, partitions, n), 0)


def _np_dynamic_partition(data, partitions, n):
    rows = data.reshape((partitions.size,) + data.shape[partitions.ndim:])
    return np.concatenate([rows[partitions.reshape(-1) == i] for i in range(n)], 0)


def _dynamic_partition_samples(rng, dtype):
    yield SampleInput([uniform(rng, (6, 2), dtype), np.array([2, 0, 2, 1, 0, 2], np.int32), 3])
    yield SampleInput([uniform(rng, (2, 3, 2), dtype), np.array([[1, 0, 1], [1, 1, 0]], np.int32), 2])
    yield SampleInput([uniform(rng, (4,), dtype), np.array([0, 0, 0, 0], np.int32), 3])  # empty partitions


def _dynamic_stitch(i0, i1, d0, d1):
    return tf.dynamic_stitch([i0, i1], [d0, d1])


def _np_dynamic_stitch(i0, i1, d0, d1):
    rest = d0.shape[i0.ndim:]
    rows = max(int(i0.max(initial=-1)), int(i1.max(initial=-1))) + 1
    out = np.zeros((rows,) + rest, d0.dtype)
    for i, d in ((i0, d0), (i1, d1)):
        for k, r in enumerate(i.reshape(-1)):
            out[r] = d.reshape((i.size,) + rest)[k]
    return out


def _dynamic_stitch_samples(rng, dtype):
    yield SampleInput([np.array([0, 3], np.int32), np.array([1, 2], np.int32), uniform(rng, (2, 3), dtype),
                       uniform(rng, (2, 3), dtype)])
    # a repeated index (the later slice wins, the earlier gets no gradient) and a missing row (zeros)
    yield SampleInput([np.array([[4, 1]], np.int32), np.array([1, 0], np.int32), uniform(rng, (1, 2), dtype),
                       uniform(rng, (2,), dtype)])


def _np_reverse_sequence(x, lengths, seq_axis, batch_axis=0):
    out = x.copy()
    for b, n in enumerate(lengths):
        src = np.take(x, b, axis=batch_axis)
        dst_axis = seq_axis - (seq_axis > batch_axis)
        part = np.flip(np.take(src, np.arange(n), axis=dst_axis), dst_axis)
        idx = [slice(None)] * x.ndim
        idx[batch_axis] = b
        idx[seq_axis] = slice(0, n)
        out[tuple(idx)] = part
    return out


def _reverse_sequence_samples(rng, dtype):
    yield SampleInput([uniform(rng, (3, 4), dtype), np.array([4, 0, 2], np.int64)], {"seq_axis": 1})
    yield SampleInput([uniform(rng, (4, 2, 3), dtype), np.array([3, 1], np.int32)], {"seq_axis": 0, "batch_axis": 1})
    yield SampleInput([uniform(rng, (2, 3, 5), dtype), np.array([5, 2], np.int64)], {"seq_axis": 2, "batch_axis": 0})


def _np_space_to_batch(x, block, pads):
    m = len(block)
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    b, rest = x.shape[0], list(x.shape[1 + m:])
    split = [b] + [d for s, k in zip(x.shape[1:1 + m], block) for d in (s // k, k)] + rest
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + list(range(1 + 2 * m, len(split)))
    y = x.reshape(split).transpose(perm)
    return y.reshape([b * int(np.prod(block))] + [s // k for s, k in zip(x.shape[1:1 + m], block)] + rest)


def _space_to_batch_samples(rng, dtype):
    yield SampleInput([uniform(rng, (2, 4, 6, 1), dtype), [2, 3], [[0, 0], [0, 0]]])
    yield SampleInput([uniform(rng, (1, 3, 2, 2), dtype), [2, 2], [[1, 0], [0, 2]]])
    yield SampleInput([uniform(rng, (2, 4), dtype), [2], [[1, 1]]])


def _np_batch_to_space(x, block, crops):
    m = len(block)
    total = int(np.prod(block))
    b, spatial, rest = x.shape[0] // total, list(x.shape[1:1 + m]), list(x.shape[1 + m:])
    y = x.reshape(list(block) + [b] + spatial + rest)
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)] + list(range(2 * m + 1, y.ndim))
    y = y.transpose(perm).reshape([b] + [s * k for s, k in zip(spatial, block)] + rest)
    key = (slice(None),) + tuple(slice(c0, y.shape[1 + i] - c1) for i, (c0, c1) in enumerate(crops))
    return y[key]


def _batch_to_space_samples(rng, dtype):
    yield SampleInput([uniform(rng, (6, 2, 2, 1), dtype), [2, 3], [[0, 0], [0, 0]]])
    yield SampleInput([uniform(rng, (8, 2, 2), dtype), [2, 2], [[1, 0], [0, 3]]])


def _saturate_samples(rng, dtype):
    yield SampleInput([uniform(rng, (2, 3), dtype), dtype])


def _np_saturate(x, dtype):
    return x.astype(dtype)


rows = [
    OpInfo("UniqueValues", lambda x: _op("UniqueValues")(x), lambda x: _np_unique(x)[0], samples=_unique_samples,
           differentiable=False, dtypes=NUMERIC),
    OpInfo("UniqueIndex", _unique_index, lambda x, out_idx=None: _np_unique(x)[1].astype(np.int32),
           samples=_unique_samples, differentiable=False, dtypes=NUMERIC),
    OpInfo("UniqueCount", lambda x: _op("UniqueCount")(_op("UniqueIndex")(x), _op("UniqueValues")(x), out_idx=3),
           lambda x: _np_unique(x)[2],
           samples=_unique_samples, differentiable=False, dtypes=NUMERIC),
    OpInfo("PartitionPositions", lambda p, **kw: _op("PartitionPositions")(p, **kw), _np_partition,
           samples=_partition_samples, differentiable=False, dtypes=INTS),
    OpInfo("StitchSources", lambda i: _op("StitchSources")(i), _np_stitch, samples=_stitch_samples,
           differentiable=False, dtypes=INTS),
    OpInfo("BroadcastArgs", lambda a, b: _op("BroadcastArgs")(a, b), _np_broadcast_args,
           samples=_broadcast_args_samples, differentiable=False, dtypes=INTS),
    OpInfo("UnravelIndex", lambda i, d: _op("UnravelIndex")(i, d), _np_unravel, samples=_unravel_samples,
           differentiable=False, dtypes=INTS),
    OpInfo("HistogramFixedWidth", lambda v, r, **kw: _op("HistogramFixedWidth")(v, r, **kw), _np_histogram,
           samples=_histogram_samples, differentiable=False, dtypes=NUMERIC),
    OpInfo("dynamic_partition", _dynamic_partition, _np_dynamic_partition, samples=_dynamic_partition_samples,
           order=2, op=None),
    OpInfo("dynamic_stitch", _dynamic_stitch, _np_dynamic_stitch, samples=_dynamic_stitch_samples, order=2,
           op=None),
    OpInfo("reverse_sequence", tf.reverse_sequence, _np_reverse_sequence, samples=_reverse_sequence_samples,
           order=2, op=None),
    OpInfo("space_to_batch_nd", tf.space_to_batch_nd, _np_space_to_batch, samples=_space_to_batch_samples,
           order=2, op=None),
    OpInfo("batch_to_space", tf.batch_to_space, _np_batch_to_space, samples=_batch_to_space_samples, order=2,
           op=None),
    OpInfo("saturate_cast", lambda x, dt: tf.saturate_cast(x, tf.as_dtype(dt)), _np_saturate,
           samples=_saturate_samples, order=2, op=None),
]

attach_edge_samples(rows, sets_edges.EDGE_SAMPLES)  # the rows' edge values, in opinfo/sets_edges.py
