"""Rows for shape and indexing ops (Reshape, Transpose, StridedSlice, ConcatV2, GatherV2, ...)."""
import numpy as np

import tapegrad as tf
from opinfo import array_errors
from opinfo.core import OpInfo, SampleInput, attach_error_inputs, uniform


def _op(name):
    handle = tf._core.op(name)
    return lambda *args, **kwargs: handle(*args, **kwargs)


def _with_shapes(cases):
    """samples(rng, dtype) yielding one float input of each shape, with that case's kwargs."""
    def samples(rng, dtype):
        for shape, kwargs in cases:
            yield SampleInput([uniform(rng, shape, dtype)], dict(kwargs))
    return samples


# ---- existing shape ops
def _cast_samples(rng, dtype):
    yield SampleInput([uniform(rng, (2, 3), dtype)], {"dtype": tf.float64})
    if dtype == np.float32:  # float64 -> float32 loses the precision finite differences need: forward only
        yield SampleInput([uniform(rng, (2, 3), dtype)], {"dtype": tf.int32})
        yield SampleInput([uniform(rng, (4,), dtype)], {"dtype": tf.float32})


_cast_op = tf._core.op("Cast")
_shape_op = tf._core.op("Shape")  # tf.shape's run-time form (a constant outside relaxed graphs)


def _cast(x, dtype):
    return _cast_op(x, dtype=dtype.code)  # the op itself, even when the dtype does not change


# ---- StridedSlice through Tensor.__getitem__ (normalisation, newaxis and shrink included)
_KEYS = [((5,), np.s_[1:4]), ((5,), np.s_[::-1]), ((5,), np.s_[-2]), ((5,), np.s_[4:0:-2]),
         ((3, 4), np.s_[1]), ((3, 4), np.s_[:, ::2]), ((3, 4), np.s_[::-1, 1:3]), ((3, 4), np.s_[None, 1:, ..., None]),
         ((2, 3, 4), np.s_[..., 1]), ((2, 3, 4), np.s_[1, ::-2, -3:]), ((2, 3, 4), np.s_[:, 5:1]),
         ((2, 3, 4), np.s_[-1:, :, 3::-3])]


def _getitem_samples(rng, dtype):
    for shape, key in _KEYS:
        yield SampleInput([uniform(rng, shape, dtype), key])


# ---- StridedSliceGrad, driven by a slice key on a shape
def _slice_attrs(shape, key):
    key = key if isinstance(key, tuple) else (key,)
    idx = [k.indices(n) for k, n in zip(key, shape)]
    return {"shape": list(shape), "begin": [i[0] for i in idx], "end": [i[1] for i in idx],
            "strides": [i[2] for i in idx]}


def _slice_grad_samples(rng, dtype):
    for shape, key in [((5,), np.s_[1:4:2]), ((3, 4), np.s_[::-1, 1:3]), ((2, 3, 4), np.s_[1:, ::-2, 3::-3])]:
        g = uniform(rng, np.zeros(shape)[key].shape, dtype)
        yield SampleInput([g], _slice_attrs(shape, key))
    attrs = _slice_attrs((2, 3, 4), np.s_[1:2, :, 2:3])  # x[1, :, 2]: dimensions 0 and 2 shrunk
    yield SampleInput([uniform(rng, (3,), dtype)], dict(attrs, shrink_axis_mask=0b101))


def _slice_grad_ref(g, shape, begin, end, strides, shrink_axis_mask=0):
    out = np.zeros(shape, g.dtype)
    key = tuple(slice(b, None if e < 0 else e, s) for b, e, s in zip(begin, end, strides))
    out[key] = g.reshape(out[key].shape)
    return out


# ---- ConcatV2
def _concat_samples(rng, dtype):
    for shapes, axis in [([(2, 3), (1, 3)], 0), ([(2, 3), (2, 1), (2, 2)], -1), ([(2, 0, 2), (2, 2, 2)], 1),
                         ([(4,), (2,)], 0)]:
        yield SampleInput([uniform(rng, s, dtype) for s in shapes], {"axis": axis})


# ---- GatherV2 and UnsortedSegmentSum (indices repeat, so the scatter-add accumulates)
def _np_gather(p, idx, axis=None, batch_dims=0):
    batch_dims += np.ndim(idx) if batch_dims < 0 else 0
    axis = batch_dims if axis is None else axis % p.ndim
    if batch_dims == 0:
        return np.take(p, idx, axis=axis)
    return np.stack([_np_gather(p[i], idx[i], axis - 1, batch_dims - 1) for i in range(p.shape[0])])


