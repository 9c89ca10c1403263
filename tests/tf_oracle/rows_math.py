"""Oracle rows of the inverse trigonometric and hyperbolic functions, atan2, erfinv and
random.truncated_normal."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import DT, FLOAT, Sample, binary, fixed, unary


def _u(name, domain=(-2.0, 2.0), **kw):
    return Row(name, unary(domain), FLOAT, **kw)


def _truncated(rng, dt):
    return Sample([[20000]], {"mean": 1.0, "stddev": 2.0, "dtype": DT(dt)})


MATH = [
    _u("asin", (-0.95, 0.95), signed_zeros=True), _u("acos", (-0.95, 0.95)), _u("atan", signed_zeros=True),
    _u("sinh", signed_zeros=True), _u("cosh"), _u("asinh", signed_zeros=True), _u("acosh", (1.1, 3.0)),
    _u("atanh", (-0.95, 0.95), signed_zeros=True), _u("math.erfinv", (-0.99, 0.99)),
    Row("atan2", binary(mixed=False), FLOAT),
    Row("random.truncated_normal",
        fixed(("shape", lambda rng, dt: Sample([[2, 3]], {"dtype": DT(dt)})),
              ("empty", lambda rng, dt: Sample([[0, 2]], {"dtype": DT(dt)})),
              ("stats", _truncated)), FLOAT, grad=False, shape_only=True),
]
