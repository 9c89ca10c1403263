"""tf.sparse: ops on SparseTensors (Note [SparseTensor] in _ops/composite/sparse_tensor.py).

Positions are NumPy integers; values go through tapegrad's ops (gather, scatter, segment sums), so the
gradients TF defines reach the values and the dense operands.
"""
import numpy as np

from tapegrad import dtypes as _dtypes, errors as _errors
from tapegrad._ops.array import manipulation as _array
from tapegrad._ops.array import gather_scatter as _sg
from tapegrad._ops.math import segments as _segments
from tapegrad._ops.array.creation import fill as _fill, zeros as _zeros
from tapegrad._ops.math.elementwise import exp as _exp
from tapegrad._ops.math.divide_where import where as _where
from tapegrad._ops.composite.indexed_slices import IndexedSlices as _IndexedSlices
from tapegrad._ops.composite.sparse_cross import cross, cross_hashed
from tapegrad._ops.composite.sparse_tensor import SparseTensor
from tapegrad._tensor.tensor import Tensor as _Tensor, cast as _cast, convert_to_tensor as _convert

__all__ = ["SparseTensor", "to_dense", "from_dense", "reorder", "reshape", "slice", "concat", "add", "reduce_sum",
           "reduce_max", "sparse_dense_matmul", "retain", "fill_empty_rows", "transpose", "to_indicator", "expand_dims",
           "eye", "maximum", "minimum", "softmax", "split", "segment_sum", "segment_mean", "segment_sqrt_n", "mask",
           "map_values", "reset_shape", "cross", "cross_hashed"]


def _check(sp, fn, arg="sp_input"):
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"tf.sparse.{fn}: {arg} must be a SparseTensor, got {type(sp).__name__}")
    return sp


def _parts(sp):
    """(indices [N, rank] int64, shape list) as NumPy."""
    shape = [int(d) for d in np.asarray(sp.dense_shape)]
    return np.asarray(sp.indices, np.int64).reshape(-1, len(shape)), shape


def _linear(indices, shape):
    """Row-major positions of indices in shape."""
    return np.ravel_multi_index(indices.T, shape) if len(indices) else np.zeros(0, np.int64)


def _validate(indices, shape, fn):
    """TF's checks of a canonical SparseTensor: in bounds, ordered, no repeats."""
    for i, row in enumerate(indices):
        if (row < 0).any() or (row >= shape).any():
            raise _errors.InvalidArgumentError(None, None, f"{fn}: indices[{i}] = {row.tolist()} is out of bounds: "
                                                           f"need 0 <= index < {list(shape)}")
    flat = _linear(indices, shape)
    for i in range(1, len(flat)):
        if flat[i] == flat[i - 1]:
            raise _errors.InvalidArgumentError(None, None, f"{fn}: indices[{i}] = {indices[i].tolist()} is repeated")
        if flat[i] < flat[i - 1]:
            raise _errors.InvalidArgumentError(None, None, f"{fn}: indices[{i}] = {indices[i].tolist()} is out of "
                                                           "order. Many sparse ops require sorted indices.")


