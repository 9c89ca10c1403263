"""Oracle rows of the ops composed in Python (tapegrad/_ops/math/aggregates.py, _ops/nn/statistics_losses.py, _ops/linalg/diag_cross.py)."""
import numpy as np

from tf_oracle.rows import Row, opinfo_domain
from tf_oracle.samples import ALL, DT, FLOAT, INT, NUMERIC, Sample, binary, fixed, random_array


def _r(rng, shape, dt, domain=(-2.0, 2.0)):
    return random_array(rng, shape, dt, domain)


def _x(shape, domain=(-2.0, 2.0), **kwargs):
    return lambda rng, dt: Sample([_r(rng, shape, dt, domain)], kwargs)


def _v(values, grad=False, **kwargs):
    """A fixed input of the case's dtype (floats only when the values are not integers)."""
    def make(rng, dt):
        a = np.array(values)
        if dt not in FLOAT and (a.dtype.kind == "f" and not np.all(np.isfinite(a) & (a == np.round(a)))):
            return None
        return Sample([a.astype(dt)], kwargs, grad=grad)
    return make


def _args(*makers, grad=True, **kwargs):
    """A sample from one maker per positional argument: (rng, dt) -> array or value."""
    return lambda rng, dt: Sample([m(rng, dt) for m in makers], kwargs, grad=grad)


def _a(shape, domain=(-2.0, 2.0), dtype=None):
    return lambda rng, dt: _r(rng, shape, dtype or dt, domain)


def _c(value):
    return lambda rng, dt: value


def _edge_float(values):
    return lambda rng, dt: Sample([np.array(values, dt)], grad=False) if dt in FLOAT else None


_NAN_INF = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.5]