def _gather_samples(rng, dtype):
    cases = [((4, 3), [2, 0, 2], {}), ((4, 3), [[1, 1], [0, 3]], {"axis": 0}), ((2, 4, 3), [3, 0, 3, 1], {"axis": 1}),
             ((2, 3), 1, {"axis": -1}), ((2, 4, 3), [[0, 3, 0], [2, 2, 1]], {"axis": 1, "batch_dims": 1}),
             ((2, 3, 4), [[1, 3], [0, 0]], {"axis": 2, "batch_dims": 1}),
             ((2, 3, 2), [[[0, 1], [1, 1], [0, 0]], [[1, 0], [0, 0], [1, 1]]], {"axis": 2, "batch_dims": -1})]
    for shape, idx, kwargs in cases:
        yield SampleInput([uniform(rng, shape, dtype), np.asarray(idx, np.int32)], kwargs)
    yield SampleInput([uniform(rng, (5,), dtype), np.asarray([4, 4, 0], np.int64)])


def _segment_samples(rng, dtype):
    for shape, ids, n in [((5, 2), [0, 2, 2, 1, 0], 4), ((2, 3), [[1, 1, 0], [0, 2, 2]], 3), ((3,), [1, 1, 1], 2)]:
        yield SampleInput([uniform(rng, shape, dtype), np.asarray(ids, np.int32), n])


def _segment_ref(data, ids, n):
    out = np.zeros((n,) + data.shape[ids.ndim:], data.dtype)
    np.add.at(out, ids, data)
    return out


# ---- OneHot (the row's dtype is the output dtype)
def _one_hot_samples(rng, dtype):
    dt = tf.as_dtype(dtype)
    yield SampleInput([np.asarray([0, 2, 1, 3], np.int32), 3], {"dtype": dt})
    yield SampleInput([np.asarray([[0, -1], [2, 1]], np.int64), 4], {"axis": 0, "on_value": 5.0, "off_value": -1.0,
                                                                     "dtype": dt})
    yield SampleInput([np.asarray([[1, 0]], np.int32), 2], {"axis": 1, "dtype": dt})


def _one_hot_ref(indices, depth, on_value=1.0, off_value=0.0, axis=-1, dtype=tf.float32):
    hot = indices[..., None] == np.arange(depth)
    out = np.where(hot, on_value, off_value).astype(dtype.as_numpy_dtype)
    return np.moveaxis(out, -1, axis)


# ---- composites over StridedSlice / ConcatV2 / GatherV2
def _split_samples(rng, dtype):
    for shape, sizes, axis, i in [((6, 2), 3, 0, 1), ((2, 7), [2, -1, 1], 1, 1), ((2, 7), [2, 4, 1], -1, 2)]:
        yield SampleInput([uniform(rng, shape, dtype), sizes, axis, i])


def _np_split(x, sizes, axis, i):
    if isinstance(sizes, int):
        return np.split(x, sizes, axis)[i]
    sizes = [x.shape[axis] - (sum(sizes) + 1) if s == -1 else s for s in sizes]
    return np.split(x, np.cumsum(sizes)[:-1], axis)[i]


def _stack_samples(rng, dtype):
    for n, shape, axis in [(3, (2,), 0), (2, (2, 3), -1), (2, (2, 3), 1)]:
        yield SampleInput([uniform(rng, shape, dtype) for _ in range(n)], {"axis": axis})


def _mirror_samples(rng, dtype):
    for mode in ("REFLECT", "SYMMETRIC"):
        yield SampleInput([uniform(rng, (3, 4), dtype), [[2, 1], [0, 3]]], {"mode": mode})


def _bool_mask_samples(rng, dtype):
    yield SampleInput([uniform(rng, (3, 2), dtype), np.asarray([True, False, True])])
    yield SampleInput([uniform(rng, (2, 3, 2), dtype), rng.uniform(size=(3, 2)) > 0.4], {"axis": 1})


def _np_bool_mask(x, mask, axis=0):
    return x[(slice(None),) * axis + (mask,)]



def _np_sum_to_like(g, like):
    """g summed over its leading axes and where like has 1, then broadcast where g has 1 (SumToLike)."""
    lead = g.ndim - like.ndim
    if lead > 0:
        g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i in range(g.ndim) if like.shape[i - g.ndim + like.ndim] == 1 and g.shape[i] != 1)
    g = g.sum(axis=axes, keepdims=True) if axes else g
    return np.broadcast_to(g, like.shape)


