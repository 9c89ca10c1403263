"""The oracle table: one row per public op, named by its path in tapegrad (TF has the same path)."""
import dataclasses
from typing import Callable, Optional

import numpy as np

from op_db import op_db
from tf_oracle.samples import (ALL, DT, FLOAT, INT, NUMERIC, Sample, binary, edge_values, fixed,
                               random_array, reduction, unary)


@dataclasses.dataclass
class Row:
    """name: public path ("math.sin"); tf_name: TF's path when it differs.
    samples(rng, dtype) -> (label, Sample) pairs; dtypes: the dtypes the op takes.
    grad: compare first-order gradients on the samples that allow it.
    signed_zeros: the sign of a zero result must agree too.
    shape_only: values differ by design (random ops): compare dtype and shape, and the statistics of 1000+ draws.
    keywords: also check name= and an unknown keyword on the first sample (not for operators).
    opinfo: the name of the op's row in the OpInfo table (tests/op_db.py): one row per op, so its random
      inputs' domain is written once, there (take it with opinfo_domain(opinfo))."""
    name: str
    samples: Callable
    dtypes: tuple = FLOAT
    tf_name: Optional[str] = None
    grad: bool = True
    signed_zeros: bool = False
    shape_only: bool = False
    rtol: Optional[float] = None
    variant: str = ""
    keywords: bool = True
    opinfo: Optional[str] = None

    @property
    def case_name(self):
        return f"{self.name}:{self.variant}" if self.variant else self.name

    @property
    def tf_path(self):
        return self.tf_name or self.name


OPINFO = {row.name: row for row in op_db}


def opinfo_domain(opinfo):
    """The random inputs' (low, high): the OpInfo row's, or the default for an op without one (None)."""
    return OPINFO[opinfo].domain if opinfo else (-2.0, 2.0)


def _u(name, opinfo, dtypes=FLOAT, **kw):
    return Row(name, unary(opinfo_domain(opinfo)), dtypes, opinfo=opinfo, **kw)


def _b(name, opinfo, dtypes=NUMERIC, **kw):
    return Row(name, binary(opinfo_domain(opinfo)), dtypes, opinfo=opinfo, **kw)


def _r(name, opinfo, dtypes=NUMERIC, **kw):
    return Row(name, reduction(), dtypes, opinfo=opinfo, **kw)


def _one(label, fn):
    return fixed((label, fn))


def _rand(rng, shape, dtype, domain=(-2.0, 2.0)):
    return random_array(rng, shape, dtype, domain)


def _floats(values, **kwargs):
    """A fixed float input (for float dtypes only), not differentiated."""
    return lambda rng, dt: Sample([np.array(values, dt)], kwargs, grad=False) if dt in FLOAT else None


def _x(shape, domain=(-2.0, 2.0), **kwargs):
    """A sample of one random input of the case's dtype (in `domain`) and the given attributes."""
    return lambda rng, dt: Sample([_rand(rng, shape, dt, domain)], kwargs)


ELEMENTWISE = [
    _u("abs", "Abs", NUMERIC, signed_zeros=True), _u("negative", "Neg", NUMERIC, signed_zeros=True),
    _u("neg", "Neg", NUMERIC, tf_name="math.negative"), _u("sign", "Sign", NUMERIC, signed_zeros=True),
    _u("square", "Square", NUMERIC), _u("exp", "Exp"), _u("expm1", "Expm1", signed_zeros=True), _u("log", "Log"),
    _u("log1p", "Log1p", signed_zeros=True), _u("sqrt", "Sqrt", signed_zeros=True), _u("rsqrt", "Rsqrt"),
    _u("reciprocal", "Reciprocal", signed_zeros=True),
    _u("sin", "Sin", signed_zeros=True), _u("cos", "Cos"), _u("tan", "Tan", signed_zeros=True),
    _u("tanh", "Tanh", signed_zeros=True), _u("sigmoid", "Sigmoid"), _u("softplus", "Softplus"),
    _u("erf", "Erf", signed_zeros=True),
    _u("floor", "Floor", signed_zeros=True, grad=False), _u("ceil", "Ceil", signed_zeros=True, grad=False),
    _u("round", "Round", signed_zeros=True, grad=False),
    _u("nn.softsign", "Softsign"), _u("math.softsign", "Softsign", tf_name="nn.softsign"),
    _u("math.log_sigmoid", None),
    _u("nn.relu", "Relu", NUMERIC), _u("nn.relu6", "Relu6", NUMERIC), _u("nn.elu", "Elu"), _u("nn.selu", "Selu"),
    _u("nn.gelu", "Gelu"), _u("nn.silu", "Silu"), _u("nn.swish", "Silu", tf_name="nn.silu"),
    _u("nn.leaky_relu", "LeakyRelu"),
    Row("nn.gelu", unary(opinfo_domain("GeluTanh"), approximate=True), FLOAT, variant="approx", opinfo="GeluTanh"),
    Row("nn.leaky_relu", unary(opinfo_domain("LeakyRelu"), alpha=0.1), FLOAT, variant="alpha", opinfo="LeakyRelu"),
    _u("logical_not", "LogicalNot", ("bool",)),
    _b("add", "Add", ALL[:-1]), _b("subtract", "Sub"), _b("multiply", "Mul", signed_zeros=True),
    _b("divide", None, FLOAT), _b("truediv", None, NUMERIC), _b("realdiv", "RealDiv", FLOAT),
    _b("maximum", "Maximum"), _b("minimum", "Minimum"), _b("squared_difference", "SquaredDifference", NUMERIC),
    _b("pow", "Pow", FLOAT), _b("pow", "Pow", INT, variant="int"),
    _b("multiply_no_nan", "MulNoNan", FLOAT), _b("math.xlogy", "Xlogy", FLOAT), _b("math.xdivy", "Xdivy", FLOAT),
    _b("math.divide_no_nan", "DivNoNan", NUMERIC), _b("floordiv", "FloorDiv", NUMERIC, grad=False),
    _b("floormod", "FloorMod", NUMERIC, grad=False),
    _b("mod", "FloorMod", NUMERIC, tf_name="math.floormod", grad=False),
    _b("equal", "Equal", ALL), _b("not_equal", "NotEqual", ALL), _b("less", "Less"), _b("less_equal", "LessEqual"),
    _b("greater", "Greater"), _b("greater_equal", "GreaterEqual"),
    _b("logical_and", "LogicalAnd", ("bool",)), _b("logical_or", "LogicalOr", ("bool",)),
    _b("logical_xor", None, ("bool",)),
]


def _axis_out_of_range_only(rng, dt):
    yield "ax5", Sample([_rand(rng, (2, 3), dt)], {"axis": 5})