MATH = [
    Row("math.softmax", fixed(("r23", _x((2, 3))), ("ax0", _x((2, 3), axis=0)), ("rank0", _x(())),
                              ("ax5", _x((2, 3), axis=5)), ("edge", _edge_float([1000.0, 0.0, -np.inf]))),
        opinfo="Softmax"),
    Row("math.log_softmax", fixed(("r23", _x((2, 3))), ("ax0", _x((2, 3), axis=0)),
                                  ("edge", _edge_float([1000.0, 0.0, -1000.0]))), opinfo="LogSoftmax"),
    Row("math.reciprocal_no_nan", fixed(("r23", _x((2, 3), opinfo_domain("math.reciprocal_no_nan"))), ("rank0", _x(())),
                                        ("empty", _x((0, 2))), ("edge", _edge_float(_NAN_INF)),
                                        ("int", _args(_a((2,), dtype="int32")))),
        opinfo="math.reciprocal_no_nan"),
    Row("math.count_nonzero", fixed(("all", _v([[0, 1], [2, 0]])), ("ax1", _v([[0, 1], [2, 0]], axis=1, keepdims=True)),
                                    ("i32", _v([1, 0, 3], dtype=DT("int32"))), ("f32", _v([1, 0, 3], dtype=DT("float32"))),
                                    ("empty", _v(np.zeros((0, 3)))), ("rank0", _v(0)), ("ax5", _v([1, 0], axis=5)),
                                    ("edge", _edge_float(_NAN_INF))), ALL, grad=False),
    Row("math.scalar_mul", fixed(("py", lambda rng, dt: Sample([2, _r(rng, (2, 3), dt)])),
                                 ("t", lambda rng, dt: Sample([np.array(3, dt), _r(rng, (3,), dt)])),
                                 ("vec", lambda rng, dt: Sample([np.array([2, 3], dt), _r(rng, (2,), dt)])),
                                 ("frac", lambda rng, dt: Sample([2.5, _r(rng, (2,), dt)]) if dt in INT else None),
                                 ("list", lambda rng, dt: Sample([2, [1, 2]])),
                                 ("empty", lambda rng, dt: Sample([2, _r(rng, (0,), dt)]))),
        NUMERIC, opinfo="math.scalar_mul"),
    Row("math.accumulate_n", fixed(("two", lambda rng, dt: Sample([[_r(rng, (2, 3), dt), _r(rng, (2, 3), dt)]])),
                                   ("one", lambda rng, dt: Sample([[_r(rng, (3,), dt)]])),
                                   ("shape", lambda rng, dt: Sample([[_r(rng, (3,), dt)]], {"shape": [3]})),
                                   ("badshape", lambda rng, dt: Sample([[_r(rng, (3,), dt)]], {"shape": [2]})),
                                   ("mismatch", lambda rng, dt: Sample([[_r(rng, (3,), dt), _r(rng, (2,), dt)]])),
                                   ("dtype", lambda rng, dt: Sample([[_r(rng, (3,), dt)]], {"tensor_dtype": DT(dt)})),
                                   ("empty", lambda rng, dt: Sample([[]]))), NUMERIC, opinfo="math.accumulate_n"),
    Row("math.invert_permutation", fixed(("p", _v([3, 4, 0, 2, 1])), ("empty", _v(np.zeros(0, int))),
                                         ("dup", _v([1, 1])), ("oob", _v([0, 5])), ("rank2", _v([[0, 1]])),
                                         ("float", lambda rng, dt: Sample([np.array([0.0, 1.0])]))), INT, grad=False),
    *[Row(f"math.{n}", fixed(("up", _v([1, 1, 2])), ("strict", _v([1, 2, 5])), ("down", _v([[1, 2], [0, 3]])),
                             ("empty", _v(np.zeros(0))), ("rank0", _v(1)), ("edge", _edge_float([1.0, np.nan, 2.0])),
                             ("inf", _edge_float([-np.inf, 0.0, np.inf])),
                             ("bool", lambda rng, dt: Sample([np.array([True, False])]))), NUMERIC, grad=False)
      for n in ("is_non_decreasing", "is_strictly_increasing")],
    Row("math.xlog1py", binary(opinfo_domain("math.xlog1py"), edges=True), FLOAT, opinfo="math.xlog1py"),
    Row("math.xlog1py", fixed(("zero", lambda rng, dt: Sample([np.array([0.0, 0.0, 1.5], dt), np.array([np.nan, -1.0, 0.5], dt)]))),
        FLOAT, variant="zero", opinfo="math.xlog1py"),
    Row("math.zero_fraction", fixed(("r", _v([0, 1, 2, 0])), ("empty", _v(np.zeros(0))), ("rank0", _v(0)),
                                    ("edge", _edge_float(_NAN_INF))), ALL, grad=False),
    Row("math.polyval", fixed(("three", lambda rng, dt: Sample([[_r(rng, (), dt), _r(rng, (), dt), _r(rng, (), dt)],
                                                                _r(rng, (2, 3), dt)])),
                              ("empty", lambda rng, dt: Sample([[], _r(rng, (2,), dt)])),
                              ("bcast", lambda rng, dt: Sample([[_r(rng, (2,), dt), _r(rng, (), dt)], _r(rng, (3, 1), dt)])),
                              ("one", lambda rng, dt: Sample([[_r(rng, (), dt)], _r(rng, (2,), dt)])),
                              ("pyfloats", lambda rng, dt: Sample([[1.5, 2.0], _r(rng, (2,), dt)]) if dt in FLOAT else None),
                              ("notlist", lambda rng, dt: Sample([_r(rng, (2,), dt), _r(rng, (2,), dt)]))),
        NUMERIC, opinfo="math.polyval"),
    Row("math.cumulative_logsumexp",
        fixed(("r", _x((5,))), ("ax1", _x((2, 4), axis=1)), ("axm1", _x((2, 3), axis=-1)),
              ("excl", _x((4,), exclusive=True)), ("rev", _x((2, 5), axis=1, reverse=True)),
              ("both", _x((6,), exclusive=True, reverse=True)), ("wide", _x((3,), (-900.0, 900.0))),
              ("empty", _x((0,))), ("rank0", _x(())), ("ax5", _x((2,), axis=5)),
              ("int", lambda rng, dt: Sample([np.array([1, 2], "int32")])),
              ("inf", _edge_float([-np.inf, 1.0, np.inf, 2.0])), ("neginf", _edge_float([-np.inf, -np.inf, 1.0])),
              ("nan", _edge_float([1.0, np.nan, 1.0])), ("tie", _edge_float([0.5, 0.5, 0.5]))),
        opinfo="math.cumulative_logsumexp"),
    *[Row(f"math.{n}",
          fixed(("r", lambda rng, dt: Sample([_r(rng, (4, 3), dt), np.array([0, 0, 2, 2], "int32")])),
                ("r1", lambda rng, dt: Sample([_r(rng, (5,), dt), np.array([1, 1, 1, 3, 3], "int64")])),
                ("exact", _args(_c(np.array([-3, 0, 7, 0, 5])), _c(np.array([0, 0, 1, 1, 1], "int32")))),
                ("empty", lambda rng, dt: Sample([_r(rng, (0, 2), dt), np.zeros(0, "int32")])),
                ("unsorted", lambda rng, dt: Sample([_r(rng, (3,), dt), np.array([1, 0, 1], "int32")])),
                ("neg", lambda rng, dt: Sample([_r(rng, (3,), dt), np.array([-1, 0, 1], "int32")])),
                ("len", lambda rng, dt: Sample([_r(rng, (3,), dt), np.array([0, 0], "int32")])),
                ("rank2ids", lambda rng, dt: Sample([_r(rng, (1, 2), dt), np.array([[0, 0]], "int32")])),
                ("rank0", lambda rng, dt: Sample([_r(rng, (), dt), np.array(0, "int32")])),
                ("floatids", lambda rng, dt: Sample([_r(rng, (2,), dt), np.array([0.0, 1.0], "float32")])),
                ("bool", lambda rng, dt: Sample([np.array([True]), np.array([0], "int32")])),
                ("edge", lambda rng, dt: Sample([np.array([np.inf, 1.0, np.nan], dt), np.array([0, 0, 1], "int32")],
                                                grad=False) if dt in FLOAT else None)),
          NUMERIC, opinfo=f"math.{n}") for n in ("segment_sum", "segment_mean")],
]