rows = [
    OpInfo("Reshape", tf.reshape, lambda x, shape: np.reshape(x, shape), order=2, samples=_with_shapes(
        [((2, 3), {"shape": [3, 2]}), ((2, 3), {"shape": [-1]}), ((6,), {"shape": [1, -1, 2]}), ((1,), {"shape": []})])),
    OpInfo("Transpose", tf.transpose, lambda x, perm=None: np.transpose(x, perm), order=2, samples=_with_shapes(
        [((2, 3), {}), ((2, 3, 4), {"perm": [1, 2, 0]}), ((2, 1, 3), {"perm": [2, 0, 1]}), ((), {})])),
    OpInfo("BroadcastTo", tf.broadcast_to, np.broadcast_to, order=2, samples=_with_shapes(
        [((3,), {"shape": [2, 3]}), ((2, 1), {"shape": [2, 4]}), ((), {"shape": [2, 2]}), ((1, 3), {"shape": [2, 1, 3]})])),
    OpInfo("BroadcastLike", _op("BroadcastLike"), lambda x, like: np.broadcast_to(x, like.shape), order=2,
           samples=lambda rng, dt: [SampleInput([uniform(rng, xs, dt), uniform(rng, ls, dt)], grad_args=[0])
                                    for xs, ls in [((3,), (2, 3)), ((2, 1), (2, 4)), ((), (2, 2))]]),
    OpInfo("SumToLike", _op("SumToLike"), _np_sum_to_like, order=2,
           samples=lambda rng, dt: [SampleInput([uniform(rng, gs, dt), uniform(rng, ls, dt)], grad_args=[0])
                                    for gs, ls in [((2, 3), (1, 3)), ((3,), (2, 3)), ((4, 2, 3), (2, 1)),
                                                   ((2, 3), (2, 3)), ((1, 3), (4, 1)), ((0, 2), (1, 2))]]),
    OpInfo("Cast", _cast, lambda x, dtype: x.astype(dtype.as_numpy_dtype), samples=_cast_samples, order=2,
           public=(tf.cast,)),
    OpInfo("Shape", lambda x, out_type: _shape_op(x, out_type=out_type.code),
           lambda x, out_type: np.array(x.shape, out_type.as_numpy_dtype), differentiable=False,
           samples=_with_shapes([((2, 3), {"out_type": tf.int32}), ((0, 4, 1), {"out_type": tf.int64}),
                                 ((), {"out_type": tf.int32})])),
    OpInfo("StridedSlice", lambda x, key: x[key], lambda x, key: x[key], samples=_getitem_samples, order=2,
           public=(tf.Tensor.__getitem__, tf.strided_slice)),
    OpInfo("StridedSliceGrad", _op("StridedSliceGrad"), _slice_grad_ref, samples=_slice_grad_samples, order=2),
    OpInfo("ConcatV2", lambda *xs, axis: tf.concat(xs, axis), lambda *xs, axis: np.concatenate(xs, axis),
           samples=_concat_samples, order=2, public=(tf.concat,)),
    OpInfo("Pad", tf.pad, lambda x, p, constant_values=0: np.pad(x, p, constant_values=constant_values) if p else x, order=2,
           samples=lambda rng, dt: [SampleInput([uniform(rng, (2, 3), dt), [[1, 0], [2, 1]]]),
                                    SampleInput([uniform(rng, (3,), dt), [[0, 2]]], {"constant_values": 1.5}),
                                    SampleInput([uniform(rng, (), dt), []])]),
    OpInfo("Tile", tf.tile, np.tile, order=2, samples=lambda rng, dt: [
        SampleInput([uniform(rng, s, dt), m]) for s, m in [((2, 3), [2, 1]), ((3,), [3]), ((2, 1, 2), [1, 3, 2]),
                                                           ((2,), [0]), ((), [])]]),
    OpInfo("GatherV2", tf.gather, _np_gather, samples=_gather_samples, order=2),
    OpInfo("UnsortedSegmentSum", tf.math.unsorted_segment_sum, _segment_ref, samples=_segment_samples, order=2),
    OpInfo("OneHot", tf.one_hot, _one_hot_ref, samples=_one_hot_samples, differentiable=False,
           dtypes=("float32", "float64", "int32", "bool")),
    # composites: each is a row so its gradient is checked too
    OpInfo("split", lambda x, sizes, axis, i: tf.split(x, sizes, axis)[i], _np_split, samples=_split_samples, op=None),
    OpInfo("unstack", lambda x, i, axis: tf.unstack(x, axis=axis)[i], lambda x, i, axis: np.moveaxis(x, axis, 0)[i],
           op=None, samples=lambda rng, dt: [SampleInput([uniform(rng, (3, 2), dt), 1, 0]),
                                             SampleInput([uniform(rng, (2, 3), dt), 2, -1])]),
    OpInfo("stack", lambda *xs, axis: tf.stack(xs, axis), lambda *xs, axis: np.stack(xs, axis), samples=_stack_samples,
           op=None),
    OpInfo("slice", tf.slice, lambda x, b, s: x[tuple(slice(i, None if n == -1 else i + n) for i, n in zip(b, s))],
           op=None, samples=lambda rng, dt: [SampleInput([uniform(rng, (3, 4), dt), [1, 0], [2, -1]])]),
    OpInfo("MirrorPad", tf.pad, lambda x, p, mode: np.pad(x, p, mode.lower()), samples=_mirror_samples, op=None),
    OpInfo("boolean_mask", tf.boolean_mask, _np_bool_mask, samples=_bool_mask_samples, op=None),
    OpInfo("getitem_list", lambda x, key: x[key], lambda x, key: x[key], op=None, public=(tf.Tensor.__getitem__,),
           samples=lambda rng, dt: [SampleInput([uniform(rng, (4, 3), dt), ([3, -1, 0],)]),
                                    SampleInput([uniform(rng, (2, 4, 3), dt), np.s_[1:, [2, 2], ::-1]])]),
]