REDUCTIONS = [
    _r("reduce_sum", "Sum"), _r("reduce_mean", "Mean"), _r("reduce_max", "Max"), _r("reduce_min", "Min"),
    _r("reduce_prod", "Prod"), _r("reduce_logsumexp", "reduce_logsumexp", FLOAT),
    _r("reduce_std", "reduce_std", FLOAT), _r("reduce_variance", "reduce_variance", FLOAT),
    _r("reduce_euclidean_norm", "reduce_euclidean_norm", FLOAT),
    _r("reduce_all", "All", ("bool",)), _r("reduce_any", "Any", ("bool",)),
    _r("norm", "norm", FLOAT),
    Row("argmax", fixed(("ax0", _x((2, 3), axis=0)), ("axm1", _x((2, 3), axis=-1)),
                        ("ax2", _x((2, 3), axis=2)), ("empty", _x((0, 3), axis=0)),
                        ("nan", _floats([1.0, np.nan, 3.0], axis=0)),
                        ("i32", _x((4,), output_type=DT("int32")))), NUMERIC, grad=False, opinfo="ArgMax"),
    Row("argmin", fixed(("ax0", _x((2, 3), axis=0)), ("axm1", _x((2, 3), axis=-1)),
                        ("ax2", _x((2, 3), axis=2)),
                        ("nan", _floats([1.0, np.nan, 3.0], axis=0))),
        NUMERIC, grad=False, opinfo="ArgMin"),
    Row("cumsum", fixed(("ax0", _x((2, 3), axis=0)), ("axm1", _x((2, 3), axis=-1)),
                        ("excl", _x((2, 3), axis=1, exclusive=True)), ("rev", _x((4,), reverse=True)),
                        ("both", _x((4,), exclusive=True, reverse=True)), ("ax2", _x((2, 3), axis=2)),
                        ("empty", _x((0,)))), NUMERIC, opinfo="Cumsum"),
    *[Row(f"{ns}.l2_normalize", fixed(("all", _x((2, 3))), ("ax1", _x((2, 3), axis=1)), ("axm1", _x((2, 3), axis=-1)),
                                     ("ax01", _x((2, 3), axis=[0, 1]))), FLOAT) for ns in ("math", "nn")],
    Row("nn.l2_loss", fixed(("r23", _x((2, 3))), ("rank0", _x(())), ("empty", _x((0,))),
                            ("inf", lambda rng, dt: Sample([np.array([np.inf, 1.0], dt)], grad=False))),
        FLOAT, opinfo="l2_loss"),
    Row("nn.moments", fixed(("ax0", _x((3, 4), opinfo_domain("moments_mean"), axes=[0])),
                            ("ax01", _x((3, 4), opinfo_domain("moments_mean"), axes=[0, 1])),
                            ("keep", _x((3, 4), opinfo_domain("moments_mean"), axes=[1], keepdims=True))), FLOAT,
        opinfo="moments_mean"),
    Row("math.unsorted_segment_sum",
        fixed(("r", lambda rng, dt: Sample([_rand(rng, (4, 3), dt), np.array([0, 2, 0, 1], "int32"), 3])),
              ("neg", lambda rng, dt: Sample([_rand(rng, (4,), dt), np.array([0, -1, 0, 1], "int32"), 2])),
              ("oob", lambda rng, dt: Sample([_rand(rng, (4,), dt), np.array([0, 5, 0, 1], "int32"), 2]))),
        NUMERIC, opinfo="UnsortedSegmentSum"),
]

_MATS = [("mm", (2, 3), (3, 4)), ("batch", (2, 2, 3), (2, 3, 4)), ("bcast", (2, 2, 3), (3, 4)),
         ("bad", (2, 3), (4, 2)), ("empty", (0, 3), (3, 2)), ("rank1", (3,), (3, 2))]


def _pairs(cases, **kwargs):
    def samples(rng, dt):
        for label, sa, sb in cases:
            yield label, Sample([_rand(rng, sa, dt), _rand(rng, sb, dt)], dict(kwargs))
    return samples


def _matmul_extra(rng, dt):
    yield from _pairs(_MATS)(rng, dt)
    yield "ta", Sample([_rand(rng, (3, 2), dt), _rand(rng, (3, 4), dt)], {"transpose_a": True})
    yield "tb", Sample([_rand(rng, (2, 3), dt), _rand(rng, (4, 3), dt)], {"transpose_b": True})
    yield "mixed", Sample([_rand(rng, (2, 3), dt), _rand(rng, (3, 4), "float64" if dt != "float64" else "float32")])
    if dt in FLOAT:
        yield "inf", Sample([np.array([[np.inf, 0.0]], dt), np.array([[0.0], [1.0]], dt)], grad=False)


def _sq(shape):
    return lambda rng, dt: Sample([_rand(rng, shape, dt)])


def _nan_offdiag(rng, dt):
    x = _rand(rng, (3, 3), dt)
    if dt in FLOAT:
        x[0, 1], x[2, 0] = np.nan, np.inf
    return Sample([x], grad=False)


