"""Edge samples of the elementwise rows (opinfo/elementwise.py): inputs a differential run against TF
found wrong (TF's results in the comments; a hang, gradients that were numbers where TF's are NaN) and
the activations' tails, where the value and the gradient must stay finite and exact."""
import math

import numpy as np

from opinfo.core import FINITE, Check, Edge

inf, nan = float("inf"), float("nan")
f32, f64 = np.float32, np.float64
TINY = Check("in [0, 1e-40)", lambda v: (0 <= v) & (v < 1e-40))


def _polygamma_series(n, x):
    """psi^(n)(x) = (-1)^(n+1) n! sum_k 1/(x+k)^(n+1), its first 2e5 terms summed smallest first in float64
    (the truncation matters only for n = 1, hence its looser tolerance)."""
    terms = np.exp(math.lgamma(n + 1) - (n + 1) * np.log(x + np.arange(200000.0)))
    return (1 if n % 2 else -1) * sum(sorted(terms.tolist()))


def _polygamma():
    return [
        # the series ran 20 + 2n steps (forever for n = inf); TF: inf at |x| < 1 for n = inf
        Edge(np.array([inf, inf, 1e10]), np.array([0.5, -0.5, 0.5])).gives([inf, inf, -inf]),
        # psi^(n)(x) for n << x: (n-1)!/x^n leads; n = 1e6, x = 1e7: finite, negative (n even), tiny
        Edge(np.array([1e6]), np.array([1e7])).gives(Check("<= 0", lambda v: v <= 0)),
    ] + [  # stopping early keeps full precision (atol: pytest.approx's default floor, as the check was written)
        Edge(np.array(n, f64), np.array(x, f64)).gives(_polygamma_series(n, x), rtol=1e-5 if n == 1 else 1e-13,
                                                       atol=1e-12)
        for n, x in [(1.0, 0.5), (3.0, 2.5), (40.0, 1.5), (200.0, 3.0)]]


def _acosh():
    # TF's gradient: [nan, nan, nan, inf, 1/sqrt(3)]; the rule gave 1/sqrt(x^2 - 1), finite for x < -1
    x = np.array([-2.0, -1.0, 0.5, 1.0, 2.0])
    with np.errstate(invalid="ignore"):
        value = np.arccosh(x)
    return [Edge(x).gives(value, rtol=1e-15).and_grad([nan, nan, nan, inf, 1 / np.sqrt(3.0)], rtol=1e-15, atol=1e-12)]


def _softplus():
    return [e for dt in (f32, f64) for e in (
        Edge(np.array(100.0, dt)).gives(100.0).and_grad(1.0),   # the identity, gradient one
        Edge(np.array(-100.0, dt)).gives(TINY).and_grad(Check("|g| < 1e-40", lambda g: np.abs(g) < 1e-40)))]


def _where_converts_python_values():
    # tf.where converts a Python value to the other operand's dtype (a float for ints: opinfo/elementwise_errors.py)
    return [Edge([True, False], np.array([1, 2], np.int32), 3).gives([1, 3]),
            Edge([True, False], np.array([1.0, 2.0]), [7, 8]).gives([1.0, 8.0], dtype="float64")]


EDGE_SAMPLES = {
    "Polygamma": _polygamma, "Acosh": _acosh, "Softplus": _softplus,
    # the gradient is finite in the tails
    "Sigmoid": lambda: [Edge(np.array(x, dt)).gives(FINITE).and_grad(TINY)
                        for dt in (f32, f64) for x in (100.0, -100.0)],
    "Select": _where_converts_python_values,
}
