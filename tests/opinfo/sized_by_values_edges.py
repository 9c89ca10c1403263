"""Edge samples of the Range and Where rows (opinfo/sized_by_values.py) through their public forms: a range
beyond int32 is int64, an integer dtype takes integer bounds (a Python float is refused: the Range row's
bad calls), and tf.where of a condition alone gives the indices of its true (non-zero) entries."""
import numpy as np

import tapegrad as tf
from opinfo.core import Edge

EDGE_SAMPLES = {
    "Range": lambda: [Edge(2 ** 40, 2 ** 40 + 2).through(tf.range).gives([2 ** 40, 2 ** 40 + 1], dtype="int64")] + [
        Edge(0, 5, 2, dtype=dt).through(tf.range).gives([0, 2, 4], dtype=dt.name) for dt in (tf.int32, tf.int64)],
    "Where": lambda: [
        Edge(np.array([[True, False], [False, True]])).through(tf.where).gives([[0, 0], [1, 1]], dtype="int64"),
        Edge(np.array([0.0, 2.0, -1.0], np.float32)).through(tf.where).gives([[1], [2]]),   # non-zero is true, as TF
        Edge(np.zeros([2, 3], bool)).through(tf.where).gives(np.zeros((0, 2)))],
}