# ---- array additions: roll, repeat, meshgrid, band_part, ensure_shape, gather_nd and the scatters
# (composites over StridedSlice / ConcatV2 / GatherV2 / UnsortedSegmentSum / Select / BroadcastTo)
def _roll_samples(rng, dtype):
    for shape, shift, axis in [((5,), 2, 0), ((2, 3), -1, 1), ((2, 3, 4), [1, 5], [0, -1]), ((3, 4), [1, 2], [1, 1]),
                               ((0, 3), 1, 1), ((4,), 0, 0)]:
        yield SampleInput([uniform(rng, shape, dtype), shift, axis])


def _repeat_samples(rng, dtype):
    for shape, reps, kwargs in [((), 3, {}), ((2, 3), 2, {}), ((2, 3), [1, 0, 2], {"axis": 1}), ((3, 2), [2], {"axis": 0}),
                                ((2, 3), 2, {"axis": -2}), ((0, 2), 3, {"axis": 0}), ((4,), 0, {"axis": 0})]:
        yield SampleInput([uniform(rng, shape, dtype), reps], kwargs)


def _meshgrid_samples(rng, dtype):
    for shapes, indexing, i in [([(3,), (2,)], "xy", 0), ([(3,), (2,)], "xy", 1), ([(3,), (2,), (4,)], "ij", 2),
                                ([(2,), (), (3,)], "xy", 1), ([(0,), (2,)], "ij", 1), ([(2, 2), (3,)], "ij", 0)]:
        # grid i depends on input i only
        yield SampleInput([uniform(rng, s, dtype) for s in shapes], {"indexing": indexing, "i": i}, grad_args=[i])


def _band_samples(rng, dtype):
    for shape, lower, upper in [((3, 4), 1, 0), ((4, 3), -1, 1), ((2, 3, 3), 0, 0), ((3, 3), 2, -1), ((0, 2), 0, 0)]:
        yield SampleInput([uniform(rng, shape, dtype), lower, upper])


def _np_band(x, lower, upper):
    below = np.subtract.outer(np.arange(x.shape[-2]), np.arange(x.shape[-1]))
    keep = ((lower < 0) | (below <= lower)) & ((upper < 0) | (-below <= upper))
    return np.where(keep, x, np.zeros((), x.dtype))


def _np_gather_nd(params, idx, batch_dims=0):
    if batch_dims:
        return np.stack([_np_gather_nd(p, i, batch_dims - 1) for p, i in zip(params, idx)])
    if idx.shape[-1] == 0:  # empty index rows pick the whole of params
        return np.broadcast_to(params, idx.shape[:-1] + params.shape)
    return params[tuple(np.moveaxis(idx, -1, 0))]