LINALG = [
    Row("matmul", _matmul_extra, NUMERIC, opinfo="MatMul"),
    Row("linalg.matvec", _pairs([("mv", (2, 3), (3,)), ("batch", (2, 2, 3), (2, 3)), ("bad", (2, 3), (4,))]),
        FLOAT, opinfo="matvec"),
    Row("tensordot", fixed(("ax1", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), _rand(rng, (3, 4), dt), 1])),
                           ("ax0", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), _rand(rng, (3, 4), dt), 0])),
                           ("pairs", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), _rand(rng, (3, 2), dt),
                                                             [[0, 1], [1, 0]]])),
                           ("bad", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), _rand(rng, (4, 2), dt), 1]))),
        NUMERIC, opinfo="tensordot"),
    Row("einsum", fixed(("mm", lambda rng, dt: Sample(["ij,jk->ik", _rand(rng, (2, 3), dt), _rand(rng, (3, 4), dt)])),
                        ("trace", lambda rng, dt: Sample(["ii", _rand(rng, (3, 3), dt)])),
                        ("outer", lambda rng, dt: Sample(["i,j->ij", _rand(rng, (2,), dt), _rand(rng, (3,), dt)])),
                        ("sum", lambda rng, dt: Sample(["ij->", _rand(rng, (2, 3), dt)])),
                        ("ellipsis", lambda rng, dt: Sample(["...ij,...jk->...ik", _rand(rng, (2, 2, 3), dt),
                                                            _rand(rng, (2, 3, 2), dt)])),
                        ("badshape", lambda rng, dt: Sample(["ij,jk->ik", _rand(rng, (2, 3), dt),
                                                             _rand(rng, (4, 2), dt)])),
                        ("notstr", lambda rng, dt: Sample([3, _rand(rng, (2, 3), dt)]))), NUMERIC, opinfo="einsum"),
    Row("linalg.trace", fixed(("sq", _sq((3, 3))), ("rect", _sq((2, 3))), ("batch", _sq((2, 3, 3))),
                              ("nan_offdiag", _nan_offdiag), ("rank1", _sq((3,)))), NUMERIC),
    Row("linalg.diag_part", fixed(("sq", _sq((3, 3))), ("rect", _sq((2, 3))), ("batch", _sq((2, 3, 3))),
                                  ("nan_offdiag", _nan_offdiag), ("rank1", _sq((3,)))),
        NUMERIC, opinfo="linalg.diag_part"),
    Row("linalg.matrix_transpose", fixed(("m", _sq((2, 3))), ("batch", _sq((2, 3, 4))), ("rank1", _sq((3,)))), ALL),
    Row("linalg.adjoint", fixed(("m", _sq((2, 3))), ("batch", _sq((2, 3, 4)))), ALL),
    Row("linalg.global_norm",
        fixed(("two", lambda rng, dt: Sample([[_rand(rng, (2, 3), dt), _rand(rng, (4,), dt)]])),
              ("nan", lambda rng, dt: Sample([[np.array([1.0, np.nan], dt), _rand(rng, (2,), dt)]], grad=False)),
              ("inf", lambda rng, dt: Sample([[np.array([1.0, np.inf], dt)]], grad=False)),
              ("huge", lambda rng, dt: Sample([[np.array([1e20, 1e20], dt)]], grad=False))),
        FLOAT, opinfo="global_norm"),
    Row("eye", fixed(("n", lambda rng, dt: Sample([3], {"dtype": DT(dt)})),
                     ("nm", lambda rng, dt: Sample([2, 3], {"dtype": DT(dt)})),
                     ("batch", lambda rng, dt: Sample([2], {"batch_shape": [3], "dtype": DT(dt)})),
                     ("zero", lambda rng, dt: Sample([0], {"dtype": DT(dt)})),
                     ("neg", lambda rng, dt: Sample([-1], {"dtype": DT(dt)}))), NUMERIC, grad=False, opinfo="eye"),
]


def _with(shape, label_kwargs, domain=(-2.0, 2.0)):
    """One random input of `shape` (in `domain`) per (label, kwargs)."""
    return fixed(*[(label, _x(shape, domain, **kw)) for label, kw in label_kwargs])


def _list_of(shapes, **kwargs):
    return lambda rng, dt: Sample([[_rand(rng, s, dt) for s in shapes]], kwargs)


def _gather_samples(rng, dt):
    p = _rand(rng, (4, 3), dt)
    for label, idx, kw in [("ax0", [2, 0, 3], {}), ("ax1", [[1, 2], [0, 0]], {"axis": 1}),
                           ("neg", [-1], {}), ("oob", [4], {}), ("axm1", [1], {"axis": -1}),
                           ("ax2", [0], {"axis": 2}), ("empty", np.zeros((0,), "int32"), {})]:
        yield label, Sample([p, np.asarray(idx, "int32")], kw)
    yield "batch", Sample([_rand(rng, (2, 3), dt), np.array([[0, 2], [1, 1]], "int32")], {"axis": 1, "batch_dims": 1})
    yield "i64", Sample([p, np.array([1, 3], "int64")])


def _one_hot_samples(rng, dt):
    idx = np.array([0, 2, -1, 5], "int32")
    yield "default", Sample([idx, 3], grad=False)
    yield "values", Sample([idx, 4], {"on_value": 2.0, "off_value": -1.0}, grad=False)
    yield "ax0", Sample([idx, 3], {"axis": 0}, grad=False)
    yield "dtype", Sample([idx, 3], {"dtype": DT(dt)}, grad=False)
    yield "rank0", Sample([np.array(1, "int32"), 3], grad=False)
    yield "negdepth", Sample([idx, -1], grad=False)


def _boolean_mask_samples(rng, dt):
    x = _rand(rng, (3, 2), dt)
    yield "rows", Sample([x, np.array([True, False, True])])
    yield "all", Sample([x, _rand(rng, (3, 2), "bool")])
    yield "ax1", Sample([x, np.array([False, True])], {"axis": 1})
    yield "bad", Sample([x, np.array([True, False])])
    yield "none", Sample([x, np.zeros((3,), bool)])


def _where_samples(rng, dt):
    c = _rand(rng, (2, 3), "bool")
    yield "same", Sample([c, _rand(rng, (2, 3), dt), _rand(rng, (2, 3), dt)])
    yield "bcast", Sample([_rand(rng, (3,), "bool"), _rand(rng, (2, 3), dt), _rand(rng, (), dt)])
    yield "bad", Sample([c, _rand(rng, (2, 3), dt), _rand(rng, (4,), dt)])
    yield "indices", Sample([c], grad=False)


def _pad_samples(rng, dt):
    x = _rand(rng, (2, 3), dt)
    yield "const", Sample([x, [[1, 0], [0, 2]]])
    yield "value", Sample([x, [[1, 1], [1, 1]]], {"constant_values": 3})
    yield "reflect", Sample([x, [[1, 1], [2, 2]]], {"mode": "REFLECT"})
    yield "symmetric", Sample([x, [[1, 1], [2, 2]]], {"mode": "SYMMETRIC"})
    yield "neg", Sample([x, [[-1, 0], [0, 0]]])
    yield "badrank", Sample([x, [[1, 1]]])
    yield "empty", Sample([_rand(rng, (0, 2), dt), [[1, 1], [0, 0]]])


def _split_samples(rng, dt):
    x = _rand(rng, (4, 6), dt)
    yield "num", Sample([x, 2])
    yield "sizes", Sample([x, [1, 5]], {"axis": 1})
    yield "sizes_m1", Sample([x, [2, -1]], {"axis": 1})
    yield "uneven", Sample([x, 3])
    yield "badsizes", Sample([x, [1, 2]], {"axis": 1})
    yield "ax2", Sample([x, 2], {"axis": 2})


def _slice_samples(rng, dt):
    x = _rand(rng, (3, 4), dt)
    yield "basic", Sample([x, [1, 0], [2, 3]])
    yield "m1", Sample([x, [0, 1], [-1, -1]])
    yield "oob", Sample([x, [2, 0], [2, 1]])
    yield "badrank", Sample([x, [0], [1]])


def _concat_samples(rng, dt):
    r = lambda shape: _rand(rng, shape, dt, opinfo_domain("ConcatV2"))  # noqa: E731
    yield "ax0", Sample([[r((2, 3)), r((1, 3))], 0])
    yield "axm1", Sample([[r((2, 3)), r((2, 1))], -1])
    yield "one", Sample([[r((2, 3))], 0])
    yield "tensor", Sample([r((2, 3)), 0])
    yield "bad", Sample([[r((2, 3)), r((2, 2))], 0])
    yield "ax2", Sample([[r((2, 3)), r((2, 3))], 2])


