"""Oracle rows of the inverse trigonometric and hyperbolic functions, atan2, erfinv and
random.truncated_normal."""
import numpy as np

from tf_oracle.rows import Row, opinfo_domain
from tf_oracle.samples import DT, FLOAT, Sample, binary, fixed, unary


def _u(name, opinfo, **kw):
    return Row(name, unary(opinfo_domain(opinfo)), FLOAT, opinfo=opinfo, **kw)


def _polygamma(n):
    return lambda rng, dt: Sample([np.full((2, 3), float(n), dt), rng.uniform(0.2, 4.0, (2, 3)).astype(dt)])


def _truncated(rng, dt):
    return Sample([[20000]], {"mean": 1.0, "stddev": 2.0, "dtype": DT(dt)})


MATH = [
    _u("asin", "Asin", signed_zeros=True), _u("acos", "Acos"), _u("atan", "Atan", signed_zeros=True),
    _u("sinh", "Sinh", signed_zeros=True), _u("cosh", "Cosh"), _u("asinh", "Asinh", signed_zeros=True),
    _u("acosh", "Acosh"), _u("atanh", "Atanh", signed_zeros=True), _u("math.erfinv", "Erfinv"),
    Row("atan2", binary(opinfo_domain("Atan2"), mixed=False), FLOAT, opinfo="Atan2"),
    _u("math.lgamma", "Lgamma"), _u("math.digamma", "Digamma"),
    Row("math.polygamma", fixed(*[(f"n{n}", _polygamma(n)) for n in (0, 1, 2, 3)],
                               ("half", lambda rng, dt: Sample([np.array(1.5, dt), np.array([2.0], dt)], grad=False)),
                               ("poles", lambda rng, dt: Sample([np.array([1.0, 2.0, 3.0], dt)[:, None],
                                                                 np.array([0.0, -2.0, -2.5, np.inf, -np.inf], dt)],
                                                                grad=False))), FLOAT, opinfo="Polygamma"),
    Row("math.lbeta", fixed(("r23", lambda rng, dt: Sample([rng.uniform(0.3, 3.0, (2, 3)).astype(dt)])),
                            ("empty", lambda rng, dt: Sample([np.zeros((2, 0), dt)], grad=False)),
                            ("rank1", lambda rng, dt: Sample([rng.uniform(0.3, 3.0, (4,)).astype(dt)]))),
        FLOAT, opinfo="lbeta"),
    Row("random.truncated_normal",
        fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
              ("empty", lambda rng, dt: Sample([[0, 2]], {"dtype": DT(dt)})),
              ("stats", _truncated)), FLOAT, grad=False, shape_only=True),
]