def _stats(rng, dt):
    return _r(rng, (3, 4), dt)


NN = [
    Row("nn.normalize_moments", fixed(("noshift", _args(_a(()), _a((2,)), _a((2,)), _c(None))),
                                      ("shift", _args(_a(()), _a((2,)), _a((2,)), _a((2,)))),
                                      ("zero", lambda rng, dt: Sample([np.array(0.0, dt), _r(rng, (2,), dt),
                                                                       _r(rng, (2,), dt), None], grad=False))),
        opinfo="nn.normalize_moments"),
    Row("nn.sufficient_statistics", fixed(("ax0", _args(_stats, _c([0]), _a((4,)))),
                                          ("ax01", _args(_stats, _c([0, 1]), _a(()))),
                                          ("keep", _args(_stats, _c([1]), _a((3, 1)), keepdims=True)),
                                          ("neg", _args(_stats, _c([-1, -1]), _c(0.5))),
                                          ("empty", _args(_a((0, 2)), _c([0]), _a(()))),
                                          ("ax5", _args(_stats, _c([5]), _a(()), grad=False)), ("axint", _args(_stats, _c(0), _a(()))),
                                          ("mixed", _args(_stats, _c([0]), _a((), dtype="float64")))),
        NUMERIC, opinfo="nn.sufficient_statistics"),
    Row("nn.weighted_moments", fixed(("ax0", _args(_stats, _c([0]), _a((3, 1), (0.1, 2.0)))),
                                     ("keep", _args(_stats, _c([1]), _a((4,), (0.1, 2.0)), keepdims=True)),
                                     ("int_axis", _args(_stats, _c(0), _a((3, 4), (0.1, 2.0)))),
                                     ("zero_w", lambda rng, dt: Sample([_stats(rng, dt), [0], np.zeros((3, 1), dt)])),
                                     ("pyweight", _args(_stats, _c([0, 1]), _c(2))),
                                     ("w64", _args(_stats, _c([0]), _a((3, 1), (0.1, 2.0), "float64"))),
                                     ("bad", _args(_stats, _c([0]), _a((5,))))), opinfo="nn.weighted_moments"),
    Row("nn.compute_average_loss", fixed(("r", _x((4,))), ("r2", _x((2, 3))), ("rank0", _x(())), ("empty", _x((0,))),
                                         ("w", _args(_a((3,)), sample_weight=np.array([1.0, 0.0, 2.0], "float32"))),
                                         ("wscalar", _args(_a((3,)), sample_weight=2.0)),
                                         ("gbs", _x((3,), global_batch_size=6)), ("gbs0", _x((3,), global_batch_size=0)),
                                         ("gbsneg", _x((3,), global_batch_size=-1)),
                                         ("gbsfloat", _x((3,), global_batch_size=2.5)),
                                         ("int", lambda rng, dt: Sample([np.array([1, 2], "int32")]))),
        keywords=False, opinfo="nn.compute_average_loss"),
    Row("nn.scale_regularization_loss", fixed(("r", _x(())), ("vec", _x((3,))),
                                              ("list", lambda rng, dt: Sample([[_r(rng, (), dt), _r(rng, (), dt)]])),
                                              ("int", lambda rng, dt: Sample([3]))),
        keywords=False, opinfo="nn.scale_regularization_loss"),
    Row("nn.log_poisson_loss", fixed(("r", _args(_a((2, 3), (0.0, 3.0)), _a((2, 3)))),
                                     ("full", _args(_a((2, 3), (0.0, 3.0)), _a((2, 3)), compute_full_loss=True)),
                                     ("shape", _args(_a((2,)), _a((3,)))),
                                     ("int", lambda rng, dt: Sample([np.array([0, 1]), np.array([0, 1])])),
                                     ("mixed", lambda rng, dt: Sample([[0, 1], np.array([0.0, 1.0], dt)])),
                                     ("edge", lambda rng, dt: Sample([np.array([np.inf, np.nan, -1.0, 0.5], dt),
                                                                      np.zeros(4, dt)], {"compute_full_loss": True},
                                                                     grad=False))), opinfo="nn.log_poisson_loss"),
    Row("nn.weighted_cross_entropy_with_logits",
        fixed(("r", _args(_a((2, 3), (0.0, 1.0)), _a((2, 3)), _c(2.0))),
              ("tw", _args(_a((3,), (0.0, 1.0)), _a((3,)), _a((3,), (0.5, 3.0)))),
              ("shape", _args(_a((2,)), _a((3,)), _c(2.0))),
              ("big", lambda rng, dt: Sample([np.array([0.0, 1.0], dt), np.array([-1e30, 1e30], dt), 2.0], grad=False)),
              ("int", lambda rng, dt: Sample([np.array([0, 1]), np.array([-1, 1]), 2]))),
        opinfo="nn.weighted_cross_entropy_with_logits"),
    Row("nn.crelu", fixed(("r", _x((2, 3))), ("ax0", _x((2, 3), axis=0)), ("rank0", _x(())), ("ax5", _x((2,), axis=5)),
                          ("empty", _x((0, 2)))), NUMERIC, opinfo="nn.crelu"),
    Row("nn.space_to_depth", fixed(("r", _x((2, 4, 6, 3), block_size=2)), ("b3", _x((1, 3, 6, 2), block_size=3)),
                                   ("bad", _x((1, 3, 4, 1), block_size=2)), ("b1", _x((1, 2, 2, 1), block_size=1)),
                                   ("rank3", _x((4, 4, 1), block_size=2)), ("empty", _x((0, 4, 4, 3), block_size=2)),
                                   ("nchw", _x((1, 4, 4, 4), block_size=2, data_format="NCHW")),
                                   ("badfmt", _x((1, 4, 4, 4), block_size=2, data_format="XX"))),
        ALL, opinfo="nn.space_to_depth"),
    Row("nn.depth_to_space", fixed(("r", _x((2, 2, 3, 8), block_size=2)), ("b3", _x((1, 2, 1, 18), block_size=3)),
                                   ("bad", _x((1, 2, 2, 3), block_size=2)), ("b1", _x((1, 2, 2, 4), block_size=1)),
                                   ("rank3", _x((2, 2, 4), block_size=2)), ("empty", _x((0, 2, 2, 4), block_size=2)),
                                   ("nchw", _x((1, 8, 2, 2), block_size=2, data_format="NCHW"))),
        ALL, opinfo="nn.depth_to_space"),
    *[Row(f"nn.{n}", fixed(("default", _x((2, 3, 2, 12))), ("r1", _x((1, 2, 2, 5), depth_radius=1)),
                           ("params", _x((1, 2, 1, 6), depth_radius=2, bias=2.0, alpha=0.5, beta=0.75)),
                           ("r0", _x((1, 1, 2, 3), depth_radius=0)), ("rfloat", _x((1, 1, 1, 4), depth_radius=1.7)),
                           ("rank3", _x((1, 2, 3))), ("empty", _x((0, 1, 1, 2))), ("nochan", _x((1, 1, 1, 0))),
                           ("negr", _x((1, 1, 1, 2), depth_radius=-1))), FLOAT)
      for n in ("local_response_normalization", "lrn")],
]

