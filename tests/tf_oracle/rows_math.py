"""Oracle rows of the inverse trigonometric and hyperbolic functions, atan2, erfinv and
random.truncated_normal."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import DT, FLOAT, Sample, binary, fixed, unary


def _u(name, domain=(-2.0, 2.0), **kw):
    return Row(name, unary(domain), FLOAT, **kw)


def _polygamma(n):
    return lambda rng, dt: Sample([np.full((2, 3), float(n), dt), rng.uniform(0.2, 4.0, (2, 3)).astype(dt)])


def _truncated(rng, dt):
    return Sample([[20000]], {"mean": 1.0, "stddev": 2.0, "dtype": DT(dt)})


MATH = [
    _u("asin", (-0.95, 0.95), signed_zeros=True), _u("acos", (-0.95, 0.95)), _u("atan", signed_zeros=True),
    _u("sinh", signed_zeros=True), _u("cosh"), _u("asinh", signed_zeros=True), _u("acosh", (1.1, 3.0)),
    _u("atanh", (-0.95, 0.95), signed_zeros=True), _u("math.erfinv", (-0.99, 0.99)),
    Row("atan2", binary(mixed=False), FLOAT),
    _u("math.lgamma", (0.1, 5.0)), _u("math.digamma", (0.1, 5.0)),
    Row("math.polygamma", fixed(*[(f"n{n}", _polygamma(n)) for n in (0, 1, 2, 3)],
                               ("half", lambda rng, dt: Sample([np.array(1.5, dt), np.array([2.0], dt)], grad=False)),
                               ("poles", lambda rng, dt: Sample([np.array([1.0, 2.0, 3.0], dt)[:, None],
                                                                 np.array([0.0, -2.0, -2.5, np.inf, -np.inf], dt)],
                                                                grad=False))), FLOAT),
    Row("math.lbeta", fixed(("r23", lambda rng, dt: Sample([rng.uniform(0.3, 3.0, (2, 3)).astype(dt)])),
                            ("empty", lambda rng, dt: Sample([np.zeros((2, 0), dt)], grad=False)),
                            ("rank1", lambda rng, dt: Sample([rng.uniform(0.3, 3.0, (4,)).astype(dt)]))), FLOAT),
    Row("random.truncated_normal",
        fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
              ("empty", lambda rng, dt: Sample([[0, 2]], {"dtype": DT(dt)})),
              ("stats", _truncated)), FLOAT, grad=False, shape_only=True),
]
