"""Edge samples of the SVD rows (opinfo/matrix.py): a matrix holding inf or NaN gives NaN everywhere (TF's
result; LAPACK never returned on the inf)."""
import numpy as np

import tapegrad as tf
from opinfo.core import Edge


def _bad_matrices():
    return [np.array([[bad, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], dt)
            for dt in (np.float32, np.float64) for bad in (np.inf, -np.inf, np.nan)]


def _nan(*shape):
    return np.full(shape, np.nan)


EDGE_SAMPLES = {
    "Svd": lambda: [Edge(a).through(tf.linalg.svd).gives((_nan(3), _nan(3, 3), _nan(3, 3))) for a in _bad_matrices()],
    "SvdValues": lambda: [Edge(a, compute_uv=False).through(tf.linalg.svd).gives(_nan(3)) for a in _bad_matrices()],
}
