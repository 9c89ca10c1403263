"""Oracle rows of tf.linalg's square-matrix ops (inv, det, slogdet, logdet, solve, triangular_solve,
cholesky, cholesky_solve)."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import FLOAT, Sample


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
    yield "notpd", Sample([np.array([[1.0, 2.0], [2.0, 1.0]], dtype)], grad=False)
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


MATRIX = [
    Row("linalg.inv", _square_samples(), FLOAT),
    Row("linalg.det", _square_samples(), FLOAT),
    Row("linalg.slogdet", _square_samples(), FLOAT),
    Row("linalg.logdet", _cholesky_samples, FLOAT),
    Row("linalg.solve", _solve_samples, FLOAT),
    Row("linalg.triangular_solve", _triangular_samples, FLOAT),
    Row("linalg.cholesky", _cholesky_samples, FLOAT),
    Row("linalg.cholesky_solve", _cholesky_solve_samples, FLOAT),
    Row("linalg.eigvalsh", _square_samples(_spd), FLOAT),
]
