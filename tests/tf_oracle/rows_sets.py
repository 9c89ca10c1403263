"""Oracle rows of tf.unique(_with_counts), tf.dynamic_partition, tf.dynamic_stitch, the broadcast shape
helpers, tf.shape_n, tf.reverse_sequence, tf.unravel_index, the fixed-width histograms, the space/batch
ops, tf.saturate_cast, tf.truncatediv / truncatemod and tf.math.nextafter."""
import numpy as np

from tf_oracle.rows import Row, opinfo_domain
from tf_oracle.samples import ALL, DT, FLOAT, INT, NUMERIC, Sample, binary


def _ints(rng, shape, dtype, lo=-3, hi=4):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def _unique(rng, dtype):
    x = rng.uniform(size=10) > 0.5 if dtype == "bool" else _ints(rng, (10,), dtype)
    yield "r1", Sample([x])
    yield "i64", Sample([x], {"out_idx": DT("int64")})
    yield "empty", Sample([x[:0]])
    yield "rank2", Sample([x.reshape(2, 5)])
    yield "scalar", Sample([x[0]])
    yield "badidx", Sample([x], {"out_idx": DT("float32")})
    if dtype in FLOAT:
        yield "nan", Sample([np.array([1.0, np.nan, 2.0, np.nan, 0.0, -0.0, 1.0], dtype)])


def _partition(rng, dtype):
    d = _ints(rng, (4, 3), dtype) if dtype in INT else rng.uniform(-2, 2, (4, 3)).astype(dtype)
    yield "r43", Sample([d, np.array([1, 0, 1, 2], np.int32), 3])
    yield "parts2d", Sample([d, np.array([[1, 0, 1], [2, 0, 0], [1, 1, 1], [0, 0, 0]], np.int32), 3])
    yield "emptypart", Sample([d, np.array([0, 0, 2, 2], np.int32), 3])
    yield "one", Sample([d, np.zeros(4, np.int32), 1])
    yield "scalar", Sample([d[0, 0], np.array(1, np.int32), 2])
    yield "numtensor", Sample([d, np.array([1, 0, 1, 2], np.int32), np.array(3, np.int32)])
    yield "numfloat", Sample([d, np.array([1, 0, 1, 2], np.int32), 3.0])
    yield "outside", Sample([d, np.array([1, 0, 1, 3], np.int32), 3])
    yield "negative", Sample([d, np.array([1, 0, -1, 0], np.int32), 3])
    yield "badshape", Sample([d, np.array([1, 0, 1], np.int32), 3])
    yield "zeroparts", Sample([d, np.zeros(4, np.int32), 0])
    yield "i64parts", Sample([d, np.array([1, 0, 1, 2], np.int64), 3])


def _stitch(rng, dtype):
    r = (lambda shape: _ints(rng, shape, dtype)) if dtype in INT else \
        (lambda shape: rng.uniform(-2, 2, shape).astype(dtype))
    i = lambda values: np.array(values, np.int32)  # noqa: E731
    yield "interleave", Sample([[i([0, 2]), i([1, 3])], [r((2,)), r((2,))]])
    yield "rows", Sample([[i([[0, 4]]), i([1, 2, 3])], [r((1, 2, 3)), r((3, 3))]])
    yield "missing", Sample([[i([0, 4]), i([1])], [r((2,)), r((1,))]])
    yield "scalaridx", Sample([[i(0), i([1, 2])], [r((2,)), r((2, 2))]])
    # TF's gradient gives an overwritten slice the gradient of its row too; tapegrad's gives it none (the
    # derivative: the slice does not reach the result), so only the values are compared
    yield "repeated", Sample([[i([0, 2]), i([2, 1])], [r((2,)), r((2,))]], grad=False)
    yield "empty", Sample([[i([])], [r((0, 3))]])
    yield "badrest", Sample([[i([0, 2]), i([1])], [r((2, 2)), r((1, 3))]])
    yield "badlead", Sample([[i([0, 2]), i([1])], [r((3, 2)), r((1, 2))]])
    yield "negative", Sample([[i([0, -1])], [r((2,))]])
    yield "i64", Sample([[np.array([0, 1], np.int64)], [r((2,))]])
    yield "lengths", Sample([[i([0]), i([1])], [r((1,))]])
    yield "none", Sample([[], []])


