"""Rows for elementwise ops (unary, binary, comparisons, logical, Select)."""
import math

import numpy as np

import tapegrad as tf
from opinfo import elementwise_edges, elementwise_errors
from opinfo.core import OpInfo, SampleInput, attach_edge_samples, attach_error_inputs, uniform


def _away_from_zero(rng, dtype):
    for s in [(), (5,), (2, 3)]:
        x = rng.uniform(0.3, 2.0, size=s) * rng.choice([-1, 1], size=s)
        yield SampleInput([np.asarray(x, dtype)])


def _np_erfinv(y):
    """erf's inverse by bisection in float64 (a reference independent of the kernel's method)."""
    y = np.asarray(y, np.float64)
    lo, hi = np.full(y.shape, -6.0), np.full(y.shape, 6.0)
    erf = np.vectorize(math.erf, otypes=[float])
    for _ in range(80):
        mid = (lo + hi) / 2
        below = erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


def _np_polygamma(n, x):
    """psi^(n)(x) for x > 0: the first N terms of its series summed directly, the rest by Euler-Maclaurin
    (for n = 0 from psi(x + N) ~ log - 1/(2y) - 1/(12 y^2)): an independent float64 reference."""
    n = np.asarray(n, np.float64)
    x = np.asarray(x, np.float64)
    big = 2000
    k = np.arange(float(big))
    out = np.empty(np.broadcast(n, x).shape)
    for i, (nn, xx) in enumerate(zip(np.broadcast_to(n, out.shape).ravel(), np.broadcast_to(x, out.shape).ravel())):
        y = xx + big
        if nn == 0:  # psi(x) = psi(x + N) - sum_{k<N} 1/(x + k)
            out.flat[i] = np.log(y) - 1 / (2 * y) - 1 / (12 * y ** 2) + 1 / (120 * y ** 4) - np.sum(1 / (k + xx))
        else:
            s = nn + 1
            tail = 1 / ((s - 1) * y ** (s - 1)) + 1 / (2 * y ** s) + s / (12 * y ** (s + 1))
            out.flat[i] = (-1) ** (nn + 1) * math.factorial(int(nn)) * (np.sum(1 / (k + xx) ** s) + tail)
    return out


def _polygamma_samples(rng, dtype):
    for order, shape in [(1.0, (2, 3)), (2.0, (3,)), (0.0, (2,))]:
        yield SampleInput([np.full(shape, order, dtype), rng.uniform(0.5, 3.0, size=shape).astype(dtype)], grad_args=[1])
    yield SampleInput([np.array([1.0, 3.0], dtype), rng.uniform(0.5, 3.0, size=(4, 2)).astype(dtype)], grad_args=[1])


def _away_from_zero_pairs(rng, dtype):
    """Pairs for atan2 with |x| + |y| well away from 0, where the angle has no branch point."""
    for sa, sb in [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 3))]:
        a = rng.uniform(0.3, 2.0, size=sa) * rng.choice([-1, 1], size=sa)
        b = rng.uniform(0.3, 2.0, size=sb) * rng.choice([-1, 1], size=sb)
        yield SampleInput([a.astype(dtype), b.astype(dtype)])


def _positive_base(rng, dtype):
    for sx, sy in [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (4,))]:
        yield SampleInput([rng.uniform(0.5, 2.0, sx).astype(dtype), rng.uniform(-1.5, 1.5, sy).astype(dtype)])


def _distinct_pairs(rng, dtype):
    # Maximum/Minimum/Mod are not differentiable where the inputs tie or at jumps: keep them apart.
    for sx, sy in [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3))]:
        x = rng.uniform(-2, 2, sx)
        y = rng.uniform(-2, 2, sy)
        y = np.where(np.abs(x - y) < 0.2, y + 0.5, y)
        yield SampleInput([x.astype(dtype), np.asarray(y, dtype)])


def _mod_pairs(rng, dtype):
    for sx, sy in [((2, 3), (2, 3)), ((5,), ())]:
        x = rng.uniform(0.1, 0.9, sx) + rng.integers(-3, 3, sx)
        y = rng.uniform(1.1, 1.9, sy) * rng.choice([-1, 1], sy)
        r = np.mod(x, y)
        x = np.where((np.abs(r) < 0.1) | (np.abs(np.abs(r) - np.abs(y)) < 0.1), x + 0.3, x)
        yield SampleInput([x.astype(dtype), np.asarray(y, dtype)])


