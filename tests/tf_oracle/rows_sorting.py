"""Oracle rows of the sorting family (tf.sort, argsort, top_k, in_top_k), the float classifiers
(is_nan, is_inf, is_finite) and the random ops built on them (categorical, shuffle)."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import DT, FLOAT, INT, NUMERIC, Sample, random_array, unary


def _distinct(rng, shape, dtype):
    """Values without ties (a tie's gradient would depend on the sort's order among equals)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) - n // 2).astype(dtype) * (1 if dtype in INT else 0.37)


def _sort_samples(extra=None):
    def samples(rng, dtype):
        x = _distinct(rng, (3, 4), dtype)
        yield "r34", Sample([x])
        yield "ax0", Sample([x], {"axis": 0})
        yield "axm2", Sample([x], {"axis": -2})
        yield "desc", Sample([x], {"direction": "DESCENDING"})
        yield "r1", Sample([_distinct(rng, (7,), dtype)])
        yield "r3", Sample([_distinct(rng, (2, 3, 4), dtype)], {"axis": 1})
        yield "ties", Sample([np.array([1, 1, 0, 1, 2, 0], dtype)], grad=False)
        yield "tiesdesc", Sample([np.array([1, 1, 0, 1, 2, 0], dtype)], {"direction": "DESCENDING"}, grad=False)
        yield "empty", Sample([np.zeros((2, 0), dtype)], grad=False)  # TF's gradient of an empty sort raises
        yield "badaxis", Sample([x], {"axis": 2})
        yield "baddir", Sample([x], {"direction": "up"})
        if dtype in FLOAT:
            yield "edge_inf", Sample([np.array([np.inf, -1.0, -np.inf, 0.0, 3.0], dtype)], grad=False)
            yield "edge_zero", Sample([np.array([0.0, -0.0, 0.0, -0.0], dtype)], grad=False)
            yield "edge_nan", Sample([np.array([3.0, np.nan, 1.0, 2.0, np.nan, -np.inf], dtype)], grad=False)
        else:
            info = np.iinfo(dtype)
            yield "edge_int", Sample([np.array([0, info.max, info.min, -1, 1], dtype)])
        if extra:
            yield from extra(rng, dtype)
    return samples


def _argsort_extra(rng, dtype):
    yield "stable", Sample([np.array([3, 1, 3, 1], dtype)], {"stable": True, "direction": "DESCENDING"})


def _top_k_samples(rng, dtype):
    x = _distinct(rng, (3, 5), dtype)
    yield "k2", Sample([x], {"k": 2})
    yield "k1", Sample([x])
    yield "k0", Sample([x], {"k": 0})
    yield "kall", Sample([x], {"k": 5})
    yield "r1", Sample([_distinct(rng, (6,), dtype)], {"k": 3})
    yield "unsorted", Sample([x], {"k": 5, "sorted": True})
    yield "ties", Sample([np.array([1, 3, 3, 2], dtype)], {"k": 2}, grad=False)
    yield "index64", Sample([x], {"k": 2, "index_type": DT("int64")}, grad=False)  # TF's gradient raises here
    yield "bigk", Sample([x], {"k": 6})
    yield "negk", Sample([x], {"k": -1})
    yield "rank0", Sample([np.array(1, dtype)])
    if dtype in FLOAT:
        yield "edge_nan", Sample([np.array([3.0, np.nan, 1.0, 2.0, np.nan, -np.inf], dtype)], {"k": 3}, grad=False)
    yield "empty", Sample([np.zeros((2, 0), dtype)], {"k": 0}, grad=False)  # and here


def _in_top_k_samples(rng, dtype):
    p = rng.uniform(size=(4, 5)).astype(np.float32)
    t = np.array([0, 3, 4, 1], np.int32)
    yield "k1", Sample([t, p, 1])
    yield "k3", Sample([t, p, 3])
    yield "k0", Sample([t, p, 0])
    yield "ties", Sample([np.array([0, 1], np.int32), np.array([[0.5, 0.5], [0.8, 0.2]], np.float32), 1])
    yield "outside", Sample([np.array([-1, 2], np.int32), np.array([[0.1, 0.5], [0.3, 0.2]], np.float32), 1])
    yield "nonfinite", Sample([np.array([0, 0], np.int32), np.array([[np.nan, 0.5], [np.inf, 0.5]], np.float32), 2])
    yield "t64", Sample([t.astype(np.int64), p, 2])
    yield "f64", Sample([t, p.astype(np.float64), 2])
    yield "kw", Sample([], {"targets": t, "predictions": p, "k": 2})
    yield "nan_elsewhere", Sample([np.array([1], np.int32), np.array([[np.nan, 1.0]], np.float32), 1])
    yield "noclass", Sample([np.array([0, 0], np.int32), np.zeros((2, 0), np.float32), 1])


