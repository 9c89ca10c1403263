"""Oracle rows of tf.math's rint, ndtri, erfc, confusion_matrix and bincount."""
import numpy as np

from tf_oracle.rows import Row
from tf_oracle.samples import DT, FLOAT, INT, Sample


def _rint(rng, dtype):
    yield "halves", Sample([np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5], dtype)], grad=False)
    yield "edges", Sample([np.array([-0.0, 0.49, 2.51, -7.2, np.inf, -np.inf, np.nan], dtype)], grad=False)


def _ndtri(rng, dtype):
    yield "central", Sample([np.array([0.01, 0.2, 0.5, 0.7, 0.975], dtype)])
    yield "tails", Sample([np.array([1e-30, 1e-12, 1e-5, 9.9e-4, 0.999, 1 - 1e-6], dtype)], grad=False)
    yield "edges", Sample([np.array([0.0, 1.0, -0.1, 1.1, np.nan], dtype)], grad=False)


def _erfc(rng, dtype):
    yield "small", Sample([np.array([-1.9, -0.3, 0.0, 0.4, 1.5, 2.5], dtype)])
    yield "tails", Sample([np.array([-30.0, -5.0, 3.0, 5.0, 9.0, 12.0, 26.0], dtype)], grad=False)
    yield "edges", Sample([np.array([np.inf, -np.inf, np.nan, -2.0, 2.0], dtype)], grad=False)


def _confusion(rng, dtype):
    labels, preds = np.array([1, 2, 4, 0, 2], dtype), np.array([2, 2, 4, 0, 1], dtype)
    yield "inferred", Sample([labels, preds], grad=False)
    yield "classes", Sample([labels, preds], {"num_classes": 6}, grad=False)
    yield "weights", Sample([labels, preds], {"weights": np.array([1., 2., 3., 4., 5.], np.float32)}, grad=False)
    yield "float", Sample([labels, preds], {"num_classes": 5, "dtype": DT("float64")}, grad=False)
    yield "negative", Sample([np.array([-1, 2], dtype), np.array([2, 2], dtype)], grad=False)
    yield "bound", Sample([labels, preds], {"num_classes": 3}, grad=False)


def _bincount(rng, dtype):
    arr = np.array([1, 1, 3, 0, 7, 3], dtype)
    yield "plain", Sample([arr], grad=False)
    yield "minlength", Sample([arr], {"minlength": 10}, grad=False)
    yield "maxlength", Sample([arr], {"maxlength": 4}, grad=False)
    yield "weights", Sample([arr], {"weights": np.arange(6, dtype=np.float64)}, grad=False)
    yield "binary", Sample([arr], {"binary_output": True, "dtype": DT("int64")}, grad=False)
    yield "rows", Sample([arr.reshape(2, 3)], {"axis": -1}, grad=False)
    yield "rows_binary", Sample([arr.reshape(2, 3)], {"axis": -1, "binary_output": True}, grad=False)
    yield "empty", Sample([np.zeros(0, dtype)], grad=False)
    yield "negative", Sample([np.array([1, -1], dtype)], grad=False)


EXTRA = [
    Row("math.rint", _rint, FLOAT, grad=False, signed_zeros=True),
    Row("math.ndtri", _ndtri, FLOAT),
    Row("math.erfc", _erfc, FLOAT, opinfo="math.erfc"),
    Row("math.confusion_matrix", _confusion, INT),
    Row("math.bincount", _bincount, INT),
]
