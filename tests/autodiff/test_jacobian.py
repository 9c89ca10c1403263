"""jacobian / batch_jacobian: shapes as TF, values against finite differences, one batched sweep."""
import numpy as np
import pytest

import tapegrad as tf


def _tanh_layer(rng, n=5):
    W = tf.constant(rng.standard_normal((n, n)))
    x = tf.constant(rng.standard_normal((n, 1)))
    return W, x


def test_jacobian_of_tanh_layer(rng):
    W, x = _tanh_layer(rng)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(W @ x)
    J = tape.jacobian(y, x)
    assert J.shape == (5, 1, 5, 1)
    y_np = np.tanh(W.numpy() @ x.numpy())
    np.testing.assert_allclose(J.numpy().reshape(5, 5), (1 - y_np ** 2) * W.numpy(), atol=1e-12)


@pytest.mark.parametrize("use_pfor", [True, False])
@pytest.mark.parametrize("chunk", [None, 2])
def test_vectorized_loop_and_chunks_agree(rng, use_pfor, chunk):
    W, x = _tanh_layer(rng)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([W, x])
        y = tf.reduce_sum(tf.exp(W * tf.transpose(x)), axis=1) / (1.0 + tf.reduce_max(W))
    want = tape.jacobian(y, [W, x])
    got = tape.jacobian(y, [W, x], experimental_use_pfor=use_pfor, parallel_iterations=chunk)
    for a, b in zip(want, got):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    # finite differences for d y / d x
    eps = 1e-6
    fd = np.zeros((5, 5))
    for k in range(5):
        d = np.zeros((5, 1))
        d[k] = eps
        f = lambda xx: (np.exp(W.numpy() * xx.T).sum(1) / (1 + W.numpy().max()))
        fd[:, k] = (f(x.numpy() + d) - f(x.numpy() - d)) / (2 * eps)
    np.testing.assert_allclose(got[1].numpy().reshape(5, 5), fd, rtol=1e-6, atol=1e-8)


def test_rules_without_batch_support_fall_back_per_row(rng):
    x = tf.constant(rng.standard_normal((3, 4)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.softmax(x[1:, ::2] * 2.0)
    J = tape.jacobian(y, x)
    assert J.shape == (2, 2, 3, 4)
    with tf.GradientTape(persistent=True) as t2:
        t2.watch(x)
        y2 = tf.nn.softmax(x[1:, ::2] * 2.0)
        elements = [y2[i, j] for i in range(2) for j in range(2)]
    rows = [t2.gradient(e, x).numpy() for e in elements]
    np.testing.assert_allclose(J.numpy().reshape(4, 3, 4), np.stack(rows), atol=1e-12)


def test_unconnected_sources():
    x, z = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.0
    assert tape.jacobian(y, z) is None
    J = tape.jacobian(y, z, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert J.shape == (2, 1) and not J.numpy().any()


def test_non_persistent_tape_allows_one_jacobian():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = x * x
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0]))
    with pytest.raises(RuntimeError):
        tape.jacobian(y, x)


