"""Rows for the LAPACK matrix ops (cpp/ops/matrix.cpp): inverse, determinants, solves, Cholesky, on
well-conditioned batched matrices, to second order."""
import numpy as np

import tapegrad as tf
from opinfo import matrix_edges
from opinfo.core import OpInfo, SampleInput, attach_edge_samples

_sign_op = tf._core.op("DeterminantSign")
_log_abs_op = tf._core.op("LogAbsDeterminant")
_eig_op = tf._core.op("SelfAdjointEig")
_svd_op = tf._core.op("Svd")
_svd_values_op = tf._core.op("SvdValues")



def _spread_diagonal(shape):
    """1, 2, 3, ... on the main diagonal of a shape[-2] x shape[-1] matrix: distinct singular values."""
    d = np.zeros(shape[-2:])
    k = min(shape[-2:])
    d[np.arange(k), np.arange(k)] = np.arange(1, k + 1)
    return d

def _np_svd_packed(a):
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    v = np.swapaxes(vt, -1, -2)
    big = np.take_along_axis(u, np.abs(u).argmax(-2)[..., None, :], -2)
    sign = np.where(big < 0, -1.0, 1.0)
    u, v = u * sign, v * sign
    flat = lambda t: t.reshape(t.shape[:-2] + (-1,))
    return np.concatenate([s, flat(u), flat(v)], -1)


def _rect_samples(rng, dtype):
    for shape in [(3, 2), (2, 4), (2, 3, 3)]:
        a = rng.uniform(-1, 1, size=shape) + _spread_diagonal(shape)
        yield SampleInput([a.astype(dtype)])


def _well_conditioned(rng, shape, dtype):
    n = shape[-1]
    return (rng.uniform(-1, 1, size=shape) + 2.5 * np.eye(n)).astype(dtype)


def _square_samples(rng, dtype):
    for shape in [(3, 3), (2, 4, 4), (1, 1)]:
        yield SampleInput([_well_conditioned(rng, shape, dtype)])


def _solve_samples(rng, dtype):
    for a, b, kw in [((3, 3), (3, 2), {}), ((2, 3, 3), (2, 3, 1), {"adjoint": True}), ((2, 2), (2, 0), {})]:
        yield SampleInput([_well_conditioned(rng, a, dtype), rng.uniform(-1, 1, size=b).astype(dtype)], kw)


def _triangular_samples(rng, dtype):
    for a, b, kw in [((3, 3), (3, 2), {}), ((2, 3, 3), (2, 3, 1), {"lower": False}),
                     ((3, 3), (3, 2), {"adjoint": True}), ((4, 4), (4, 1), {"lower": False, "adjoint": True})]:
        yield SampleInput([_well_conditioned(rng, a, dtype), rng.uniform(-1, 1, size=b).astype(dtype)], kw)


def _np_triangular(a, b, lower=True, adjoint=False):
    t = np.tril(a) if lower else np.triu(a)
    if adjoint:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t, b)


def _sym(a):
    return (a + tf.linalg.matrix_transpose(a)) / 2


def _np_sym(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def _np_eig_packed(a):
    e, v = np.linalg.eigh(a)  # lower triangle, as the op
    big = np.take_along_axis(v, np.abs(v).argmax(-2)[..., None, :], -2)
    v = v * np.where(big < 0, -1.0, 1.0)
    return np.concatenate([e[..., None, :], v], -2)


def _symmetric_samples(rng, dtype):
    for shape in [(3, 3), (2, 4, 4), (1, 1)]:
        a = rng.uniform(-1, 1, size=shape)
        yield SampleInput([(a + np.swapaxes(a, -1, -2) + np.diag(np.arange(shape[-1]) * 0.7)).astype(dtype)])


rows = [
    OpInfo("Svd", lambda a: _svd_op(a), _np_svd_packed, samples=_rect_samples, order=2),
    OpInfo("SvdValues", lambda a: _svd_values_op(a), lambda a: np.linalg.svd(a, compute_uv=False),
           samples=_rect_samples, order=2),
    OpInfo("pinv", tf.linalg.pinv, np.linalg.pinv, samples=_rect_samples, order=2, op=None),
    OpInfo("lstsq", tf.linalg.lstsq, lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
           samples=lambda rng, dt: [SampleInput([(rng.uniform(-1, 1, (4, 3)) + np.eye(4, 3) * 2).astype(dt),
                                                 rng.uniform(-1, 1, (4, 2)).astype(dt)])], order=2, op=None),
    OpInfo("SelfAdjointEig", lambda a: _eig_op(a), _np_eig_packed, samples=_symmetric_samples, order=2),
    OpInfo("eigvalsh", tf.linalg.eigvalsh, lambda a: np.linalg.eigvalsh(a), samples=_symmetric_samples, order=2,
           op=None),
    OpInfo("MatrixInverse", tf.linalg.inv, np.linalg.inv, samples=_square_samples, order=2),
    OpInfo("MatrixDeterminant", tf.linalg.det, np.linalg.det, samples=_square_samples, order=2),
    OpInfo("LogAbsDeterminant", lambda a: _log_abs_op(a), lambda a: np.linalg.slogdet(a)[1], samples=_square_samples,
           order=2),
    OpInfo("DeterminantSign", lambda a: _sign_op(a), lambda a: np.linalg.slogdet(a)[0], samples=_square_samples,
           differentiable=False),
    OpInfo("MatrixSolve", tf.linalg.solve,
           lambda a, b, adjoint=False: np.linalg.solve(np.swapaxes(a, -1, -2) if adjoint else a, b),
           samples=_solve_samples, order=2),
    OpInfo("MatrixTriangularSolve", tf.linalg.triangular_solve, _np_triangular, samples=_triangular_samples, order=2),
    OpInfo("Cholesky", lambda a: tf.linalg.cholesky(_sym(a)), lambda a: np.linalg.cholesky(_np_sym(a)),
           samples=_square_samples, order=2),
    OpInfo("logdet", lambda a: tf.linalg.logdet(tf.matmul(a, a, transpose_b=True)),
           lambda a: np.linalg.slogdet(a @ np.swapaxes(a, -1, -2))[1], samples=_square_samples, order=2, op=None),
    OpInfo("cholesky_solve", lambda a, b: tf.linalg.cholesky_solve(tf.linalg.cholesky(_sym(a)), b),
           lambda a, b: np.linalg.solve(_np_sym(a), b),
           samples=lambda rng, dt: [SampleInput([_well_conditioned(rng, (3, 3), dt),
                                                 rng.uniform(-1, 1, size=(3, 2)).astype(dt)])], order=2, op=None),
]

attach_edge_samples(rows, matrix_edges.EDGE_SAMPLES)  # the rows' edge values, in opinfo/matrix_edges.py