def _take(values, order):
    return _array.gather(values, _convert(np.asarray(order, np.int64)))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: values at their positions, default_value (0) elsewhere."""
    sp = _check(sp_input, "to_dense")
    indices, shape = _parts(sp)
    if validate_indices:
        _validate(indices, np.asarray(shape), "SparseToDense")
    dense = _sg.scatter_nd(sp.indices, sp.values, shape)
    if default_value is None or (not isinstance(default_value, _Tensor) and default_value == 0):
        return dense
    filled = np.ones(shape, bool)
    filled[tuple(indices.T)] = False
    return _where(_convert(filled), _cast(_convert(default_value), sp.dtype), dense)


def from_dense(tensor, name=None):
    """The non-zero entries of a dense tensor, in row-major order."""
    t = _convert(tensor)
    nonzero = np.argwhere(np.asarray(t) != (b"" if t.dtype == _dtypes.string else 0)).astype(np.int64)
    return SparseTensor(nonzero, _sg.gather_nd(t, _convert(nonzero)), np.asarray(t.shape, np.int64))


def reorder(sp_input, name=None):
    """The same tensor with its entries in row-major order."""
    sp = _check(sp_input, "reorder")
    indices, shape = _parts(sp)
    order = np.argsort(_linear(indices, shape), kind="stable")
    return SparseTensor(indices[order], _take(sp.values, order), shape)


def reshape(sp_input, shape, name=None):
    """The same entries in a tensor of another shape (one dimension may be -1)."""
    sp = _check(sp_input, "reshape")
    indices, old = _parts(sp)
    new = [int(d) for d in np.asarray(shape).reshape(-1)]
    total = int(np.prod(old))
    if new.count(-1) > 1:
        raise _errors.InvalidArgumentError(None, None, f"SparseReshape: only one output dimension may be -1, got {new}")
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1]))
        if known == 0 or total % known:
            raise _errors.InvalidArgumentError(None, None, f"SparseReshape: input of {total} entries does not fit "
                                                           f"shape {new}")
        new[new.index(-1)] = total // known
    if int(np.prod(new)) != total:
        raise _errors.InvalidArgumentError(None, None, f"SparseReshape: cannot reshape a tensor of shape {old} "
                                                       f"({total} entries) into shape {new}")
    flat = _linear(indices, old)
    out = np.stack(np.unravel_index(flat, new), axis=1).astype(np.int64) if len(flat) else np.zeros((0, len(new)),
                                                                                                     np.int64)
    return SparseTensor(out, sp.values, new)


def slice(sp_input, start, size, name=None):  # noqa: A001 (TF's name)
    """The entries inside the box [start, start + size), shifted to it."""
    sp = _check(sp_input, "slice")
    indices, shape = _parts(sp)
    start, size = np.asarray(start, np.int64), np.asarray(size, np.int64)
    end = np.minimum(start + size, shape)
    keep = np.all((indices >= start) & (indices < end), axis=1) if len(indices) else np.zeros(0, bool)
    return SparseTensor(indices[keep] - start, _take(sp.values, np.flatnonzero(keep)), np.maximum(end - start, 0))


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None, concat_dim=None):
    """The SparseTensors joined along axis (the other dimensions equal, or grown to the largest with
    expand_nonconcat_dims)."""
    axis = concat_dim if concat_dim is not None else axis
    sps = [_check(s, "concat", "sp_inputs") for s in sp_inputs]
    parts = [_parts(s) for s in sps]
    rank = len(parts[0][1])
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    shapes = np.asarray([p[1] for p in parts])
    other = [d for d in range(rank) if d != axis]
    if not expand_nonconcat_dims and (shapes[:, other] != shapes[0, other]).any():
        raise _errors.InvalidArgumentError(None, None, f"SparseConcat: the shapes {shapes.tolist()} differ outside "
                                                       f"the concat dimension {axis}")
    out_shape = shapes.max(axis=0)
    out_shape[axis] = shapes[:, axis].sum()
    offsets = np.concatenate([[0], np.cumsum(shapes[:, axis])[:-1]])
    indices = [p[0] + np.eye(rank, dtype=np.int64)[axis] * off for p, off in zip(parts, offsets)]
    joined = np.concatenate(indices) if indices else np.zeros((0, rank), np.int64)
    order = np.argsort(_linear(joined, out_shape), kind="stable")
    values = _array.concat([s.values for s in sps], 0)
    return SparseTensor(joined[order], _take(values, order), out_shape)


def _merge(a, b, combine, fn):
    """(indices, combine(values of a, values of b), shape, present in both) over the union of the positions
    of two SparseTensors of one shape (a missing side is 0)."""
    ia, shape = _parts(a)
    ib, shape_b = _parts(b)
    if shape != shape_b:
        raise _errors.InvalidArgumentError(None, None, f"{fn}: operands have different shapes {shape} and {shape_b}")
    la, lb = _linear(ia, shape), _linear(ib, shape)
    union = np.union1d(la, lb)
    where_a, where_b = np.searchsorted(union, la), np.searchsorted(union, lb)
    n = len(union)
    va = _array.unsorted_segment_sum(a.values, _convert(where_a), n)
    vb = _array.unsorted_segment_sum(_cast(b.values, a.dtype), _convert(where_b), n)
    out = np.stack(np.unravel_index(union, shape), axis=1).astype(np.int64) if n else np.zeros((0, len(shape)), np.int64)
    return out, combine(va, vb), shape, np.isin(union, la) & np.isin(union, lb)


def add(a, b, threshold=0, name=None):
    """a + b: two SparseTensors give a SparseTensor (entries of magnitude below threshold dropped); a
    SparseTensor and a dense tensor give a dense tensor."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        indices, values, shape, both = _merge(a, b, lambda x, y: x + y, "SparseAdd")
        if threshold:  # TF thresholds the sums only: an entry of one operand stays
            keep = ~both | (np.abs(np.asarray(values)) >= float(np.asarray(threshold)))
            indices, values = indices[keep], _take(values, np.flatnonzero(keep))
        return SparseTensor(indices, values, shape)
    sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
    _check(sp, "add", "a")
    return to_dense(sp, validate_indices=False) + _convert(dense, dtype=sp.dtype)


def _extreme(a, b, pick, fn):
    _check(a, fn, "sp_a"), _check(b, fn, "sp_b")
    indices, values, shape, _ = _merge(a, b, pick, fn)  # a position missing on one side counts as 0 there
    return SparseTensor(indices, values, shape)