def _strided_slice_samples(rng, dt):
    x = _rand(rng, (3, 4), dt, opinfo_domain("StridedSlice"))
    yield "basic", Sample([x, [0, 1], [3, 4], [1, 2]])
    yield "rev", Sample([x, [-1, 0], [-4, 4], [-1, 1]])
    yield "clamp", Sample([x, [0, 0], [10, 10]])
    yield "zero_stride", Sample([x, [0, 0], [1, 1], [0, 1]])


def _reshape_samples(rng, dt):
    x = _rand(rng, (2, 3), dt)
    yield "flat", Sample([x, [6]])
    yield "m1", Sample([x, [3, -1]])
    yield "rank0", Sample([_rand(rng, (1,), dt), []])
    yield "bad", Sample([x, [4, 2]])
    yield "two_m1", Sample([x, [-1, -1]])
    yield "empty", Sample([_rand(rng, (0, 3), dt), [3, 0, -1]])


def _range_samples(rng, dt):
    yield "limit", Sample([5], {"dtype": DT(dt)}, grad=False)
    yield "start_limit", Sample([2, 9, 3], {"dtype": DT(dt)}, grad=False)
    yield "neg", Sample([5, 0, -2], {"dtype": DT(dt)}, grad=False)
    yield "empty", Sample([3, 1], {"dtype": DT(dt)}, grad=False)
    yield "zero_delta", Sample([0, 10, 0], {"dtype": DT(dt)}, grad=False)
    if dt in FLOAT:
        yield "frac", Sample([0.5, 2.0, 0.25], {"dtype": DT(dt)}, grad=False)


ARRAY = [
    Row("reshape", _reshape_samples, ALL, opinfo="Reshape"),
    Row("transpose", fixed(("default", _x((2, 3, 4))), ("perm", _x((2, 3, 4), perm=[2, 0, 1])),
                           ("badperm", _x((2, 3), perm=[0, 0])), ("rank0", _x(())),
                           ("short", _x((2, 3), perm=[0]))), ALL, opinfo="Transpose"),
    Row("expand_dims", _with((2, 3), [("ax0", {"axis": 0}), ("axm1", {"axis": -1}), ("ax3", {"axis": 3}),
                                      ("axm4", {"axis": -4})], opinfo_domain("ExpandDims")), ALL, opinfo="ExpandDims"),
    Row("squeeze", _with((1, 3, 1), [("all", {}), ("ax0", {"axis": 0}), ("axl", {"axis": [0, 2]}),
                                     ("not1", {"axis": 1}), ("empty_axes", {"axis": []}), ("ax5", {"axis": 5})],
                         opinfo_domain("Squeeze")),
        ALL, opinfo="Squeeze"),
    Row("concat", _concat_samples, ALL, opinfo="ConcatV2"),
    Row("stack", fixed(("ax0", _list_of([(2, 3), (2, 3)])), ("ax2", _list_of([(2, 3), (2, 3)], axis=2)),
                       ("axm1", _list_of([(2,), (2,)], axis=-1)), ("bad", _list_of([(2, 3), (3, 2)])),
                       ("ax3", _list_of([(2, 3)], axis=3)), ("rank0", _list_of([(), ()]))), ALL, opinfo="stack"),
    Row("unstack", _with((2, 3), [("ax0", {}), ("ax1", {"axis": 1}), ("axm1", {"axis": -1}),
                                  ("ax2", {"axis": 2})]), ALL, opinfo="unstack"),
    Row("split", _split_samples, ALL, opinfo="split"),
    Row("tile", fixed(("m", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), [2, 1]])),
                      ("zero", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), [0, 2]])),
                      ("badlen", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), [2]])),
                      ("neg", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), [-1, 1]]))), ALL, opinfo="Tile"),
    Row("reverse", _with((2, 3), [("ax0", {"axis": [0]}), ("both", {"axis": [0, -1]}), ("ax2", {"axis": [2]}),
                                  ("none", {"axis": []})]), ALL, opinfo="reverse"),
    Row("pad", _pad_samples, ALL, opinfo="Pad"),
    Row("slice", _slice_samples, ALL, opinfo="slice"),
    Row("strided_slice", _strided_slice_samples, ALL, opinfo="StridedSlice"),
    Row("gather", _gather_samples, ALL, opinfo="GatherV2"),
    Row("one_hot", _one_hot_samples, NUMERIC, grad=False, opinfo="OneHot"),
    Row("boolean_mask", _boolean_mask_samples, ALL, opinfo="boolean_mask"),
    Row("where", _where_samples, ALL, opinfo="Select"),
    Row("broadcast_to", fixed(("ok", lambda rng, dt: Sample([_rand(rng, (3,), dt), [2, 3]])),
                              ("same", lambda rng, dt: Sample([_rand(rng, (2, 1), dt), [2, 4]])),
                              ("bad", lambda rng, dt: Sample([_rand(rng, (3,), dt), [2, 4]]))),
        ALL, opinfo="BroadcastTo"),
    Row("cast", fixed(*[(f"to_{t}", (lambda t: lambda rng, dt: Sample(
        [np.concatenate([_rand(rng, (4,), dt, opinfo_domain("Cast")), edge_values(dt)[next(iter(edge_values(dt)))]])],
        {"dtype": DT(t)}, grad=False))(t)) for t in ALL]), ALL, grad=False, opinfo="Cast"),
    Row("cast", fixed(*[(f"{lab}_{t}", (lambda lab, t: lambda rng, dt: Sample([edge_values(dt)[lab]], {"dtype": DT(t)},
                                                                              grad=False))(lab, t))
                        for lab in ["edge_nan", "edge_inf", "edge_huge", "edge_tiny"] for t in ALL]),
        FLOAT, grad=False, variant="edges", opinfo="Cast"),
    Row("cast", fixed(("f64", _x((2, 3), opinfo_domain("Cast"), dtype=DT("float64")))), ("float32",), variant="grad",
        opinfo="Cast"),
    Row("clip_by_value", fixed(("scalars", _x((2, 3), clip_value_min=-1.0, clip_value_max=1.0)),
                               ("inverted", _x((2, 3), clip_value_min=1.0, clip_value_max=-1.0)),
                               ("tensors", lambda rng, dt: Sample([_rand(rng, (2, 3), dt), _rand(rng, (3,), dt) - 1,
                                                                   _rand(rng, (3,), dt) + 3])),
                               ("nan", lambda rng, dt: Sample([np.array([np.nan, 2.0, -3.0], dt), -1.0, 1.0],
                                                              grad=False))), FLOAT),
    Row("clip_by_norm", fixed(("clip", _x((2, 3), clip_norm=1.0)), ("noclip", _x((2, 3), clip_norm=100.0)),
                              ("axes", _x((2, 3), clip_norm=1.0, axes=[1])),
                              ("zero", lambda rng, dt: Sample([np.zeros((3,), dt), 1.0])),
                              ("nan", lambda rng, dt: Sample([np.array([np.nan, 1.0], dt), 1.0], grad=False))),
        FLOAT, opinfo="clip_by_norm"),
    Row("clip_by_global_norm",
        fixed(("clip", lambda rng, dt: Sample([[_rand(rng, (2, 3), dt), _rand(rng, (3,), dt)], 1.0])),
              ("noclip", lambda rng, dt: Sample([[_rand(rng, (2, 3), dt)], 100.0])),
              ("nan", lambda rng, dt: Sample([[np.array([np.nan, 1.0], dt), _rand(rng, (2,), dt)], 1.0], grad=False)),
              ("inf", lambda rng, dt: Sample([[np.array([np.inf, 1.0], dt)], 1.0], grad=False))),
        FLOAT, opinfo="clip_by_global_norm"),
    Row("add_n", fixed(("two", _list_of([(2, 3), (2, 3)])), ("one", _list_of([(3,)])),
                       ("bad", _list_of([(2, 3), (3,)])), ("empty", lambda rng, dt: Sample([[]]))),
        NUMERIC, opinfo="add_n"),
    Row("identity", unary(), ALL),
    Row("stop_gradient", unary(edges=False), ALL),
    Row("zeros_like", unary(edges=False), ALL), Row("ones_like", unary(edges=False), ALL),
    Row("shape", unary(edges=False), ALL, grad=False), Row("size", unary(edges=False), ALL, grad=False),
    Row("rank", unary(edges=False), ALL, grad=False),
    Row("is_tensor", unary(edges=False), ALL, grad=False),
    Row("convert_to_tensor", unary(), ALL),
    Row("constant", fixed(("list", lambda rng, dt: Sample([[1, 2, 3]], {"dtype": DT(dt)}, grad=False)),
                          ("scalar", lambda rng, dt: Sample([3.7], {"dtype": DT(dt)}, grad=False)),
                          ("shape", lambda rng, dt: Sample([2], {"dtype": DT(dt), "shape": [2, 3]}, grad=False)),
                          ("ragged", lambda rng, dt: Sample([[[1, 2], [3]]], {"dtype": DT(dt)}, grad=False)),
                          ("huge", lambda rng, dt: Sample([2 ** 40], {"dtype": DT(dt)}, grad=False)),
                          ("badshape", lambda rng, dt: Sample([[1, 2, 3]], {"dtype": DT(dt), "shape": [2, 2]},
                                                              grad=False))), ALL, grad=False),
    Row("zeros", fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
                       ("empty", lambda rng, dt: Sample([[0, 3]], {"dtype": DT(dt)})),
                       ("neg", lambda rng, dt: Sample([[-1, 3]], {"dtype": DT(dt)}))), ALL, grad=False),
    Row("ones", fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
                      ("rank0", lambda rng, dt: Sample([[]], {"dtype": DT(dt)})),
                      ("neg", lambda rng, dt: Sample([[-1, 3]], {"dtype": DT(dt)}))), ALL, grad=False),
    Row("fill", fixed(("shape", lambda rng, dt: Sample([[2, 3], _rand(rng, (), dt)])),
                      ("neg", lambda rng, dt: Sample([[-1, 3], _rand(rng, (), dt)])),
                      ("nonscalar", lambda rng, dt: Sample([[2], _rand(rng, (2,), dt)]))), ALL),
    Row("range", _range_samples, NUMERIC, grad=False, opinfo="Range"),
    Row("linspace", fixed(("five", lambda rng, dt: Sample([np.array(0.0, dt), np.array(1.0, dt), 5])),
                          ("one", lambda rng, dt: Sample([np.array(2.0, dt), np.array(3.0, dt), 1])),
                          ("zero", lambda rng, dt: Sample([np.array(2.0, dt), np.array(3.0, dt), 0])),
                          ("vec", lambda rng, dt: Sample([_rand(rng, (2,), dt), _rand(rng, (2,), dt), 3]))),
        FLOAT, opinfo="linspace"),
]