_SQ = lambda shape: _x(shape)  # noqa: E731


def _nan_matrix(rng, dt):
    return Sample([np.array([[np.nan, np.inf], [1.0, np.nan]], dt), np.array([1.0, 2.0], dt)], grad=False) \
        if dt in FLOAT else None


LINALG = [
    Row("linalg.diag", fixed(("v", _x((3,))), ("batch", _x((2, 3))), ("rank0", _x(())), ("empty", _x((0,))),
                             ("k1", _x((2,), k=1)), ("km2", _x((2,), k=-2)), ("rows", _x((2,), num_rows=3)),
                             ("cols", _x((2,), num_cols=4)), ("both", _x((2,), num_rows=2, num_cols=3)),
                             ("inconsistent", _x((2,), num_rows=3, num_cols=4)), ("small", _x((2,), num_rows=1)),
                             ("pad", _x((2, 2), padding_value=9)), ("padrows", _x((2,), num_rows=3, padding_value=-1)),
                             ("edge", _edge_float([np.nan, np.inf]))), ALL, opinfo="linalg.diag"),
    Row("linalg.set_diag", fixed(("tall", _args(_a((3, 2)), _a((2,)))), ("wide", _args(_a((1, 3)), _a((1,)))),
                                 ("batch", _args(_a((2, 2, 3)), _a((2, 2)))), ("bad", _args(_a((2, 2)), _a((3,)))),
                                 ("nobatch", _args(_a((2, 2, 2)), _a((2,)))), ("rank1", _args(_a((2,)), _a((1,)))),
                                 ("dtype", _args(_a((2, 2)), _a((2,), dtype="int32"))),
                                 ("empty", _args(_a((0, 3)), _a((0,)))), ("edge", _nan_matrix)),
        NUMERIC, opinfo="linalg.set_diag"),
    Row("linalg.tensor_diag", fixed(("v", _x((3,))), ("m", _x((2, 2))), ("rank0", _x(())), ("empty", _x((0,))),
                                    ("bool", lambda rng, dt: Sample([np.array([True])]))),
        NUMERIC, opinfo="linalg.tensor_diag"),
    Row("linalg.tensor_diag_part", fixed(("m", _x((3, 3))), ("r4", _x((2, 3, 2, 3))),
                                         ("rank0", _v(2)),  # TF's gradient of a rank-0 DiagPart raises
                                         ("empty", _x((0, 0))), ("rect", _x((2, 3))), ("odd", _x((2,))),
                                         ("bool", lambda rng, dt: Sample([np.eye(2, dtype=bool)])),
                                         ("edge", _edge_float([[np.nan, np.inf], [-np.inf, 2.0]]))),
        NUMERIC, opinfo="linalg.tensor_diag_part"),
    Row("linalg.normalize", fixed(("all", _x((2, 3))), ("ax1", _x((2, 3), axis=1)), ("ord1", _x((2, 3), ord=1, axis=-1)),
                                  ("inf", _x((2, 3), ord=np.inf, axis=0)), ("fro", _x((2, 3), ord="fro", axis=[0, 1])),
                                  ("mat1", _x((2, 3), ord=1, axis=[0, 1])), ("ord3", _x((3,), ord=3)),
                                  ("badord", _x((3,), ord=-1)), ("rank0", _x(())), ("empty", _x((0,))),
                                  ("ax5", _x((3,), axis=5)), ("zero", _edge_float([[3.0, 4.0], [0.0, 0.0]])),
                                  ("int", lambda rng, dt: Sample([np.array([3, 4])]))), opinfo="linalg.normalize"),
    Row("linalg.cross", fixed(("v", _args(_a((3,)), _a((3,)))), ("batch", _args(_a((2, 4, 3)), _a((2, 4, 3)))),
                              ("bcast", _args(_a((2, 3)), _a((3,)))), ("bad", _args(_a((2,)), _a((2,)))),
                              ("rank0", _args(_a(()), _a(()))), ("empty", _args(_a((0, 3)), _a((0, 3)))),
                              ("mixed", _args(_a((3,)), _a((3,), dtype="int32"))),
                              ("list", lambda rng, dt: Sample([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))),
        NUMERIC, opinfo="linalg.cross"),
]

COMPOSITES = MATH + NN + LINALG