def _gather_nd_samples(rng, dtype):
    cases = [((5,), [[1], [4], [1]], {}), ((3, 4), [[2, 1], [0, 3], [2, 1]], {}), ((3, 4), [[1], [1], [0]], {}),
             ((3, 4), [[[0, 0]], [[2, 3]]], {}), ((3, 4), [1, 2], {}), ((3, 2), np.zeros((2, 0)), {}),
             ((3, 4), np.zeros((0, 2)), {}), ((2, 3, 4), [[1], [1]], {"batch_dims": 1}),
             ((2, 3, 4), [[[0, 3], [2, 1], [0, 3]], [[1, 1], [1, 1], [2, 0]]], {"batch_dims": 1}),
             ((2, 3, 2), np.ones((2, 3, 1)), {"batch_dims": 2})]
    for shape, idx, kwargs in cases:
        yield SampleInput([uniform(rng, shape, dtype), np.asarray(idx, np.int32)], kwargs)
    yield SampleInput([uniform(rng, (4, 2), dtype), np.asarray([[3], [0]], np.int64)])


def _np_scatter(tensor, idx, updates, how):
    out = tensor.copy()
    keys = tuple(np.moveaxis(idx, -1, 0))
    if how == "update":
        for row, u in zip(idx.reshape(-1, idx.shape[-1]), updates.reshape((-1,) + out.shape[idx.shape[-1]:])):
            out[tuple(row)] = u
    else:
        np.add.at(out, keys, updates if how == "add" else -updates)
    return out


_SCATTERS = [((5,), [[1], [3], [1]]), ((3, 4), [[2, 1], [0, 3], [2, 1]]), ((3, 2), [[2], [0]]),
             ((2, 3), [[[0, 1], [1, 2]], [[1, 0], [0, 1]]]), ((3, 2), np.zeros((0, 1)))]


def _scatter_nd_samples(rng, dtype):
    for shape, idx in _SCATTERS:
        idx = np.asarray(idx, np.int32)
        yield SampleInput([idx, uniform(rng, idx.shape[:-1] + shape[idx.shape[-1]:], dtype), list(shape)])


def _tensor_scatter_samples(unique):
    def samples(rng, dtype):
        for shape, idx in _SCATTERS:
            idx = np.asarray(idx, np.int32)
            if unique and len({tuple(r) for r in idx.reshape(-1, idx.shape[-1]).tolist()}) < idx.size // idx.shape[-1]:
                yield SampleInput([uniform(rng, shape, dtype), idx, uniform(rng, idx.shape[:-1] + shape[idx.shape[-1]:],
                                                                            dtype)], grad_args=[0])
                continue
            yield SampleInput([uniform(rng, shape, dtype), idx, uniform(rng, idx.shape[:-1] + shape[idx.shape[-1]:],
                                                                        dtype)])
    return samples


def _np_meshgrid(*xs, indexing, i):
    return np.meshgrid(*xs, indexing=indexing)[i]


rows += [
    OpInfo("roll", tf.roll, np.roll, samples=_roll_samples, op=None, order=2),
    OpInfo("repeat", tf.repeat, np.repeat, samples=_repeat_samples, op=None, order=2),
    OpInfo("meshgrid", lambda *xs, indexing, i: tf.meshgrid(*xs, indexing=indexing)[i], _np_meshgrid,
           samples=_meshgrid_samples, op=None, order=2),
    OpInfo("band_part", tf.linalg.band_part, _np_band, samples=_band_samples, op=None, order=2),
    OpInfo("ensure_shape", lambda x: tf.ensure_shape(x, [None] * x.ndim), lambda x: x, op=None),
    OpInfo("gather_nd", tf.gather_nd, _np_gather_nd, samples=_gather_nd_samples, op=None, order=2),
    OpInfo("scatter_nd", tf.scatter_nd, lambda idx, u, shape: _np_scatter(np.zeros(shape, u.dtype), idx, u, "add"),
           samples=_scatter_nd_samples, op=None, order=2),
    OpInfo("tensor_scatter_nd_add", tf.tensor_scatter_nd_add, lambda t, idx, u: _np_scatter(t, idx, u, "add"),
           samples=_tensor_scatter_samples(False), op=None, order=2),
    OpInfo("tensor_scatter_nd_sub", tf.tensor_scatter_nd_sub, lambda t, idx, u: _np_scatter(t, idx, u, "sub"),
           samples=_tensor_scatter_samples(False), op=None, order=2),
    # of repeated indices the last update wins: the others have no effect, so their gradient (zero) is
    # checked with the tensor's only (grad_args=[0]) where indices repeat
    OpInfo("tensor_scatter_nd_update", tf.tensor_scatter_nd_update, lambda t, idx, u: _np_scatter(t, idx, u, "update"),
           samples=_tensor_scatter_samples(True), op=None, order=2),
]

attach_error_inputs(rows, array_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/array_errors.py