def _labels_logits(rng, dt, shape=(3, 4)):
    p = rng.uniform(0.1, 1.0, size=shape)
    return (p / p.sum(-1, keepdims=True)).astype(dt), _rand(rng, shape, dt, (-3.0, 3.0))


def _softmax_samples(rng, dt):
    yield "r23", Sample([_rand(rng, (2, 3), dt)])
    yield "ax0", Sample([_rand(rng, (2, 3), dt)], {"axis": 0})
    yield "ax2", Sample([_rand(rng, (2, 3), dt)], {"axis": 2})
    yield "rank0", Sample([_rand(rng, (), dt)])
    yield "empty", Sample([_rand(rng, (0, 3), dt)])
    if dt in FLOAT:
        yield "inf", Sample([np.array([[np.inf, 1.0, 0.0], [-np.inf, 1.0, 0.0]], dt)], grad=False)
    yield "nan", Sample([np.array([[np.nan, 1.0, 0.0]], dt)], grad=False)
    yield "huge", Sample([np.array([[1e30, -1e30, 0.0]], dt)], grad=False)


def _sce_samples(rng, dt):
    lab, log = _labels_logits(rng, dt)
    yield "r", Sample([], {"labels": lab, "logits": log})
    yield "ax0", Sample([], {"labels": lab.T.copy(), "logits": log.T.copy(), "axis": 0})
    yield "axnone", Sample([], {"labels": lab, "logits": log, "axis": None})
    yield "bad", Sample([], {"labels": lab[:, :2].copy(), "logits": log})
    yield "inf", Sample([], {"labels": lab[:1], "logits": np.array([[np.inf, 0, 0, 0]], dt)}, grad=False)


def _sparse_sce_samples(rng, dt):
    log = _rand(rng, (3, 4), dt)
    yield "r", Sample([], {"labels": np.array([0, 3, 1], "int32"), "logits": log})
    yield "i64", Sample([], {"labels": np.array([0, 3, 1], "int64"), "logits": log})
    yield "oob", Sample([], {"labels": np.array([0, 4, 1], "int32"), "logits": log})
    yield "neg", Sample([], {"labels": np.array([0, -1, 1], "int32"), "logits": log})
    yield "badrank", Sample([], {"labels": np.array([[0, 1, 1]], "int32"), "logits": log})


