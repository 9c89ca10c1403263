"""tf.linalg's LAPACK ops: what the op and oracle tables do not cover (errors, traced graphs,
broadcasting, a Gaussian-process style use of several together)."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad.errors import InvalidArgumentError


@pytest.mark.parametrize("call, words", [
    (lambda: tf.linalg.inv(tf.zeros([2, 2])), ["MatrixInverse", "not invertible"]),
    (lambda: tf.linalg.inv(tf.zeros([2, 3])), ["MatrixInverse", "square", "(2, 3)"]),
    (lambda: tf.linalg.det(tf.eye(2, dtype=tf.int32)), ["MatrixDeterminant", "float32 or float64", "int32"]),
    (lambda: tf.linalg.solve(tf.eye(2), tf.ones([3, 1])), ["MatrixSolve", "rhs", "(3, 1)"]),
    (lambda: tf.linalg.solve(tf.eye(2), tf.ones([2, 1], tf.float64)), ["MatrixSolve", "dtype"]),
    (lambda: tf.linalg.triangular_solve(tf.ones([2, 2, 2]), tf.ones([3, 2, 1])), ["triangular_solve", "broadcast"]),
    (lambda: tf.linalg.cholesky(tf.ones([3])), ["Cholesky", "rank >= 2"]),
])
def test_errors_name_the_op_and_shapes(call, words):
    with pytest.raises(InvalidArgumentError) as e:
        call()
    for w in words:
        assert w in str(e.value)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_nan():
    l = tf.linalg.cholesky(tf.constant([[[4.0, 2.0], [2.0, 5.0]], [[1.0, 2.0], [2.0, 1.0]]])).numpy()
    np.testing.assert_allclose(l[0], [[2.0, 0.0], [1.0, 2.0]])
    assert np.isnan(l[1][np.tril_indices(2)]).all() and l[1][0, 1] == 0


def test_gaussian_process_marginal_likelihood_in_a_traced_function():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (12, 1))
    y = np.sin(2 * x[:, 0]) + 0.05 * rng.normal(size=12)

    def nll(log_scale, tf_x, tf_y):
        d = tf_x - tf.transpose(tf_x)
        k = tf.exp(-0.5 * d * d / tf.exp(2 * log_scale)) + 0.01 * tf.eye(12, dtype=tf.float64)
        chol = tf.linalg.cholesky(k)
        alpha = tf.linalg.cholesky_solve(chol, tf_y[:, None])
        return 0.5 * tf.reduce_sum(tf_y[:, None] * alpha) + 0.5 * tf.linalg.logdet(k)

    def value_and_grad(log_scale):
        with tf.GradientTape() as tape:
            tape.watch(log_scale)
            v = nll(log_scale, tf.constant(x), tf.constant(y))
        return v, tape.gradient(v, log_scale)

    traced = tf.function(value_and_grad)
    for s in (-0.5, 0.3):
        v, g = value_and_grad(tf.constant(s, tf.float64))
        tv, tg = traced(tf.constant(s, tf.float64))
        np.testing.assert_allclose([float(tv), float(tg)], [float(v), float(g)], rtol=1e-12)
        # NumPy reference of the value and a central difference of it
        def ref(ls):
            d = x - x.T
            k = np.exp(-0.5 * d * d / np.exp(2 * ls)) + 0.01 * np.eye(12)
            return 0.5 * y @ np.linalg.solve(k, y) + 0.5 * np.linalg.slogdet(k)[1]
        np.testing.assert_allclose(float(v), ref(s), rtol=1e-10)
        np.testing.assert_allclose(float(g), (ref(s + 1e-6) - ref(s - 1e-6)) / 2e-6, rtol=1e-5)


def test_triangular_solve_broadcasts_leading_axes_and_its_gradient_reduces_them():
    l = tf.Variable(np.tril(np.random.default_rng(1).uniform(1, 2, (1, 3, 3))))
    b = tf.constant(np.ones((4, 3, 2)))
    with tf.GradientTape() as tape:
        x = tf.linalg.triangular_solve(l, b)
        loss = tf.reduce_sum(x)
    assert x.shape == (4, 3, 2)
    g = tape.gradient(loss, l)
    assert g.shape == (1, 3, 3) and (np.triu(g.numpy()[0], 1) == 0).all()


def test_slogdet_stays_finite_where_det_overflows():
    a = tf.constant(np.diag(np.full(60, 1e8)), tf.float32)
    assert np.isinf(tf.linalg.det(a).numpy())
    sign, logabs = tf.linalg.slogdet(a)
    assert float(sign) == 1.0
    np.testing.assert_allclose(float(logabs), 60 * np.log(1e8), rtol=1e-5)


def test_eigh_decomposes_and_its_vectors_have_a_fixed_sign():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(3, 5, 5))
    a = a + np.swapaxes(a, -1, -2)
    e, v = tf.linalg.eigh(tf.constant(a))
    e, v = e.numpy(), v.numpy()
    np.testing.assert_allclose(a @ v, v * e[..., None, :], atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(5), (3, 5, 5)), atol=1e-12)
    assert (np.diff(e, axis=-1) >= 0).all()
    big = np.take_along_axis(v, np.abs(v).argmax(-2)[..., None, :], -2)
    assert (big > 0).all()
    only_lower = np.tril(a) + np.triu(rng.normal(size=(3, 5, 5)), 1)  # the upper triangle is not read
    np.testing.assert_allclose(tf.linalg.eigvalsh(tf.constant(only_lower)).numpy(), e, atol=1e-12)


def test_eigh_refuses_nan_in_the_lower_triangle_and_traces():
    with pytest.raises(InvalidArgumentError, match="SelfAdjointEig: Self-adjoint eigen decomposition was not successful"):
        tf.linalg.eigh(tf.constant([[1.0, 2.0], [np.nan, 2.0]]))
    np.testing.assert_allclose(tf.linalg.eigvalsh(tf.constant([[1.0, np.nan], [2.0, 4.0]])).numpy(), [0.0, 5.0],
                               atol=1e-6)  # the upper triangle is not read
    assert np.isnan(tf.linalg.eigvalsh(tf.constant([[np.inf, 2.0], [2.0, 4.0]])).numpy()).all()
    f = tf.function(lambda m: tf.linalg.eigvalsh(m))
    np.testing.assert_allclose(f(tf.constant([[2.0, 1.0], [1.0, 2.0]])).numpy(), [1.0, 3.0], rtol=1e-6)
    np.testing.assert_allclose(f(tf.constant([[5.0, 0.0], [0.0, 4.0]])).numpy(), [4.0, 5.0], rtol=1e-6)


def test_nan_off_the_diagonal_reaches_every_result():
    # LAPACKE's own NaN check would skip the factorization and leave the input as the "result".
    nan = np.nan
    assert np.isnan(tf.linalg.det(tf.constant([[2.0, 0.0], [nan, 3.0]])).numpy())
    dets = tf.linalg.det(tf.constant([[[2.0, 0.0], [0.0, 3.0]], [[2.0, 0.0], [nan, 3.0]]])).numpy()
    assert dets[0] == 6.0 and np.isnan(dets[1])
    sign, logabs = tf.linalg.slogdet(tf.constant([[2.0, 0.0], [nan, 3.0]]))
    assert np.isnan(sign.numpy()) and np.isnan(logabs.numpy())
    x = tf.linalg.solve(tf.constant([[2.0, 0.0], [0.0, 3.0]]), tf.constant([[nan], [1.0]])).numpy()
    assert np.isnan(x[0, 0])
    for call in (lambda: tf.linalg.inv(tf.constant([[1.0, nan], [1.0, 1.0]])),
                 lambda: tf.linalg.solve(tf.constant([[2.0, 0.0], [nan, 3.0]]), tf.ones([2, 1]))):
        with pytest.raises(InvalidArgumentError, match="not invertible"):
            call()


@pytest.mark.parametrize("call, cls, words", [
    (lambda: tf.linalg.svd(tf.ones([2, 3]), full_matrices=True), tf.errors.UnimplementedError,
     ["svd", "full_matrices=True", "2 x 3"]),
    (lambda: tf.linalg.svd(tf.ones([3])), InvalidArgumentError, ["svd", "'tensor'", "rank >= 2"]),
    (lambda: tf.linalg.svd(tf.ones([2, 2], tf.int32)), InvalidArgumentError, ["Svd", "float32 or float64"]),
    (lambda: tf.linalg.lstsq(tf.ones([3, 2]), tf.ones([3, 1]), fast=False), tf.errors.UnimplementedError,
     ["lstsq", "fast=False"]),
    (lambda: tf.linalg.pinv(tf.ones([3])), InvalidArgumentError, ["pinv", "'a'"]),
    (lambda: tf.linalg.eigh(tf.ones([2, 3])), InvalidArgumentError, ["SelfAdjointEig", "square"]),
])
def test_decomposition_errors_name_the_function(call, cls, words):
    with pytest.raises(cls) as e:
        call()
    for w in words:
        assert w in str(e.value)


def test_svd_of_a_square_matrix_with_full_matrices_is_the_reduced_one():
    a = tf.constant([[2.0, 1.0], [1.0, 3.0]])
    s, u, v = tf.linalg.svd(a, full_matrices=True)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a.numpy(), atol=1e-5)