def maximum(sp_a, sp_b, name=None):
    return _extreme(sp_a, sp_b, lambda x, y: _where(x >= y, x, y), "maximum")


def minimum(sp_a, sp_b, name=None):
    return _extreme(sp_a, sp_b, lambda x, y: _where(x <= y, x, y), "minimum")


def _reduction(sp, axis, keepdims):
    indices, shape = _parts(sp)
    rank = len(shape)
    axes = list(range(rank)) if axis is None else sorted({int(a) % rank for a in np.asarray(axis).reshape(-1)})
    kept = [d for d in range(rank) if d not in axes]
    out_shape = [shape[d] for d in kept]
    segment = _linear(indices[:, kept], out_shape) if kept else np.zeros(len(indices), np.int64)
    full = [1 if d in axes else shape[d] for d in range(rank)] if keepdims else out_shape
    return segment, int(np.prod(out_shape)), full


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum over axis of the dense tensor (a dense tensor, or a SparseTensor with output_is_sparse)."""
    sp = _check(sp_input, "reduce_sum")
    segment, n, shape = _reduction(sp, axis, keepdims)
    dense = _array.reshape(_array.unsorted_segment_sum(sp.values, _convert(segment), n), shape)
    return from_dense(dense) if output_is_sparse else dense


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum over axis of the entries present (a slice with none gives 0)."""
    sp = _check(sp_input, "reduce_max")
    segment, n, shape = _reduction(sp, axis, keepdims)
    present = np.zeros(n, bool)
    present[segment] = True
    top = _segments.unsorted_segment_max(sp.values, _convert(segment), n)
    dense = _array.reshape(_where(_convert(present), top, _zeros([n], sp.dtype)), shape)
    return from_dense(dense) if output_is_sparse else dense


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """sp_a @ b with sp_a a rank-2 SparseTensor (adjoint: transposed; complex dtypes are not supported)."""
    sp = _check(sp_a, "sparse_dense_matmul", "sp_a")
    indices, shape = _parts(sp)
    if len(shape) != 2:
        raise _errors.InvalidArgumentError(None, None, f"SparseTensorDenseMatMul: sp_a must be rank 2, got {shape}")
    rows, cols = (indices[:, 1], indices[:, 0]) if adjoint_a else (indices[:, 0], indices[:, 1])
    m, k = (shape[1], shape[0]) if adjoint_a else shape
    dense = _convert(b, dtype=sp.dtype)
    if adjoint_b:
        dense = _array.transpose(dense)
    if len(dense.shape) != 2 or dense.shape[0] != k:
        raise _errors.InvalidArgumentError(None, None, f"SparseTensorDenseMatMul: cannot multiply A of shape "
                                                       f"{[m, k]} by B of shape {list(dense.shape)}")
    picked = _array.gather(dense, _convert(cols)) * _array.expand_dims(sp.values, 1)
    return _array.unsorted_segment_sum(picked, _convert(rows), m)


def retain(sp_input, to_retain):
    """The entries whose flag in to_retain is true."""
    sp = _check(sp_input, "retain")
    keep = np.flatnonzero(np.asarray(to_retain, bool))
    indices, shape = _parts(sp)
    return SparseTensor(indices[keep], _take(sp.values, keep), shape)


def fill_empty_rows(sp_input, default_value, name=None):
    """(the SparseTensor with default_value at [r, 0, ...] of every row r with no entry, the rows filled)."""
    sp = _check(sp_input, "fill_empty_rows")
    indices, shape = _parts(sp)
    empty = np.ones(shape[0], bool)
    empty[indices[:, 0]] = False
    extra = np.zeros((int(empty.sum()), len(shape)), np.int64)
    extra[:, 0] = np.flatnonzero(empty)
    joined = np.concatenate([indices, extra])
    order = np.argsort(_linear(joined, shape), kind="stable")
    fill = _fill([len(extra)], _cast(_convert(default_value), sp.dtype))
    values = _array.concat([sp.values, fill], 0)
    return SparseTensor(joined[order], _take(values, order), shape), _convert(empty)


def transpose(sp_input, perm=None, name=None):
    sp = _check(sp_input, "transpose")
    indices, shape = _parts(sp)
    perm = list(range(len(shape)))[::-1] if perm is None else [int(p) for p in np.asarray(perm)]
    return reorder(SparseTensor(indices[:, perm], sp.values, [shape[p] for p in perm]))


def to_indicator(sp_input, vocab_size, name=None):
    """A bool tensor [..., vocab_size]: true at each value (an id) of each row of the last dimension."""
    sp = _check(sp_input, "to_indicator")
    indices, shape = _parts(sp)
    ids = np.asarray(sp.values, np.int64)
    out = np.zeros(shape[:-1] + [int(vocab_size)], bool)
    out[tuple(indices[:, :-1].T) + (ids,)] = True
    return _convert(out)


