"""Edge samples of the Unique rows (opinfo/sets.py): subnormals read as zero, as TF's kernels flush them
(the shape rule counted them apart: InternalError). In float64 1e-40 is normal, so float32 inputs."""
import numpy as np

import tapegrad as tf
from opinfo.core import ANY, Check, Edge

VALUES = [[0.0, 1e-40], [1e-40, -1e-40, 0.0], [-0.0, 2e-40]]
ONE_VALUE = Check("of shape (1,)", lambda y: y.shape == (1,))

EDGE_SAMPLES = {
    # (y, idx): one value, every index 0
    "UniqueValues": lambda: [Edge(np.array(v, np.float32)).through(tf.unique).gives((ONE_VALUE, [0] * len(v)))
                             for v in VALUES],
    # (y, idx, count): one value counted len(v) times
    "UniqueCount": lambda: [Edge(np.array(v, np.float32)).through(tf.unique_with_counts).gives((ANY, ANY, [len(v)]))
                            for v in VALUES],
}