def _classify_samples(rng, dtype):
    yield from unary(edges=True)(rng, dtype)
    yield "int", Sample([np.array([1, 2], np.int32)])


def _categorical_samples(rng, dtype):
    logits = np.log(np.array([[0.2, 0.3, 0.5]], dtype))
    yield "stats", Sample([logits, 20000])
    yield "shape", Sample([random_array(rng, (2, 4), dtype), 5])
    yield "int32", Sample([random_array(rng, (2, 4), dtype), 3], {"dtype": DT("int32")})
    yield "zero", Sample([random_array(rng, (2, 4), dtype), 0])
    yield "nobatch", Sample([np.zeros((0, 3), dtype), 2])
    yield "forbidden", Sample([np.array([[0.0, -np.inf, -np.inf]] * 1000, dtype), 2])  # only class 0
    yield "norow", Sample([np.array([[-np.inf, -np.inf]], dtype), 3])  # TF draws num_classes
    yield "neg", Sample([random_array(rng, (2, 4), dtype), -1])
    yield "rank1", Sample([random_array(rng, (4,), dtype), 2])
    yield "noclass", Sample([np.zeros((2, 0), dtype), 2])
    yield "floatdtype", Sample([random_array(rng, (2, 4), dtype), 2], {"dtype": DT("float32")})


def _shuffle_samples(rng, dtype):
    yield "stats", Sample([random_array(rng, (1000, 3), dtype)])
    yield "r1", Sample([random_array(rng, (6,), dtype)])
    yield "scalar", Sample([random_array(rng, (), dtype)])
    yield "empty", Sample([random_array(rng, (0, 2), dtype)])


def _search_samples(rng, dtype):
    s = np.sort(random_array(rng, (2, 6), dtype), axis=-1)
    v = random_array(rng, (2, 4), dtype)
    yield "rows", Sample([s, v])
    yield "right", Sample([s, v], {"side": "right"})
    yield "ties", Sample([np.array([0, 1, 2, 2, 3], dtype), np.array([2, -1, 10, 0], dtype)], {"side": "right"})
    yield "flat", Sample([np.sort(random_array(rng, (5,), dtype)), random_array(rng, (1, 3), dtype)])
    yield "flatrows", Sample([np.sort(random_array(rng, (5,), dtype)), random_array(rng, (2, 3), dtype)])
    yield "int64", Sample([s, v], {"out_type": DT("int64")})
    yield "empty", Sample([np.zeros((2, 0), dtype), random_array(rng, (2, 3), dtype)])
    yield "baddims", Sample([s, random_array(rng, (3, 1), dtype)])
    yield "badside", Sample([s, v], {"side": "middle"})
    if dtype in FLOAT:
        yield "nan_value", Sample([np.array([1, 2, 3], dtype), np.array([np.nan, 2], dtype)])


SORTING = [
    Row("searchsorted", _search_samples, NUMERIC, grad=False),
    Row("sort", _sort_samples(), NUMERIC, opinfo="sort"),
    Row("argsort", _sort_samples(_argsort_extra), NUMERIC, grad=False),
    Row("math.top_k", _top_k_samples, NUMERIC, opinfo="top_k"),
    Row("math.in_top_k", _in_top_k_samples, ("float32",), grad=False),
    Row("math.is_nan", _classify_samples, FLOAT, grad=False),
    Row("math.is_inf", _classify_samples, FLOAT, grad=False),
    Row("math.is_finite", _classify_samples, FLOAT, grad=False),
    Row("random.categorical", _categorical_samples, FLOAT, grad=False, shape_only=True),
    Row("random.shuffle", _shuffle_samples, NUMERIC + ("bool",), grad=False, shape_only=True),
]
