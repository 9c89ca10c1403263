"""Edge inputs a differential run against TensorFlow found wrong (TF's results in the comments): two
hangs, an internal error, gradients that were numbers where TF's are NaN or NaN where TF's are 0, and a
range that truncated a float step."""
import numpy as np
import pytest

import tapegrad as tf

inf, nan = float("inf"), float("nan")


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
@pytest.mark.parametrize("bad", [inf, -inf, nan])
def test_svd_of_a_matrix_holding_inf_or_nan_is_nan(dtype, bad):
    # TF: NaN values; LAPACK never returned on the inf
    a = tf.constant([[bad, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dtype)
    assert np.isnan(tf.linalg.svd(a, compute_uv=False).numpy()).all()
    s, u, v = tf.linalg.svd(a)
    assert np.isnan(s.numpy()).all() and np.isnan(u.numpy()).all() and np.isnan(v.numpy()).all()


def test_polygamma_of_a_huge_order_returns_at_once():
    # the series ran 20 + 2n steps (forever for n = inf); TF: inf at |x| < 1 for n = inf
    got = tf.math.polygamma(tf.constant([inf, inf, 1e10, 1e6], tf.float64), tf.constant([0.5, -0.5, 0.5, 1e7], tf.float64))
    assert got.numpy()[0] == inf and got.numpy()[1] == inf and got.numpy()[2] == -inf
    # psi^(n)(x) for n << x: (n-1)!/x^n leads; n = 1e6, x = 1e7: finite, negative (n even), tiny
    assert got.numpy()[3] <= 0


@pytest.mark.parametrize("n,x", [(1.0, 0.5), (3.0, 2.5), (40.0, 1.5), (200.0, 3.0)])
def test_polygamma_stopping_early_keeps_full_precision(n, x):
    # psi^(n)(x) = (-1)^(n+1) n! sum_k 1/(x+k)^(n+1), summed here in exact rationals' float64 image
    from math import lgamma, exp, log
    terms = [exp(lgamma(n + 1) - (n + 1) * log(x + k)) for k in range(200000)]
    ref = (1 if n % 2 else -1) * sum(sorted(terms))
    got = tf.math.polygamma(tf.constant(n, tf.float64), tf.constant(x, tf.float64)).numpy()
    # (the reference's own truncation after 2e5 terms matters only for n = 1)
    assert got == pytest.approx(ref, rel=1e-5 if n == 1 else 1e-13)


@pytest.mark.parametrize("values", [[0.0, 1e-40], [1e-40, -1e-40, 0.0], [-0.0, 2e-40]])
def test_unique_reads_subnormals_as_zero(values):
    # TF: one value 0 (kernels flush subnormals); the shape rule counted them apart: InternalError
    y, idx = tf.unique(tf.constant(values))
    assert y.shape == (1,) and idx.numpy().tolist() == [0] * len(values)
    y, idx, count = tf.unique_with_counts(tf.constant(values))  # (1e-40 is normal in float64)
    assert count.numpy().tolist() == [len(values)]


def _grad(f, values):
    x = tf.constant(values, tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


def test_acosh_gradient_is_nan_outside_its_domain():
    # TF: [nan, nan, nan, inf, 1/sqrt(3)]; the rule gave 1/sqrt(x^2 - 1), finite for x < -1
    g = _grad(tf.math.acosh, [-2.0, -1.0, 0.5, 1.0, 2.0])
    assert np.isnan(g[:3]).all() and g[3] == inf and g[4] == pytest.approx(1 / np.sqrt(3.0), rel=1e-15)


def test_erfc_gradient_at_infinity_is_zero():
    # TF: -0 at +-inf (the tail branch made inf * 0)
    g = _grad(tf.math.erfc, [inf, -inf, 3.0, 50.0])
    assert g[0] == 0 and g[1] == 0 and g[3] == 0
    assert g[2] == pytest.approx(-2 / np.sqrt(np.pi) * np.exp(-9.0), rel=1e-12)


@pytest.mark.parametrize("args", [(0, 1, 0.3), (0, 5, 1.5), (0.0, 3, 1), (0, 3.0)])
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64])
def test_range_refuses_a_python_float_for_an_integer_dtype(args, dtype):
    # TF: TypeError "Cannot convert 0.3 to EagerTensor of dtype int64"; tapegrad truncated the step
    with pytest.raises(TypeError, match="Range: Cannot convert"):
        tf.range(*args, dtype=dtype)
    assert tf.range(0, 5, 2, dtype=dtype).numpy().tolist() == [0, 2, 4]