def _sigmoid_ce_samples(rng, dt):
    logits = opinfo_domain("SigmoidCrossEntropyWithLogits")  # (labels are probabilities, in [0, 1])
    yield "r", Sample([], {"labels": _rand(rng, (2, 3), dt, (0, 1)), "logits": _rand(rng, (2, 3), dt, logits)})
    yield "huge", Sample([], {"labels": np.array([0.0, 1.0, 1.0], dt), "logits": np.array([1e30, -1e30, 100.0], dt)},
                         grad=False)
    yield "bad", Sample([], {"labels": _rand(rng, (2, 3), dt), "logits": _rand(rng, (3,), dt)})


def _embedding_samples(rng, dt):
    params = _rand(rng, (5, 3), dt)
    yield "ids2d", Sample([params, np.array([[0, 4], [2, 2]], "int32")])
    yield "scalar", Sample([_rand(rng, (4, 3, 2), dt), np.array(3, "int64")])
    yield "empty", Sample([params, np.zeros((0,), "int32")])
    yield "oob", Sample([params, np.array([1, 5], "int32")])
    yield "neg", Sample([params, np.array([-1], "int32")])


def _embedding_max_norm_samples(rng, dt):
    params = _rand(rng, (4, 3), dt) * np.array([[1.0], [3.0], [0.1], [2.0]], dt)
    yield "rows", Sample([params, np.array([0, 1, 2, 3, 1], "int32")], {"max_norm": 1.0})
    yield "ids2d", Sample([params, np.array([[1], [3]], "int32")], {"max_norm": 1.0})
    yield "scalar", Sample([_rand(rng, (4, 3, 2), dt), np.array(2, "int32")], {"max_norm": 1.0})
    yield "zero_row", Sample([np.zeros((2, 3), dt), np.array([0, 1], "int32")], {"max_norm": 1.0})


def _batch_norm_samples(rng, dt):
    x, c = _rand(rng, (4, 3), dt), lambda shape: _rand(rng, shape, dt)
    var = lambda shape: _rand(rng, shape, dt, (0.5, 2.0))  # noqa: E731
    yield "full", Sample([x, c((3,)), var((3,)), c((3,)), c((3,)), 1e-3])
    yield "none", Sample([x, c((3,)), var((3,)), None, None, 1e-3])
    yield "scalar", Sample([x, c(()), var(()), c(()), None, 0.0])
    yield "bad", Sample([x, c((2,)), var((3,)), None, None, 1e-3])


NN = [
    Row("nn.softmax", _softmax_samples, opinfo="Softmax"), Row("nn.log_softmax", _softmax_samples, opinfo="LogSoftmax"),
    Row("nn.softmax_cross_entropy_with_logits", _sce_samples, opinfo="softmax_cross_entropy_with_logits"),
    Row("nn.sparse_softmax_cross_entropy_with_logits", _sparse_sce_samples,
        opinfo="SparseSoftmaxCrossEntropyWithLogits"),
    Row("nn.sigmoid_cross_entropy_with_logits", _sigmoid_ce_samples, opinfo="SigmoidCrossEntropyWithLogits"),
    Row("nn.dropout", fixed(("half", _x((4, 5), rate=0.5)), ("zero", _x((4, 5), rate=0.0)),
                            ("bad", _x((4, 5), rate=1.5)),
                            ("stats", lambda rng, dt: Sample([np.ones((100, 100), dt)], {"rate": 0.3}))),
        FLOAT, grad=False, shape_only=True, opinfo="dropout"),
    Row("random.normal", fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
                               ("neg", lambda rng, dt: Sample([[-1]], {"dtype": DT(dt)})),
                               ("stats", lambda rng, dt: Sample([[20000]], {"mean": 2.0, "stddev": 3.0,
                                                                            "dtype": DT(dt)}))), FLOAT, grad=False,
        shape_only=True),
    Row("random.uniform", fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
                                ("minmax", lambda rng, dt: Sample([[4]], {"minval": 2, "maxval": 9, "dtype": DT(dt)})),
                                ("empty", lambda rng, dt: Sample([[0, 2]], {"dtype": DT(dt)})),
                                ("stats", lambda rng, dt: Sample([[20000]], {"minval": -3, "maxval": 9,
                                                                             "dtype": DT(dt)}))), NUMERIC, grad=False,
        shape_only=True),
    Row("nn.embedding_lookup", _embedding_samples, ALL, opinfo="embedding_lookup"),
    Row("nn.embedding_lookup", _embedding_max_norm_samples, FLOAT, variant="max_norm", opinfo="embedding_lookup"),
    Row("nn.batch_normalization", _batch_norm_samples, opinfo="batch_normalization"),
]


def _conv_samples(rng, dt):
    x, w = _rand(rng, (2, 6, 5, 3), dt), _rand(rng, (3, 2, 3, 4), dt)
    yield "valid", Sample([x, w], {"strides": 1, "padding": "VALID"})
    yield "same_s2", Sample([x, w], {"strides": [2, 2], "padding": "SAME"})
    yield "dilated", Sample([x, w], {"strides": [1, 1, 1, 1], "padding": "SAME", "dilations": 2})
    yield "explicit", Sample([x, w], {"strides": 2, "padding": [[0, 0], [1, 2], [0, 1], [0, 0]]})
    yield "empty", Sample([x[:0], w], {"strides": 1, "padding": "SAME"})
    yield "depth", Sample([x, w[:, :, :2]], {"strides": 1, "padding": "SAME"})
    yield "negative", Sample([x[:, :1, :1], w], {"strides": 1, "padding": "VALID"})
    yield "lower", Sample([x, w], {"strides": 1, "padding": "same"})
    yield "batchstride", Sample([x, w], {"strides": [2, 1, 1, 1], "padding": "SAME"})


def _conv1d_samples(rng, dt):
    x, w = _rand(rng, (2, 7, 3), dt), _rand(rng, (3, 3, 2), dt)
    yield "same", Sample([x, w], {"stride": 1, "padding": "SAME"})
    yield "valid_s2", Sample([x, w], {"stride": 2, "padding": "VALID"})
    yield "bad", Sample([x, w[:, :2]], {"stride": 1, "padding": "SAME"})


def _conv_transpose_samples(rng, dt):
    domain = opinfo_domain("Conv2DBackpropInput")
    x, w = _rand(rng, (2, 3, 3, 4), dt, domain), _rand(rng, (3, 3, 2, 4), dt, domain)
    yield "same_s2", Sample([x, w, [2, 6, 6, 2]], {"strides": 2, "padding": "SAME"})
    yield "same_odd", Sample([x, w, [2, 5, 5, 2]], {"strides": 2, "padding": "SAME"})
    yield "valid", Sample([x, w, [2, 5, 5, 2]], {"strides": 1, "padding": "VALID"})


def _depthwise_samples(rng, dt):
    x, w = _rand(rng, (2, 6, 5, 3), dt), _rand(rng, (3, 3, 3, 2), dt)
    yield "same", Sample([x, w], {"strides": [1, 1, 1, 1], "padding": "SAME"})
    yield "valid_s2", Sample([x, w], {"strides": [1, 2, 2, 1], "padding": "VALID"})
    yield "bad", Sample([x, w[:, :, :2]], {"strides": [1, 1, 1, 1], "padding": "SAME"})