def test_batch_jacobian(rng):
    x = tf.constant(rng.standard_normal((4, 3)))
    W = tf.constant(rng.standard_normal((3, 2)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(x @ W)
    J = tape.batch_jacobian(y, x)
    assert J.shape == (4, 2, 3)
    y_np = np.tanh(x.numpy() @ W.numpy())
    want = (1 - y_np ** 2)[:, :, None] * W.numpy().T[None]
    np.testing.assert_allclose(J.numpy(), want, atol=1e-12)


def test_hessian_by_nested_tape_and_jacobian(rng):
    W = tf.constant(rng.standard_normal((4, 4)))
    x = tf.Variable(rng.standard_normal(4))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.tanh(tf.linalg.matvec(W, x)) ** 2)
        g = inner.gradient(y, x)
    H = outer.jacobian(g, x)
    assert H.shape == (4, 4)
    np.testing.assert_allclose(H.numpy(), H.numpy().T, atol=1e-10)

    def grad_np(xv):
        t = np.tanh(W.numpy() @ xv)
        return W.numpy().T @ (2 * t * (1 - t ** 2))

    eps = 1e-6
    fd = np.stack([(grad_np(x.numpy() + eps * e) - grad_np(x.numpy() - eps * e)) / (2 * eps) for e in np.eye(4)], 1)
    np.testing.assert_allclose(H.numpy(), fd, rtol=1e-5, atol=1e-7)


def test_jacobian_errors():
    x = tf.Variable([1.0])
    with tf.GradientTape() as tape:
        y = x * 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch"):
        tape.batch_jacobian(tf.zeros([2, 1]), tf.zeros([3, 1]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="target"):
        tape.jacobian([y], x)


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_batched_matmul_against_one_matrix(rng, ta, tb):
    # Both folded GEMM paths: a batch on the left of one matrix, and one matrix times a batch of vectors.
    A = rng.standard_normal((5, 3, 4))
    B = rng.standard_normal((4, 2) if not tb else (2, 4))
    want = np.matmul(A if not ta else np.swapaxes(A, -1, -2).copy(), B if not tb else B.T) if not ta else None
    if not ta:
        got = tf.matmul(tf.constant(A), tf.constant(B), transpose_b=tb).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12)
    M = rng.standard_normal((3, 4) if not ta else (4, 3))
    V = rng.standard_normal((6, 4, 1) if not tb else (6, 1, 4))
    got = tf.matmul(tf.constant(M), tf.constant(V), transpose_a=ta, transpose_b=tb).numpy()
    want = np.matmul(M.T if ta else M, np.swapaxes(V, -1, -2) if tb else V)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def _tanh_layer_jacobian(w, x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.linalg.matvec(w, x))
    return tape.jacobian(y, x), y


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_one_hot_rows_reach_the_product_as_a_gather(dtype):
    # Note [One-hot jacobian rows]: diag(1 - y^2) W without the [n, n] x [n, n] product
    rng = np.random.default_rng(0)
    w, x = rng.normal(size=(96, 80)).astype(dtype) / 8, rng.normal(size=80).astype(dtype)
    j, y = _tanh_layer_jacobian(tf.constant(w), tf.constant(x))
    want = (1 - y.numpy() ** 2)[:, None] * w
    np.testing.assert_allclose(j.numpy(), want, rtol=1e-5 if dtype == np.float32 else 1e-12)


def test_a_non_finite_matrix_takes_the_product_and_its_nans():
    # 0 * inf in the product gives NaN where a gather would not: the product is kept
    rng = np.random.default_rng(1)
    w = rng.normal(size=(70, 70)) / 8
    w[3, 5] = np.inf
    j, _ = _tanh_layer_jacobian(tf.constant(w), tf.constant(rng.normal(size=70)))
    assert np.isnan(j.numpy()[:, 5]).sum() >= 69  # every row meets the inf through 0 * inf


def test_dense_rows_and_second_order_through_the_gather():
    rng = np.random.default_rng(2)
    w, x = tf.constant(rng.normal(size=(72, 72)) / 8), tf.constant(rng.normal(size=72))
    with tf.GradientTape() as tape:  # softmax rows are dense: the product path
        tape.watch(x)
        y = tf.nn.softmax(tf.linalg.matvec(w, x))
    j = tape.jacobian(y, x).numpy()
    s = y.numpy()
    np.testing.assert_allclose(j, (np.diag(s) - np.outer(s, s)) @ w.numpy(), rtol=1e-10, atol=1e-14)
    with tf.GradientTape() as outer:  # the gather rule differentiates again
        outer.watch(w)
        jac, _ = _tanh_layer_jacobian(w, x)
        total = tf.reduce_sum(jac)
    g = outer.gradient(total, w).numpy()
    eps = 1e-6
    wn, xn = w.numpy(), x.numpy()

    def f(wv):
        yv = np.tanh(wv @ xn)
        return ((1 - yv ** 2)[:, None] * wv).sum()
    k = (4, 9)
    wp, wm = wn.copy(), wn.copy()
    wp[k] += eps
    wm[k] -= eps
    np.testing.assert_allclose(g[k], (f(wp) - f(wm)) / (2 * eps), rtol=1e-6)