def _broadcast_dynamic(rng, dtype):
    s = lambda values: np.array(values, dtype)  # noqa: E731
    yield "r3r2", Sample([s([2, 1, 3]), s([4, 1])])
    yield "zero", Sample([s([0, 1]), s([1, 5])])
    yield "empty", Sample([s([]), s([3])])
    yield "minus2", Sample([s([-2]), s([1])])
    yield "incompatible", Sample([s([2, 3]), s([4])])
    yield "zero5", Sample([s([0]), s([5])])
    yield "scalar", Sample([s(3), s([3])])
    yield "matrix", Sample([s([[3]]), s([3])])
    yield "floats", Sample([np.array([3.0]), np.array([3.0])])


def _broadcast_static(rng, dtype):
    # TF takes TensorShapes only (a list is an error in both); TensorShape cases: tests/ops/test_array_sets.py
    yield "lists", Sample([[2, 1], [3]])


def _shape_n(rng, dtype):
    a, b = np.zeros((2, 3), dtype), np.zeros((), dtype)
    yield "three", Sample([[a, b, np.zeros(4, dtype)]])
    yield "i64", Sample([[a]], {"out_type": DT("int64")})
    yield "float", Sample([[a]], {"out_type": DT("float32")})
    yield "tensor", Sample([a])
    yield "none", Sample([[]])


def _reverse_sequence(rng, dtype):
    x = _ints(rng, (2, 4, 3), dtype) if dtype in INT else rng.uniform(-2, 2, (2, 4, 3)).astype(dtype)
    lens = np.array([2, 3], np.int64)
    yield "seq1", Sample([x, lens], {"seq_axis": 1})
    yield "batch1", Sample([np.swapaxes(x, 0, 1).copy(), lens], {"seq_axis": 0, "batch_axis": 1})
    yield "seq2", Sample([x, lens], {"seq_axis": 2, "batch_axis": 0})
    yield "zero", Sample([x, np.array([0, 1], np.int32)], {"seq_axis": 1})
    yield "full", Sample([x, np.array([4, 4], np.int32)], {"seq_axis": 1})
    yield "noseq", Sample([x, lens])
    yield "negaxis", Sample([x, lens], {"seq_axis": -2})
    yield "toolong", Sample([x, np.array([2, 5], np.int64)], {"seq_axis": 1})
    yield "negative", Sample([x, np.array([2, -1], np.int64)], {"seq_axis": 1})
    yield "count", Sample([x, np.array([2, 3, 1], np.int64)], {"seq_axis": 1})
    yield "sameaxes", Sample([x, lens], {"seq_axis": 0, "batch_axis": 0})
    yield "floatlens", Sample([x, np.array([2.0, 3.0], np.float32)], {"seq_axis": 1})
    yield "axis3", Sample([x, lens], {"seq_axis": 3})
    yield "lens2d", Sample([x, lens.reshape(1, 2)], {"seq_axis": 1})


def _unravel(rng, dtype):
    a = lambda values: np.array(values, dtype)  # noqa: E731
    yield "vector", Sample([a([22, 41, 37]), a([7, 6])])
    yield "scalar", Sample([a(1621), a([6, 7, 8, 9])])
    yield "negative", Sample([a([-1, -7, -13, -42, -43]), a([7, 6])])
    yield "nodims", Sample([a([0]), a([])])
    yield "bound", Sample([a([42]), a([7, 6])])
    yield "matrix", Sample([a([[1, 2], [3, 4]]), a([3, 2])])
    yield "zerodim", Sample([a([0]), a([7, 0])])
    yield "negdim", Sample([a([0]), a([7, -1])])
    yield "dims2d", Sample([a([0]), a([[7, 6]])])
    yield "dimsscalar", Sample([a([0]), a(7)])
    yield "noindices", Sample([a([]), a([2, 3])])
    yield "overflow", Sample([a([5]), a([2 ** 16, 2 ** 16])])  # int32's product overflows
    yield "floats", Sample([np.array([3.0]), np.array([7.0, 6.0])])