def _pool_samples(rank):
    def samples(rng, dt):
        shape = (2, 6, 5, 3) if rank == 4 else (2, 7, 3)
        x = (rng.permutation(int(np.prod(shape))).reshape(shape) * 0.01).astype(dt)  # no ties
        yield "valid", Sample([x], {"ksize": 2, "strides": 2, "padding": "VALID"})
        yield "same", Sample([x], {"ksize": 3, "strides": 2, "padding": "SAME"})
        yield "overlap", Sample([x], {"ksize": [2] * (rank - 2), "strides": 1, "padding": "SAME"})
        yield "negative", Sample([x], {"ksize": 9, "strides": 1, "padding": "VALID"})
    return samples


CONV = [
    Row("nn.conv2d", _conv_samples, opinfo="Conv2D"), Row("nn.conv1d", _conv1d_samples),
    Row("nn.convolution", fixed(("r4", lambda rng, dt: Sample([_rand(rng, (1, 5, 5, 2), dt), _rand(rng, (2, 2, 2, 3), dt)],
                                                             {"padding": "SAME"})))),
    Row("nn.conv2d_transpose", _conv_transpose_samples, opinfo="Conv2DBackpropInput"),
    Row("nn.conv1d_transpose", fixed(("s2", lambda rng, dt: Sample(
        [_rand(rng, (2, 4, 3), dt), _rand(rng, (3, 2, 3), dt), [2, 8, 2]], {"strides": 2, "padding": "SAME"})))),
    Row("nn.conv_transpose", fixed(("r4", lambda rng, dt: Sample(
        [_rand(rng, (1, 3, 3, 3), dt), _rand(rng, (2, 2, 2, 3), dt), [1, 6, 6, 2]], {"strides": 2})))),
    Row("nn.depthwise_conv2d", _depthwise_samples, opinfo="DepthwiseConv2dNative"),
    Row("nn.separable_conv2d", fixed(("same", lambda rng, dt: Sample(
        [_rand(rng, (2, 5, 5, 3), dt), _rand(rng, (3, 3, 3, 2), dt), _rand(rng, (1, 1, 6, 4), dt)],
        {"strides": [1, 1, 1, 1], "padding": "SAME"})))),
    Row("nn.max_pool2d", _pool_samples(4), opinfo="MaxPool"), Row("nn.avg_pool2d", _pool_samples(4), opinfo="AvgPool"),
    Row("nn.max_pool1d", _pool_samples(3)), Row("nn.avg_pool1d", _pool_samples(3)),
    Row("nn.max_pool", _pool_samples(4)), Row("nn.avg_pool", _pool_samples(3)),
    Row("nn.bias_add", fixed(
        ("nhwc", lambda rng, dt: Sample([_rand(rng, (2, 3, 4), dt), _rand(rng, (4,), dt)])),
        ("nchw", lambda rng, dt: Sample([_rand(rng, (2, 3, 4, 2), dt), _rand(rng, (3,), dt)], {"data_format": "NCHW"})),
        ("rank1", lambda rng, dt: Sample([_rand(rng, (4,), dt), _rand(rng, (4,), dt)])),
        ("badbias", lambda rng, dt: Sample([_rand(rng, (2, 4), dt), _rand(rng, (3,), dt)])),
        ("bias2d", lambda rng, dt: Sample([_rand(rng, (2, 4), dt), _rand(rng, (1, 4), dt)]))), opinfo="bias_add"),
]


def _operator(domain=(-2.0, 2.0)):
    """Tensor operators: tensor with tensor, and with Python numbers (TF's dtype rules for those)."""
    def samples(rng, dt):
        r = lambda shape: random_array(rng, shape, dt, domain)
        y = r((2, 3))
        yield "same", Sample([r((2, 3)), np.where(y == 0, 1, y).astype(y.dtype)])
        yield "pyint", Sample([r((2, 3)), 3])
        yield "pyfloat", Sample([r((3,)), 1.5])
        yield "badshape", Sample([r((2, 3)), r((4,))])
    return samples


def _unary_operator(rng, dt):
    yield "r23", Sample([_rand(rng, (2, 3), dt)])


_KEYS = [("int", 1), ("neg", -2), ("oob", 3), ("slice", slice(1, None)), ("step", slice(None, None, -2)),
         ("tuple", (1, 2)), ("list", [0, 1]), ("newaxis", (None, 0)), ("ellipsis", (Ellipsis, 1)),
         ("toomany", (0, 0, 0)), ("float", 1.5)]


def _getitem(rng, dt):
    x = _rand(rng, (3, 4), dt, opinfo_domain("StridedSlice"))
    for label, key in _KEYS:
        yield label, Sample([x, key])
    yield "mask", Sample([x, _rand(rng, (3, 4), "bool")])
    yield "itensor", Sample([x, np.array(1, "int32")])


# Tensor's operators are methods, not public callables: their rows are checked, not required
OPERATORS = [Row(f"Tensor.{op}", _operator(), NUMERIC)
             for op in ["__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
                        "__rtruediv__", "__lt__", "__ge__", "__eq__", "__ne__"]] + [
    Row("Tensor.__floordiv__", _operator(), NUMERIC, grad=False),
    Row("Tensor.__mod__", _operator(), NUMERIC, grad=False),
    Row("Tensor.__pow__", _operator(opinfo_domain("Pow")), FLOAT, opinfo="Pow"),
    Row("Tensor.__matmul__", _pairs([("mm", (2, 3), (3, 4)), ("bad", (2, 3), (2, 3))]), NUMERIC),
    Row("Tensor.__neg__", _unary_operator, NUMERIC), Row("Tensor.__abs__", _unary_operator, NUMERIC),
    Row("Tensor.__and__", _operator(), ("bool",)), Row("Tensor.__or__", _operator(), ("bool",)),
    Row("Tensor.__invert__", _unary_operator, ("bool",)),
    Row("Tensor.__getitem__", _getitem, ALL, opinfo="StridedSlice"),
]
for _row in OPERATORS:
    _row.keywords = False

ROWS = ELEMENTWISE + REDUCTIONS + LINALG + ARRAY + NN + CONV + OPERATORS
from tf_oracle.rows_sorting import SORTING  # noqa: E402  (its rows use Row, defined above)
ROWS += SORTING
from tf_oracle.rows_matrix import MATRIX  # noqa: E402
ROWS += MATRIX
from tf_oracle.rows_math import MATH  # noqa: E402
ROWS += MATH
# ---- array additions
from tf_oracle.rows_array_more import ARRAY_MORE  # noqa: E402
ROWS += ARRAY_MORE
from tf_oracle.rows_composites import COMPOSITES  # noqa: E402
ROWS += COMPOSITES
from tf_oracle.rows_segments import SEGMENTS  # noqa: E402
ROWS += SEGMENTS
from tf_oracle.rows_extra import EXTRA  # noqa: E402
ROWS += EXTRA
from tf_oracle.rows_sets import SETS  # noqa: E402
ROWS += SETS

