"""Oracle rows of tf.linalg's square-matrix ops (inv, det, slogdet, logdet, solve, triangular_solve,
cholesky, cholesky_solve)."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import FLOAT, Sample



def _spread_diagonal(shape):
    """1, 2, 3, ... on the main diagonal of a shape[-2] x shape[-1] matrix: distinct singular values."""
    d = np.zeros(shape[-2:])
    k = min(shape[-2:])
    d[np.arange(k), np.arange(k)] = np.arange(1, k + 1)
    return d

def _m(rng, shape, dtype):
    return (rng.uniform(-1, 1, size=shape) + 2.5 * np.eye(shape[-1])).astype(dtype)


def _spd(rng, shape, dtype):
    a = rng.uniform(-1, 1, size=shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _square_samples(make=_m, nan_grad=True):
    def samples(rng, dtype):
        yield "r33", Sample([make(rng, (3, 3), dtype)])
        yield "batch", Sample([make(rng, (2, 4, 4), dtype)])
        yield "one", Sample([make(rng, (1, 1), dtype)])
        yield "empty", Sample([np.zeros((0, 0), dtype)], grad=False)
        yield "emptybatch", Sample([np.zeros((3, 0, 0), dtype)], grad=False)
        yield "nonsquare", Sample([np.ones((2, 3), dtype)])
        yield "rank1", Sample([np.ones((3,), dtype)])
        yield "int", Sample([np.eye(2, dtype=np.int32)])
        yield "singular", Sample([np.array([[1.0, 2.0], [2.0, 4.0]], dtype)], grad=False)
        yield "nan", Sample([np.array([[np.nan, 2.0], [3.0, 4.0]], dtype)], grad=False)
        yield "inf", Sample([np.array([[np.inf, 2.0], [3.0, 4.0]], dtype)], grad=False)
    return samples


def _cholesky_samples(rng, dtype):
    yield "spd", Sample([_spd(rng, (3, 3), dtype)])
    yield "batch", Sample([_spd(rng, (2, 4, 4), dtype)])
    yield "lower_only", Sample([np.array([[4.0, 99.0], [2.0, 5.0]], dtype)])  # the upper triangle is not read
    # (not positive definite: TF's upper triangle is then uninitialized memory, nothing to compare;
    # tests/ops/test_matrix_ops.py checks the NaN lower triangle)
    yield "empty", Sample([np.zeros((0, 0), dtype)], grad=False)
    yield "nonsquare", Sample([np.ones((2, 3), dtype)])
    yield "int", Sample([np.eye(2, dtype=np.int32)])


def _solve_samples(rng, dtype):
    yield "r33", Sample([_m(rng, (3, 3), dtype), rng.uniform(-1, 1, (3, 2)).astype(dtype)])
    yield "adjoint", Sample([_m(rng, (3, 3), dtype), rng.uniform(-1, 1, (3, 2)).astype(dtype)], {"adjoint": True})
    yield "batch", Sample([_m(rng, (2, 3, 3), dtype), rng.uniform(-1, 1, (2, 3, 1)).astype(dtype)])
    yield "norhs", Sample([_m(rng, (2, 2), dtype), np.zeros((2, 0), dtype)], grad=False)
    yield "singular", Sample([np.zeros((2, 2), dtype), np.ones((2, 1), dtype)], grad=False)
    yield "rank", Sample([np.eye(2, dtype=dtype), np.ones((2,), dtype)])
    yield "batchdiff", Sample([np.eye(2, dtype=dtype)[None], np.ones((3, 2, 1), dtype)])
    yield "rows", Sample([np.eye(2, dtype=dtype), np.ones((3, 1), dtype)])


def _triangular_samples(rng, dtype):
    a, b = _m(rng, (3, 3), dtype), rng.uniform(-1, 1, (3, 2)).astype(dtype)
    yield "lower", Sample([a, b])
    yield "upper", Sample([a, b], {"lower": False})
    yield "adjoint", Sample([a, b], {"adjoint": True})
    yield "upper_adjoint", Sample([a, b], {"lower": False, "adjoint": True})
    yield "broadcast", Sample([_m(rng, (1, 3, 3), dtype), rng.uniform(-1, 1, (2, 3, 1)).astype(dtype)])
    yield "zero_diagonal", Sample([np.zeros((2, 2), dtype), np.ones((2, 1), dtype)], grad=False)


def _cholesky_solve_samples(rng, dtype):
    chol = np.linalg.cholesky(_spd(rng, (3, 3), "float64")).astype(dtype)
    yield "r33", Sample([chol, rng.uniform(-1, 1, (3, 2)).astype(dtype)])
    yield "batch", Sample([np.stack([chol, chol]), rng.uniform(-1, 1, (2, 3, 1)).astype(dtype)])


def _rect(rng, shape, dtype):
    return (rng.uniform(-1, 1, size=shape) + _spread_diagonal(shape)).astype(dtype)


def _svd_values_samples(rng, dtype):
    # compute_uv=False only: the vectors' signs are a convention (tapegrad fixes them, TF does not)
    for label, shape in [("tall", (3, 2)), ("wide", (2, 4)), ("batch", (2, 3, 3))]:
        yield label, Sample([_rect(rng, shape, dtype)], {"compute_uv": False})
    yield "empty", Sample([np.zeros((0, 3), dtype)], {"compute_uv": False}, grad=False)
    yield "nan", Sample([np.array([[np.nan, 1.0], [1.0, 2.0]], dtype)], {"compute_uv": False}, grad=False)
    yield "rank1", Sample([np.ones((3,), dtype)], {"compute_uv": False})


def _rect_samples(rng, dtype):
    for label, shape in [("tall", (3, 2)), ("wide", (2, 4)), ("batch", (2, 3, 3))]:
        yield label, Sample([_rect(rng, shape, dtype)])


def _rank_samples(rng, dtype):
    yield "full", Sample([_rect(rng, (3, 3), dtype)])
    yield "deficient", Sample([np.array([[1.0, 2.0], [2.0, 4.0]], dtype)])
    yield "zero", Sample([np.zeros((2, 3), dtype)])
    yield "tol", Sample([np.diag([3.0, 0.5, 1e-3]).astype(dtype)], {"tol": 0.1})


def _lstsq_samples(rng, dtype):
    yield "tall", Sample([_rect(rng, (4, 3), dtype), rng.uniform(-1, 1, (4, 2)).astype(dtype)])
    yield "reg", Sample([_rect(rng, (4, 3), dtype), rng.uniform(-1, 1, (4, 1)).astype(dtype)], {"l2_regularizer": 0.5})
    yield "batch", Sample([_rect(rng, (2, 3, 3), dtype), rng.uniform(-1, 1, (2, 3, 1)).astype(dtype)])


MATRIX = [
    Row("linalg.inv", _square_samples(), FLOAT, opinfo="MatrixInverse"),
    Row("linalg.det", _square_samples(), FLOAT, opinfo="MatrixDeterminant"),
    Row("linalg.slogdet", _square_samples(), FLOAT),
    Row("linalg.logdet", _cholesky_samples, FLOAT, opinfo="logdet"),
    Row("linalg.solve", _solve_samples, FLOAT, opinfo="MatrixSolve"),
    Row("linalg.triangular_solve", _triangular_samples, FLOAT, opinfo="MatrixTriangularSolve"),
    Row("linalg.cholesky", _cholesky_samples, FLOAT, opinfo="Cholesky"),
    Row("linalg.cholesky_solve", _cholesky_solve_samples, FLOAT, opinfo="cholesky_solve"),
    Row("linalg.eigvalsh", _square_samples(_spd), FLOAT, opinfo="eigvalsh"),
    Row("linalg.svd", _svd_values_samples, FLOAT),
    Row("linalg.pinv", _rect_samples, FLOAT, opinfo="pinv"),
    Row("linalg.matrix_rank", _rank_samples, FLOAT, grad=False),
    Row("linalg.lstsq", _lstsq_samples, FLOAT, opinfo="lstsq"),
]