def expand_dims(sp_input, axis=None, name=None):
    sp = _check(sp_input, "expand_dims")
    indices, shape = _parts(sp)
    axis = int(0 if axis is None else axis)
    axis = axis + len(shape) + 1 if axis < 0 else axis
    return SparseTensor(np.insert(indices, axis, 0, axis=1), sp.values, shape[:axis] + [1] + shape[axis:])


def eye(num_rows, num_columns=None, dtype=_dtypes.float32, name=None):
    n = int(num_rows)
    m = n if num_columns is None else int(num_columns)
    k = min(n, m)
    return SparseTensor(np.stack([np.arange(k)] * 2, axis=1), _fill([k], _cast(_convert(1), dtype)), [n, m])


def softmax(sp_input, name=None):
    """Softmax over the entries present in each row of the last dimension."""
    sp = _check(sp_input, "softmax")
    indices, shape = _parts(sp)
    rows = _linear(indices[:, :-1], shape[:-1]) if len(shape) > 1 else np.zeros(len(indices), np.int64)
    n, seg = int(np.prod(shape[:-1])), _convert(rows)
    shifted = sp.values - _array.gather(_segments.unsorted_segment_max(sp.values, seg, n), seg)
    e = _exp(shifted)
    return sp.with_values(e / _array.gather(_array.unsorted_segment_sum(e, seg, n), seg))


def split(sp_input=None, num_split=None, axis=None, name=None):
    """num_split SparseTensors along axis, the first ones one longer when it does not divide evenly."""
    sp = _check(sp_input, "split")
    shape = _parts(sp)[1]
    axis = int(axis) % len(shape)
    base, extra = divmod(shape[axis], int(num_split))
    out, start = [], 0
    for i in range(int(num_split)):
        size = base + (1 if i < extra else 0)
        begin, length = [0] * len(shape), list(shape)
        begin[axis], length[axis] = start, size
        out.append(slice(sp, begin, length))
        start += size
    return out


def _segment(data, indices, segment_ids, num_segments, scale):
    rows = _array.gather(_convert(data), _convert(indices))
    ids = np.asarray(segment_ids, np.int64)
    n = int(num_segments) if num_segments is not None else (int(ids.max()) + 1 if len(ids) else 0)
    total = _array.unsorted_segment_sum(rows, _convert(ids), n)
    if scale is None:
        return total
    counts = np.bincount(ids, minlength=n).astype(np.float64)
    factor = scale(np.maximum(counts, 1)).reshape([n] + [1] * (len(total.shape) - 1))
    return total / _cast(_convert(factor), total.dtype)


def segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Sum of data[indices[i]] over each segment id (TF's SparseSegmentSum)."""
    return _segment(data, indices, segment_ids, num_segments, None)


def segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    return _segment(data, indices, segment_ids, num_segments, lambda c: c)


def segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    return _segment(data, indices, segment_ids, num_segments, np.sqrt)


def mask(a, mask_indices, name=None):
    """The IndexedSlices a without the slices at mask_indices."""
    keep = np.flatnonzero(~np.isin(np.asarray(a.indices), np.asarray(mask_indices)))
    return _IndexedSlices(_take(a.values, keep), _take(a.indices, keep), a.dense_shape)


def map_values(op, *args, **kwargs):
    """op applied to the values of the SparseTensors among args (all with the same positions)."""
    sparse = [x for x in list(args) + list(kwargs.values()) if isinstance(x, SparseTensor)]
    if not sparse:
        raise ValueError("tf.sparse.map_values: no SparseTensor among the arguments")
    first = np.asarray(sparse[0].indices)
    for other in sparse[1:]:
        if not np.array_equal(np.asarray(other.indices), first):
            raise _errors.InvalidArgumentError(None, None, "tf.sparse.map_values: the SparseTensors' indices differ")
    unwrap = lambda x: x.values if isinstance(x, SparseTensor) else x  # noqa: E731
    return sparse[0].with_values(op(*map(unwrap, args), **{k: unwrap(v) for k, v in kwargs.items()}))


def reset_shape(sp_input, new_shape=None):
    sp = _check(sp_input, "reset_shape")
    indices, shape = _parts(sp)
    if new_shape is None:
        new_shape = (indices.max(axis=0) + 1) if len(indices) else np.zeros(len(shape), np.int64)
    new_shape = np.asarray(new_shape, np.int64)
    if len(indices) and (indices >= new_shape).any():
        raise _errors.InvalidArgumentError(None, None, f"reset_shape: new_shape {new_shape.tolist()} is smaller than "
                                                       "an index")
    return SparseTensor(indices, sp.values, new_shape)