MODULES = ["", "math", "nn", "linalg", "random"]  # the public namespaces the table must cover

# Public callables with no oracle row: not ops, or exercised where their semantics are.
EXCLUDED = {
    **dict.fromkeys(["get_logger", "control_dependencies", "group", "no_op", "init_scope", "constant_initializer",
                     "ones_initializer", "zeros_initializer", "random_normal_initializer", "random_uniform_initializer"],
                    "not an op: a logger, graph helpers or initializer classes (tests/ops/test_utilities.py)"),
    **dict.fromkeys(["Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"],
                    "an assertion: raises or returns None "
                    "(tests/ops/test_asserts.py, tests/oracle/test_tf_oracle_asserts.py)"),
    **dict.fromkeys(["py_function", "numpy_function", "identity_n", "get_static_value", "no_gradient",
                     "executing_eagerly"], "runs Python or answers about the graph, no op to compare "
                                           "(tests/function/test_py_function.py)"),
    "linalg.eigh": "eigenvector signs are a convention: each of tapegrad's has its largest component positive, TF "
                   "keeps its solver's; the eigenvalues are compared through linalg.eigvalsh, the vectors and "
                   "gradients in tests/ops/test_matrix_ops.py and the op table",
    "device": "a placement context manager: every op runs on the CPU (tests/ops/test_config.py)",
    "DType": "a dtype class, not an op (tests/ops/test_tensor.py)",
    "as_dtype": "a dtype lookup, not an op (tests/ops/test_tensor.py)",
    "Tensor": "the tensor class; its operators are the ops' rows "
              "(tests/ops/test_tensor.py, tests/ops/test_indexing.py)",
    "TensorShape": "a shape class, not an op (tests/ops/test_tensor.py)",
    "TensorSpec": "a signature class for function (tests/function/test_function.py)",
    **dict.fromkeys(["RaggedTensor", "RaggedTensorSpec"], "a composite tensor type, not an op (tests/ops/test_ragged.py; "
                    "tests/oracle/test_tf_oracle_ragged.py checks tf.ragged against TF)"),
    **dict.fromkeys(["SparseTensor", "SparseTensorSpec"], "a composite tensor type, not an op (tests/ops/test_sparse.py; "
                    "tests/oracle/test_tf_oracle_sparse.py checks tf.sparse against TF)"),
    **dict.fromkeys(["IndexedSlices", "IndexedSlicesSpec"], "a gather's gradient, not an op (tests/autodiff/"
                    "test_indexed_slices.py; tests/oracle/test_tf_oracle_indexed_slices.py checks it against TF)"),
    "Variable": "state, not an op (tests/autodiff/test_tape.py, tests/keras/test_keras_optimizers.py)",
    "TensorArray": "a container class, not an op (tests/function/test_tensor_array.py)",
    "GradientTape": "the tape itself: every gradient case here goes through it",
    "UnconnectedGradients": "an enum of tape.gradient (tests/autodiff/test_tape.py)",
    "gradients": "differentiates a traced function's values, only inside tf.function "
                 "(tests/autodiff/test_gradients_fn.py, tests/oracle/test_tf_oracle_ema_gradients.py)",
    "RegisterGradient": "replaces gradient rules (tests/autodiff/test_register_gradient.py)",
    "custom_gradient": "a decorator taking Python functions (tests/autodiff/test_custom_gradient.py)",
    "recompute_grad": "a decorator taking Python functions (tests/autodiff/test_recompute.py)",
    "function": "traces Python functions (tests/function/test_function*.py)",
    "cond": "control flow taking Python callables (tests/function/test_control_flow.py)",
    "while_loop": "control flow taking Python callables (tests/function/test_control_flow.py)",
    "case": "control flow taking Python callables (tests/function/test_control_flow.py)",
    "switch_case": "control flow taking Python callables (tests/function/test_control_flow.py)",
    "map_fn": "takes a Python callable "
              "(tests/function/test_functional_ops.py, tests/oracle/test_tf_oracle_functional.py)",
    "scan": "takes a Python callable "
            "(tests/function/test_functional_ops.py, tests/oracle/test_tf_oracle_functional.py)",
    "foldl": "takes a Python callable "
             "(tests/function/test_functional_ops.py, tests/oracle/test_tf_oracle_functional.py)",
    "foldr": "takes a Python callable "
             "(tests/function/test_functional_ops.py, tests/oracle/test_tf_oracle_functional.py)",
    "vectorized_map": "takes a Python callable "
                      "(tests/function/test_functional_ops.py, tests/oracle/test_tf_oracle_functional.py)",
    "print": "writes to a stream, returns nothing to compare",
    "random.set_seed": "seeds the global generator; random values are compared by shape and dtype only",
    "random.get_global_generator": "the generator object behind random.normal/uniform",
    "inside_function": "takes no tensor; checked against TF inside and outside traces "
                       "(tests/keras/test_keras_public_api.py)",
    "is_symbolic_tensor": "a question about tracing, not an op "
                          "(tests/keras/test_keras_public_api.py, against TF's answers)",
    "Module": "a container of variables, not an op (tests/ops/test_module.py)",
    "name_scope": "a context manager naming variables, not an op (tests/ops/test_module.py)",
    "show_config": "prints tapegrad's own build facts; TF has none (tests/ops/test_show_config.py)",
    "make_tensor_proto": "returns a protobuf message, not a tensor: its bytes are compared with TF's in "
                         "tests/io/test_tensor_proto.py and tests/oracle/test_tf_oracle_example.py",
    "make_ndarray": "reads a protobuf message (tests/io/test_tensor_proto.py)",
    **dict.fromkeys(["nn.nce_loss", "nn.sampled_softmax_loss", "nn.compute_accidental_hits"],
                    "random negatives: compared with TF for given sampled_values, gradients included "
                    "(tests/oracle/test_tf_oracle_sampled_losses.py)"),
    **dict.fromkeys([f"{m}.{k}_candidate_sampler" for m in ("nn", "random") for k in ("all", "log_uniform", "uniform")],
                    "random draws: expected counts checked against TF's formulas "
                    "(tests/oracle/test_tf_oracle_sampled_losses.py)"),
}
from tf_oracle.rows_random_stateless import RANDOM_STATELESS  # noqa: E402  (also adds its EXCLUDED rows)
ROWS += RANDOM_STATELESS
