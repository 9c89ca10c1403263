"""Oracle rows of the array additions: roll, repeat, meshgrid, sequence_mask, linalg.band_part,
ensure_shape, gather_nd, scatter_nd and tensor_scatter_nd_{add,sub,update}."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import ALL, DT, FLOAT, NUMERIC, Sample, fixed, random_array


def _rand(rng, shape, dt):
    return random_array(rng, shape, dt)


def _i(values, dt="int32"):
    return np.asarray(values, dt)


def _roll_samples(rng, dt):
    x = _rand(rng, (3, 4), dt)
    yield "ax0", Sample([x, 1, 0])
    yield "multi", Sample([x, [1, -1], [0, -1]])
    yield "same_axis", Sample([x, [1, 2], [1, 1]])
    yield "big", Sample([x, 9, -1])
    yield "r3", Sample([_rand(rng, (2, 3, 2), dt), _i([1, 2]), _i([2, 1])])
    yield "i64", Sample([x, _i(1, "int64"), 0])
    yield "empty", Sample([_rand(rng, (0, 3), dt), 1, 0])
    yield "ax2", Sample([x, 1, 2])
    yield "mismatch", Sample([x, [1, 2], [0]])
    yield "listshift", Sample([x, [1], 0])
    yield "rank0", Sample([_rand(rng, (), dt), 1, 0])
    yield "fshift", Sample([x, 1.5, 0])


def _repeat_samples(rng, dt):
    x = _rand(rng, (3, 2), dt)
    yield "ax0", Sample([x, 2], {"axis": 0})
    yield "list", Sample([x, [1, 0, 2]], {"axis": 0})
    yield "flat", Sample([x, 2])
    yield "flatlist", Sample([_rand(rng, (2, 2), dt), [1, 2, 0, 1]])
    yield "len1", Sample([x, [2]], {"axis": 1})
    yield "axm1", Sample([x, 3], {"axis": -1})
    yield "neglist", Sample([x, [1, -1, 1]], {"axis": 0})
    yield "tensor", Sample([x, _i([2, 1, 0], "int64")], {"axis": 0})
    yield "rank0", Sample([_rand(rng, (), dt), 3])
    yield "empty", Sample([_rand(rng, (0, 2), dt), 3], {"axis": 0})
    yield "zero", Sample([x, 0], {"axis": 1})
    yield "badlen", Sample([x, [2, 1]], {"axis": 0})
    yield "neg", Sample([x, -1], {"axis": 1})
    yield "ax2", Sample([x, 2], {"axis": 2})
    yield "frep", Sample([x, 1.5], {"axis": 0})
    yield "rep2d", Sample([x, [[1, 2, 1]]], {"axis": 0})


def _meshgrid_samples(rng, dt):
    a, b, c = _rand(rng, (3,), dt), _rand(rng, (2,), dt), _rand(rng, (4,), dt)
    yield "xy", Sample([a, b])
    yield "ij", Sample([a, b], {"indexing": "ij"})
    yield "three", Sample([a, b, c])
    yield "three_ij", Sample([a, b, c], {"indexing": "ij"})
    yield "one", Sample([a])
    yield "none", Sample([])
    yield "flatten", Sample([_rand(rng, (2, 2), dt), _rand(rng, (), dt)])
    yield "empty", Sample([_rand(rng, (0,), dt), b])
    yield "badindexing", Sample([a, b], {"indexing": "xx"})
    if dt == "float32":
        yield "mixed", Sample([a, b.astype("float64")])


def _sequence_mask_samples(rng, dt):
    lengths = _i([1, 3, 0, 2])
    yield "maxlen", Sample([lengths, 5], {"dtype": DT(dt)}, grad=False)
    yield "default", Sample([lengths], {"dtype": DT(dt)}, grad=False)
    yield "r2", Sample([_i([[1, 3], [2, 0]])], {"dtype": DT(dt)}, grad=False)
    yield "scalar", Sample([_i(2), 4], {"dtype": DT(dt)}, grad=False)
    yield "short", Sample([_i([5, -1, 2]), 3], {"dtype": DT(dt)}, grad=False)
    yield "zero", Sample([lengths, 0], {"dtype": DT(dt)}, grad=False)
    yield "empty", Sample([_i([], "int32")], {"dtype": DT(dt)}, grad=False)
    yield "i64", Sample([_i([1, 3], "int64"), _i(4, "int64")], {"dtype": DT(dt)}, grad=False)
    yield "flen", Sample([np.array([1.0, 2.5], "float32"), 3], {"dtype": DT(dt)}, grad=False)
    yield "fdefault", Sample([np.array([1.0, 2.5], "float32")], {"dtype": DT(dt)}, grad=False)
    yield "negmaxlen", Sample([lengths, -1], {"dtype": DT(dt)}, grad=False)
    yield "vecmaxlen", Sample([lengths, [3]], {"dtype": DT(dt)}, grad=False)
    yield "boollen", Sample([np.array([True, False])], {"dtype": DT(dt)}, grad=False)


def _band_part_samples(rng, dt):
    x = _rand(rng, (3, 4), dt)
    yield "lower", Sample([x, 1, 0])
    yield "all", Sample([x, -1, -1])
    yield "diag", Sample([x, 0, 0])
    yield "upper", Sample([_rand(rng, (4, 3), dt), 0, -1])
    yield "edge", Sample([x, 3, 4])
    yield "batch", Sample([_rand(rng, (2, 3, 3), dt), 1, 1])
    yield "tensors", Sample([x, _i(1, "int64"), _i(0, "int64")])
    yield "empty", Sample([_rand(rng, (0, 3), dt), 0, 0])
    yield "toolow", Sample([x, 4, 0])
    yield "toohigh", Sample([x, 0, 5])
    yield "rank1", Sample([_rand(rng, (3,), dt), 0, 0])
    yield "vecwidth", Sample([x, [1], 0])
    yield "fwidth", Sample([x, 1.0, 0])
    yield "mixedwidth", Sample([x, _i(1, "int64"), _i(0)])
    if dt in FLOAT:
        yield "nan_outside", Sample([np.array([[1.0, np.nan], [np.inf, 2.0]], dt), 0, 0], grad=False)


def _ensure_shape_samples(rng, dt):
    x = _rand(rng, (3, 4), dt)
    yield "same", Sample([x, [3, 4]])
    yield "none", Sample([x, [None, 4]])
    yield "unknown", Sample([x, None])
    yield "rank0", Sample([_rand(rng, (), dt), []])
    yield "bad", Sample([x, [3, 5]])
    yield "badrank", Sample([x, [3]])
    yield "negdim", Sample([x, [-1, 4]])


def _gather_nd_samples(rng, dt):
    p = _rand(rng, (3, 4), dt)
    yield "k2", Sample([p, _i([[1, 2], [0, 0], [1, 2]])])
    yield "slices", Sample([p, _i([[2], [0]])])
    yield "r3idx", Sample([p, _i([[[1, 0]], [[2, 3]]])])
    # TF's gradient of these two is a scatter_nd its kernel refuses (rank-1 indices, empty rows): values only
    yield "row", Sample([p, _i([1, 2])], grad=False)
    yield "k0", Sample([p, np.zeros((2, 0), "int32")], grad=False)
    yield "empty", Sample([p, np.zeros((0, 2), "int32")])
    yield "i64", Sample([p, _i([[2, 3]], "int64")])
    yield "batch1", Sample([_rand(rng, (2, 3, 4), dt), _i([[1], [2]])], {"batch_dims": 1})
    yield "batch1k2", Sample([_rand(rng, (2, 3, 4), dt), _i([[[1, 1], [0, 3]], [[2, 3], [2, 3]]])], {"batch_dims": 1})
    yield "batch2", Sample([_rand(rng, (2, 3, 4), dt), _i(np.ones((2, 3, 1)))], {"batch_dims": 2})
    yield "oob", Sample([p, _i([[1, 4]])])
    yield "oob_flat", Sample([p, _i([[0, 5]])])
    yield "neg", Sample([p, _i([[0, -1]])])
    yield "batch_oob", Sample([_rand(rng, (2, 3, 4), dt), _i([[1], [3]])], {"batch_dims": 1})
    yield "toolong", Sample([p, _i([[0, 1, 1]])])
    yield "rank0idx", Sample([p, _i(1)])
    yield "scalarparams", Sample([_rand(rng, (), dt), np.zeros((0,), "int32")])
    yield "fidx", Sample([p, np.array([[0.0, 1.0]], "float32")])
    yield "negbatch", Sample([p, _i([[1]])], {"batch_dims": -1})
    yield "bigbatch", Sample([p, _i([[1]])], {"batch_dims": 2})
    yield "ignore", Sample([p, _i([[1, 5], [2, 1]])], {"bad_indices_policy": "IGNORE"})


def _scatter_nd_samples(rng, dt):
    yield "dup", Sample([_i([[1], [1], [3]]), _rand(rng, (3,), dt), [5]])
    yield "slices", Sample([_i([[2], [0]]), _rand(rng, (2, 4), dt), [3, 4]])
    yield "k2", Sample([_i([[0, 1], [2, 3], [0, 1]]), _rand(rng, (3,), dt), [3, 4]])
    yield "i64", Sample([_i([[1]], "int64"), _rand(rng, (1,), dt), [3]])
    yield "shape64", Sample([_i([[1]]), _rand(rng, (1,), dt), _i([3], "int64")])
    yield "empty", Sample([np.zeros((0, 1), "int32"), _rand(rng, (0, 2), dt), [3, 2]])
    yield "emptyshape", Sample([np.zeros((0, 1), "int32"), _rand(rng, (0, 2), dt), [0, 2]])
    yield "oob", Sample([_i([[5]]), _rand(rng, (1,), dt), [5]])
    yield "neg", Sample([_i([[-1]]), _rand(rng, (1,), dt), [5]])
    yield "badupdates", Sample([_i([[1]]), _rand(rng, (2,), dt), [3]])
    yield "rank1idx", Sample([_i([1, 2]), _rand(rng, (2,), dt), [3]])
    yield "k0", Sample([np.zeros((2, 0), "int32"), _rand(rng, (2, 3), dt), [3]])
    yield "toolong", Sample([_i([[1, 1, 1]]), _rand(rng, (1,), dt), [3, 3]])
    yield "negshape", Sample([_i([[1]]), _rand(rng, (1,), dt), [-3]])
    # TF's gradient gathers at the ignored index and raises: values only
    yield "ignore", Sample([_i([[1], [7]]), _rand(rng, (2,), dt), [3]], {"bad_indices_policy": "IGNORE"}, grad=False)


def _tensor_scatter_samples(update=False):
    def samples(rng, dt):
        t = _rand(rng, (3, 4), dt)
        yield "k2", Sample([t, _i([[0, 1], [2, 3]]), _rand(rng, (2,), dt)])
        yield "slices", Sample([t, _i([[2], [0]]), _rand(rng, (2, 4), dt)])
        yield "r1", Sample([_rand(rng, (5,), dt), _i([[4], [0], [2]]), _rand(rng, (3,), dt)])
        yield "i64", Sample([t, _i([[1, 1]], "int64"), _rand(rng, (1,), dt)])
        yield "empty", Sample([t, np.zeros((0, 2), "int32"), _rand(rng, (0,), dt)])
        # of repeated indices TF's CPU kernel keeps the last update (its gradient reaches every update:
        # the forward value is compared, the gradient is not)
        yield "dup", Sample([t, _i([[1, 1], [0, 0], [1, 1]]), _rand(rng, (3,), dt)], grad=not update)
        yield "oob", Sample([t, _i([[3, 0]]), _rand(rng, (1,), dt)])
        yield "neg", Sample([t, _i([[0, -1]]), _rand(rng, (1,), dt)])
        yield "badupdates", Sample([t, _i([[1]]), _rand(rng, (1, 2), dt)])
        yield "rank0updates", Sample([t, _i([1, 2]), _rand(rng, (), dt)])
        yield "fidx", Sample([t, np.array([[1.0]], "float32"), _rand(rng, (1, 4), dt)])
        if dt == "float32":
            yield "mixed", Sample([t, _i([[1]]), _rand(rng, (1, 4), "float64")])
    return samples


ARRAY_MORE = [
    Row("roll", _roll_samples, ALL, opinfo="roll"),
    Row("repeat", _repeat_samples, ALL, opinfo="repeat"),
    Row("meshgrid", _meshgrid_samples, ALL, opinfo="meshgrid"),
    Row("sequence_mask", _sequence_mask_samples, ALL, grad=False),
    Row("linalg.band_part", _band_part_samples, ALL, opinfo="band_part"),
    Row("ensure_shape", _ensure_shape_samples, ALL, opinfo="ensure_shape"),
    Row("gather_nd", _gather_nd_samples, ALL, opinfo="gather_nd"),
    Row("scatter_nd", _scatter_nd_samples, ALL, opinfo="scatter_nd"),
    Row("tensor_scatter_nd_add", _tensor_scatter_samples(), ALL, opinfo="tensor_scatter_nd_add"),
    Row("tensor_scatter_nd_sub", _tensor_scatter_samples(), NUMERIC, opinfo="tensor_scatter_nd_sub"),
    Row("tensor_scatter_nd_update", _tensor_scatter_samples(update=True), ALL, opinfo="tensor_scatter_nd_update"),
]