def _histogram(rng, dtype):
    a = lambda values, dt=dtype: np.array(values, dt)  # noqa: E731
    if dtype in FLOAT:
        v = rng.uniform(-3, 3, (4, 5)).astype(dtype)
        yield "r45", Sample([v, a([-2.0, 2.0])], {"nbins": 7})
        yield "edges", Sample([a([-1.0, 0.0, 1.5, 2.0, 5.0, 15, 0.3, 4.999, np.inf, -np.inf]), a([0.0, 5.0])],
                              {"nbins": 5})
        yield "linspace", Sample([np.linspace(0, 1, 101).astype(dtype), a([0.0, 1.0])], {"nbins": 10})
        yield "nan", Sample([a([1.0, np.nan]), a([0.0, 5.0])], {"nbins": 3})
        yield "huge", Sample([a([1e30, -1e30, 3e9]), a([0.0, 5.0])], {"nbins": 2})
    else:
        yield "ints", Sample([a([1, 2, 3, 9, -4, 30]), a([0, 10])], {"nbins": 5})
        info = np.iinfo(dtype)
        yield "wrap", Sample([a([info.max, info.min]), a([info.min, info.max])], {"nbins": 4})
    v = a([1, 2, 3, 4])
    yield "i64", Sample([v, a([0, 5])], {"nbins": 3, "dtype": DT("int64")})
    yield "fdtype", Sample([v, a([0, 5])], {"nbins": 3, "dtype": DT("float32")})
    yield "nbins0", Sample([v, a([0, 5])], {"nbins": 0})
    yield "nbinsneg", Sample([v, a([0, 5])], {"nbins": -1})
    yield "nbinstensor", Sample([v, a([0, 5])], {"nbins": np.array(3, np.int32)})
    yield "nbinsfloat", Sample([v, a([0, 5])], {"nbins": 3.0})
    yield "reversed", Sample([v, a([5, 0])], {"nbins": 3})
    yield "equal", Sample([v, a([1, 1])], {"nbins": 3})
    yield "range3", Sample([v, a([0, 1, 2])], {"nbins": 3})
    yield "range2d", Sample([v, a([[0, 5]])], {"nbins": 3})
    yield "empty", Sample([v[:0], a([0, 5])], {"nbins": 3})
    yield "scalar", Sample([v[0], a([0, 5])], {"nbins": 3})


def _histogram_bins(rng, dtype):
    a = lambda values: np.array(values, dtype)  # noqa: E731
    if dtype in INT:  # TF multiplies integer values by a float: an error in both
        yield "ints", Sample([a([1, 2, 3]), a([0, 10])], {"nbins": 5})
        return
    yield "r45", Sample([rng.uniform(-3, 3, (4, 5)).astype(dtype), a([-2.0, 2.0])], {"nbins": 7})
    yield "edges", Sample([a([-1.0, 0.0, 1.5, 2.0, 5.0, 15, 0.3, 4.999, np.inf, -np.inf, np.nan]), a([0.0, 5.0])],
                          {"nbins": 5})
    yield "linspace", Sample([np.linspace(-0.3, 0.7, 101).astype(dtype), a([-0.3, 0.7])], {"nbins": 7})
    yield "dtype", Sample([a([1.0, 2.0]), a([0.0, 5.0])], {"nbins": 3, "dtype": DT("int64")})
    yield "reversed", Sample([a([1.0, 2.0]), a([5.0, 0.0])], {"nbins": 3})
    yield "equal", Sample([a([1.0, 2.0]), a([1.0, 1.0])], {"nbins": 3})
    yield "range3", Sample([a([1.0, 2.0]), a([0.0, 1.0, 2.0])], {"nbins": 3})
    yield "scalar", Sample([a(1.0), a([0.0, 5.0])], {"nbins": 3})
    yield "nbins0", Sample([a([1.0, 2.0]), a([0.0, 5.0])], {"nbins": 0})


def _space_to_batch(rng, dtype):
    x = (_ints(rng, (2, 4, 6, 3), dtype) if dtype in INT else rng.uniform(-2, 2, (2, 4, 6, 3)).astype(dtype))
    zero = [[0, 0], [0, 0]]
    yield "b23", Sample([x, [2, 3], zero])
    yield "padded", Sample([x, [2, 3], [[1, 1], [0, 3]]])
    yield "b123", Sample([x, [1, 2, 3], [[0, 0]] * 3])
    yield "noblock", Sample([x, np.zeros(0, np.int32), np.zeros((0, 2), np.int32)])
    yield "i64", Sample([x, np.array([2, 3], np.int64), np.zeros((2, 2), np.int64)])
    yield "rank2", Sample([x[:1, 0, :2, 0], [2], [[0, 0]]])
    yield "notdivisible", Sample([x, [3, 3], zero])
    yield "negpad", Sample([x, [2, 3], [[-1, 1], [0, 0]]])
    yield "block0", Sample([x, [0, 3], zero])
    yield "padshape", Sample([x, [2, 3], [[0, 0]]])
    yield "block2d", Sample([x, [[2, 3]], zero])
    yield "toomany", Sample([x, [2, 3, 1, 1], [[0, 0]] * 4])
    yield "scalarblock", Sample([x, 2, zero])
    yield "floatblock", Sample([x, np.array([2.0, 3.0]), zero])