def _select(rng, dtype):
    for sc, sx, sy in [((2, 3), (2, 3), (2, 3)), ((3,), (2, 3), ()), ((2, 1), (1, 3), (2, 3))]:
        c = rng.uniform(size=sc) > 0.5
        yield SampleInput([c, rng.uniform(-2, 2, sx).astype(dtype), rng.uniform(-2, 2, sy).astype(dtype)],
                          grad_args=[1, 2])


def _bools(rng, dtype):
    for sx, sy in [((2, 3), (2, 3)), ((2, 3), (3,))]:
        yield SampleInput([rng.uniform(size=sx) > 0.5, rng.uniform(size=sy) > 0.5])


_INTS = ("int32", "int64", "uint8", "int8", "int16", "uint16", "uint32", "uint64")


def _ints(rng, dtype):
    if np.dtype(dtype).kind not in "iu":  # (asked for float samples: there are none)
        return
    info = np.iinfo(dtype)
    for sx, sy in [((2, 3), (2, 3)), ((2, 3), (3,))]:
        yield SampleInput([rng.integers(info.min, info.max, sx, dtype=dtype, endpoint=True),
                           rng.integers(info.min, info.max, sy, dtype=dtype, endpoint=True)])


def _shifts(rng, dtype):
    if np.dtype(dtype).kind not in "iu":
        return
    bits = np.dtype(dtype).itemsize * 8
    x = rng.integers(np.iinfo(dtype).min, np.iinfo(dtype).max, (2, 4), dtype=dtype, endpoint=True)
    yield SampleInput([x, np.array([0, 1, bits - 1, bits // 2], dtype)])  # in range: as NumPy's shifts


def _np_shift(fn):
    return lambda x, y: fn(x, y.astype(x.dtype))


def _tanh_grad(t, g):
    return g * (1 - t * t)


def _sigmoid_grad(s, g):
    return g * s * (1 - s)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _with_exp_neg_abs(rng, dtype):
    # x and t = exp(-|x|): the operands of the fused forms (Note [Shared exponentials]),
    # across both branches of TanhOfExp (|x| < 1/2) and into the tails
    for s in [(7,), (2, 3)]:
        x = rng.uniform(-3, 3, s).astype(dtype)
        x.flat[0] = 0.3
        yield SampleInput([x, np.exp(-np.abs(x))])
    x = np.array([-60.0, -20.0, -1e-6, 0.0, 1e-6, 0.49, 0.51, 20.0, 60.0], dtype)
    yield SampleInput([x, np.exp(-np.abs(x))])


def _fused_form(name, ref):
    return OpInfo(name, lambda x, t: tf._core.op(name)(x, t), lambda x, t: ref(x), arity=2,
                  samples=_with_exp_neg_abs, differentiable=False, fwd_rtol32=1e-6)


def _cmp(name, fn, ref):
    return OpInfo(name, fn, ref, arity=2, differentiable=False)


# ---- TruncateDiv, TruncateMod and NextAfter


def _truncate_samples(rng, dtype):
    dtype = np.dtype(dtype)
    x = np.array([7, -7, 7, -7, 0, 5, -9], dtype)
    y = np.array([2, 2, -2, -2, 3, 5, 4], dtype)
    yield SampleInput([x, y])
    yield SampleInput([x.reshape(7, 1), np.array([3, -4], dtype)])
    if dtype.kind == "f":
        yield SampleInput([np.array([7.5, -7.5, 1e20, 5.5, np.inf, 1.0], dtype),
                           np.array([2.0, 2.0, 3.0, 0.0, 2.0, np.inf], dtype)])
    else:
        info = np.iinfo(dtype)
        yield SampleInput([np.array([info.min, info.min, info.max], dtype), np.array([-1, 1, -1], dtype)])


def _wrap(q, dtype):
    """Python integers wrapped into dtype (two's complement, as the kernels)."""
    bits = np.iinfo(dtype).bits
    flat = [(int(v) + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1) for v in np.asarray(q).reshape(-1)]
    return np.array(flat, dtype).reshape(np.shape(q))


def _np_truncate_div(x, y):
    if x.dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.trunc(x / y)
    x, y = np.broadcast_arrays(x.astype(object), y.astype(object))
    q = [abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1) for a, b in zip(x.reshape(-1), y.reshape(-1))]
    return np.array(q, object).reshape(x.shape)


def _np_truncate_div_wrapped(x, y):
    return _np_truncate_div(x, y) if x.dtype.kind == "f" else _wrap(_np_truncate_div(x, y), x.dtype)


def _np_truncate_mod(x, y):
    if x.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            return np.fmod(x, y)
    return _wrap(x.astype(object) - _np_truncate_div(x, y) * y.astype(object), x.dtype)


def _mod_samples(rng, dtype):
    """The division samples; in float64 (the gradient checks) x / y away from integers instead, where
    trunc(x / y) is constant near each sample."""
    if np.dtype(dtype) != np.float64:
        yield from _truncate_samples(rng, dtype)
        return
    x = np.array([[2.3, -5.7, 0.4], [-1.25, 3.6, 7.3]], dtype)
    yield SampleInput([x, np.array([1.1, 1.7, -0.9], dtype)])
    yield SampleInput([x, np.array(0.8, dtype)])


def _nextafter_samples(rng, dtype):
    x = uniform(rng, (2, 3), dtype)
    yield SampleInput([x, (x + np.sign(rng.standard_normal((2, 3))) * 3).astype(dtype)])
    yield SampleInput([x, np.array(5.0, dtype)])


rows = [
    # unary, d/dx depends on the result
    OpInfo("Exp", tf.exp, np.exp, order=2),
    OpInfo("Expm1", tf.math.expm1, np.expm1, order=2),
    OpInfo("Sqrt", tf.sqrt, np.sqrt, domain=(0.1, 3.0), order=2),
    OpInfo("Rsqrt", tf.math.rsqrt, lambda x: 1 / np.sqrt(x), domain=(0.1, 3.0), order=2),
    OpInfo("Tanh", tf.tanh, np.tanh, order=2),
    OpInfo("Sigmoid", tf.sigmoid, _sigmoid, order=2),
    OpInfo("Reciprocal", tf.math.reciprocal, lambda x: 1 / x, samples=_away_from_zero, domain=(0.5, 2.0),
           order=2),
    # unary, d/dx depends on the argument
    OpInfo("Log", tf.math.log, np.log, domain=(0.1, 3.0), order=2),
    OpInfo("Log1p", tf.math.log1p, np.log1p, domain=(-0.9, 3.0), order=2),
    OpInfo("Softplus", tf.nn.softplus, lambda x: np.logaddexp(0, x), domain=(-5.0, 5.0), order=2),
    OpInfo("ExpNegAbs", lambda x: tf._core.op("ExpNegAbs")(x), lambda x: np.exp(-np.abs(x)),
           samples=_away_from_zero, order=2),
    _fused_form("SigmoidOfExp", _sigmoid),
    _fused_form("SoftplusOfExp", lambda x: np.logaddexp(0, x)),
    _fused_form("TanhOfExp", np.tanh),
    OpInfo("Sin", tf.sin, np.sin, order=2),
    OpInfo("Cos", tf.cos, np.cos, order=2),
    OpInfo("Tan", tf.tan, np.tan, domain=(-1.2, 1.2), order=2),
    OpInfo("Softsign", tf.nn.softsign, lambda x: x / (1 + np.abs(x)), samples=_away_from_zero, order=2),
    OpInfo("Erf", tf.math.erf, np.vectorize(math.erf, otypes=[float]), order=2),
    OpInfo("Erfinv", tf.math.erfinv, lambda y: _np_erfinv(y), domain=(-0.99, 0.99), order=2),
    OpInfo("Asin", tf.asin, np.arcsin, domain=(-0.95, 0.95), order=2),
    OpInfo("Acos", tf.acos, np.arccos, domain=(-0.95, 0.95), order=2),
    OpInfo("Atan", tf.atan, np.arctan, order=2),
    OpInfo("Sinh", tf.sinh, np.sinh, order=2),
    OpInfo("Cosh", tf.cosh, np.cosh, order=2),
    OpInfo("Asinh", tf.asinh, np.arcsinh, order=2),
    OpInfo("Acosh", tf.acosh, np.arccosh, domain=(1.1, 3.0), order=2),
    OpInfo("Atanh", tf.atanh, np.arctanh, domain=(-0.95, 0.95), order=2),
    OpInfo("Atan2", tf.math.atan2, np.arctan2, arity=2, samples=_away_from_zero_pairs, order=2),
    OpInfo("Lgamma", tf.math.lgamma, np.vectorize(math.lgamma, otypes=[float]), domain=(0.1, 5.0), order=2),
    OpInfo("Digamma", tf.math.digamma, lambda x: _np_polygamma(0, x), domain=(0.1, 5.0), order=2),
    OpInfo("Polygamma", tf.math.polygamma, lambda a, x: _np_polygamma(a, x), samples=_polygamma_samples, order=2),
    OpInfo("lbeta", tf.math.lbeta, lambda x: np.sum(np.vectorize(math.lgamma)(x), -1) - np.vectorize(math.lgamma)(np.sum(x, -1)),
           samples=lambda rng, dt: [SampleInput([rng.uniform(0.3, 3.0, size=s).astype(dt)]) for s in [(4,), (2, 3)]],
           order=2, op=None),
    OpInfo("Neg", tf.negative, np.negative, order=2),
    OpInfo("Square", tf.square, np.square, order=2),
    OpInfo("Abs", tf.abs, np.abs, samples=_away_from_zero, order=2),
    OpInfo("Sign", tf.sign, np.sign, samples=_away_from_zero),
    OpInfo("Floor", tf.floor, np.floor, samples=_away_from_zero),
    OpInfo("Ceil", tf.math.ceil, np.ceil, samples=_away_from_zero),
    OpInfo("Round", tf.round, np.round, samples=_away_from_zero),
    # binary
    OpInfo("Add", tf.add, np.add, arity=2, order=2),
    OpInfo("Sub", tf.subtract, np.subtract, arity=2, order=2),
    OpInfo("Mul", tf.multiply, np.multiply, arity=2, order=2),
    OpInfo("RealDiv", tf.math.realdiv, np.divide, arity=2, order=2,
           samples=lambda rng, dt: (SampleInput([rng.uniform(-2, 2, sx).astype(dt), rng.uniform(0.5, 2, sy).astype(dt)])
                                    for sx, sy in [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (4,))])),
    OpInfo("Maximum", tf.maximum, np.maximum, arity=2, samples=_distinct_pairs),
    OpInfo("Minimum", tf.minimum, np.minimum, arity=2, samples=_distinct_pairs),
    OpInfo("SquaredDifference", tf.math.squared_difference, lambda x, y: (x - y) ** 2, arity=2, order=2),
    OpInfo("Pow", tf.pow, np.power, arity=2, samples=_positive_base, domain=(0.2, 2.0), order=2,
           public=(tf.Tensor.__pow__,)),
    OpInfo("MulNoNan", tf.math.multiply_no_nan, lambda x, y: np.where(y == 0, 0, x * y), arity=2, order=2),
    OpInfo("Xlogy", tf.math.xlogy, lambda x, y: np.where(x == 0, 0, x * np.log(y)), arity=2, order=2,
           domain=(0.2, 2.0)),
    OpInfo("Xdivy", tf.math.xdivy, lambda x, y: np.where(x == 0, 0, x / y), arity=2, order=2, domain=(0.5, 2.0)),
    OpInfo("DivNoNan", tf.math.divide_no_nan, lambda x, y: np.where(y == 0, 0, x / np.where(y == 0, 1, y)), arity=2,
           order=2, domain=(0.5, 2.0)),
    OpInfo("FloorDiv", tf.math.floordiv, np.floor_divide, arity=2, samples=_mod_pairs),
    OpInfo("FloorMod", tf.math.floormod, np.mod, arity=2, samples=_mod_pairs),
    OpInfo("TruncateDiv", tf.truncatediv, _np_truncate_div_wrapped, samples=_truncate_samples, differentiable=False,
           dtypes=("float32", "float64", "int32", "int64")),
    OpInfo("TruncateMod", tf.truncatemod, _np_truncate_mod, samples=_mod_samples, order=2,
           dtypes=("float32", "float64", "int32", "int64")),
    OpInfo("NextAfter", tf.math.nextafter, np.nextafter, samples=_nextafter_samples, order=2),
    OpInfo("TanhGrad", lambda t, g: tf._core.op("TanhGrad")(t, g), _tanh_grad, arity=2, order=2),
    OpInfo("SigmoidGrad", lambda s, g: tf._core.op("SigmoidGrad")(s, g), _sigmoid_grad, arity=2, order=2),
    OpInfo("Select", tf.where, np.where, samples=_select, order=2),
    # no gradient
    _cmp("Less", tf.less, np.less),
    _cmp("LessEqual", tf.less_equal, np.less_equal),
    _cmp("Greater", tf.greater, np.greater),
    _cmp("GreaterEqual", tf.greater_equal, np.greater_equal),
    _cmp("Equal", tf.equal, np.equal),
    _cmp("NotEqual", tf.not_equal, np.not_equal),
    OpInfo("LogicalAnd", tf.logical_and, np.logical_and, samples=_bools, differentiable=False, dtypes=("bool",)),
    OpInfo("LogicalOr", tf.logical_or, np.logical_or, samples=_bools, differentiable=False, dtypes=("bool",)),
    OpInfo("BitwiseAnd", tf.bitwise.bitwise_and, np.bitwise_and, samples=_ints, differentiable=False, dtypes=_INTS),
    OpInfo("BitwiseOr", tf.bitwise.bitwise_or, np.bitwise_or, samples=_ints, differentiable=False, dtypes=_INTS),
    OpInfo("BitwiseXor", tf.bitwise.bitwise_xor, np.bitwise_xor, samples=_ints, differentiable=False, dtypes=_INTS),
    OpInfo("LeftShift", tf.bitwise.left_shift, _np_shift(np.left_shift), samples=_shifts, differentiable=False,
           dtypes=_INTS),
    OpInfo("RightShift", tf.bitwise.right_shift, _np_shift(np.right_shift), samples=_shifts, differentiable=False,
           dtypes=_INTS),
    OpInfo("Invert", tf.bitwise.invert, np.invert, differentiable=False, dtypes=_INTS,
           samples=lambda rng, dt: [SampleInput([s.args[0]]) for s in _ints(rng, dt)]),
    OpInfo("LogicalNot", tf.logical_not, np.logical_not, differentiable=False, dtypes=("bool",),
           samples=lambda rng, dt: [SampleInput([rng.uniform(size=(2, 3)) > 0.5])]),
    # activations
    OpInfo("Relu", tf.nn.relu, lambda x: np.maximum(x, 0), samples=_away_from_zero, order=2),
    OpInfo("Relu6", tf.nn.relu6, lambda x: np.clip(x, 0, 6),
           samples=lambda rng, dt: [SampleInput([np.array([-1.0, 0.5, 3.0, 5.5, 7.0, -0.3], dt)])]),
    OpInfo("LeakyRelu", tf.nn.leaky_relu, lambda x, alpha=0.2: np.where(x > 0, x, np.float32(alpha) * x), order=2,
           samples=lambda rng, dt: [SampleInput([a], kw) for a in _away_from_zero_list(rng, dt)
                                    for kw in ({}, {"alpha": 0.1})]),
    OpInfo("Elu", tf.nn.elu, lambda x: np.where(x > 0, x, np.expm1(x)), samples=_away_from_zero, order=2),
    OpInfo("Selu", tf.nn.selu, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
           samples=_away_from_zero, order=2),
]


def _away_from_zero_list(rng, dtype):
    return [s.args[0] for s in _away_from_zero(rng, dtype)]

attach_error_inputs(rows, elementwise_errors.ERROR_INPUTS)  # the rows' bad calls, in opinfo/elementwise_errors.py
attach_edge_samples(rows, elementwise_edges.EDGE_SAMPLES)  # their edge values, in opinfo/elementwise_edges.py