def _batch_to_space(rng, dtype):
    x = (_ints(rng, (12, 2, 2, 3), dtype) if dtype in INT else rng.uniform(-2, 2, (12, 2, 2, 3)).astype(dtype))
    zero = [[0, 0], [0, 0]]
    yield "b23", Sample([x, [2, 3], zero])
    yield "cropped", Sample([x, [2, 3], [[1, 1], [0, 3]]])
    yield "exact", Sample([x[:6, :, :, :1], [2, 3], [[2, 2], [0, 0]]])
    yield "intblock", Sample([x[:8], 2, zero])
    yield "batch", Sample([x[:5], [2, 3], zero])
    yield "cropbig", Sample([x[:6], [2, 3], [[3, 2], [0, 0]]])
    yield "cropneg", Sample([x[:6], [2, 3], [[-1, 0], [0, 0]]])
    yield "block0", Sample([x[:6], [0, 3], zero])
    yield "cropshape", Sample([x[:6], [2, 3], [[0, 0]]])


def _saturate(rng, dtype):
    if dtype in FLOAT:
        v = np.array([3e9, -3e9, 2147483647.0, 2147483520.0, np.nan, np.inf, -np.inf, 1.7, -1.7, 1e20, -1e20], dtype)
        yield "toint32", Sample([v, DT("int32")], grad=False)
        yield "tofloat32", Sample([v, DT("float32")], grad=False)
        yield "tofloat64", Sample([v, DT("float64")], grad=False)
        yield "inrange", Sample([rng.uniform(-2, 2, (2, 3)).astype(dtype), DT("float32")])
        yield "clipped", Sample([np.array([1.5, 1e300 if dtype == "float64" else 3e38], dtype), DT("float32")])
        # float -> int64 past int64's range: TF's limit rounds to 2**63 and the cast overflows (its bug)
        yield "toint64", Sample([np.array([3e9, -3e9, 1.5, -1e18], dtype), DT("int64")], grad=False)
    else:
        v = np.array([np.iinfo(dtype).max, np.iinfo(dtype).min, 0, 5, -5], dtype)
        yield "toint32", Sample([v, DT("int32")], grad=False)
        if dtype == "int32":  # (TF's limits for int64 -> int64, float32 and float64 overflow: garbage or an error)
            yield "tofloat64", Sample([v, DT("float64")], grad=False)
            yield "tofloat32", Sample([v, DT("float32")], grad=False)
            yield "toint64", Sample([v, DT("int64")], grad=False)
    yield "tobool", Sample([np.zeros(2, dtype), DT("bool")], grad=False)


SETS = [
    Row("unique", _unique, ALL, grad=False),  # TF raises LookupError for a gradient, tapegrad gives None
    Row("unique_with_counts", _unique, ALL, grad=False),
    Row("dynamic_partition", _partition, NUMERIC, opinfo="dynamic_partition"),
    Row("dynamic_stitch", _stitch, NUMERIC, opinfo="dynamic_stitch"),
    Row("broadcast_dynamic_shape", _broadcast_dynamic, INT),
    Row("broadcast_static_shape", _broadcast_static, ("int32",)),
    Row("shape_n", _shape_n, NUMERIC),
    Row("reverse_sequence", _reverse_sequence, NUMERIC, opinfo="reverse_sequence"),
    Row("unravel_index", _unravel, INT),
    Row("histogram_fixed_width", _histogram, NUMERIC),
    Row("histogram_fixed_width_bins", _histogram_bins, NUMERIC),
    Row("space_to_batch_nd", _space_to_batch, NUMERIC, opinfo="space_to_batch_nd"),
    Row("space_to_batch", _space_to_batch, NUMERIC),
    Row("batch_to_space", _batch_to_space, NUMERIC, opinfo="batch_to_space"),
    Row("saturate_cast", _saturate, NUMERIC, opinfo="saturate_cast"),
    Row("truncatediv", binary(opinfo_domain("TruncateDiv")), NUMERIC, opinfo="TruncateDiv"),
    # TF has no gradient (LookupError), tapegrad has one
    Row("truncatemod", binary(opinfo_domain("TruncateMod")), NUMERIC, grad=False, opinfo="TruncateMod"),
    Row("math.nextafter", binary(opinfo_domain("NextAfter")), FLOAT, opinfo="NextAfter"),
]
