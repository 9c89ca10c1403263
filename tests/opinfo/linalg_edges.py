"""Edge samples of the norm rows (opinfo/linalg.py): the Euclidean norm's gradient at zero is exactly 0, an
infinite global norm gives NaN, and a small one leaves the tensors alone."""
import numpy as np

import tapegrad as tf
from opinfo.core import Edge

ZEROS = np.zeros((2, 2))


def _global_norm_of_x_none_x(x):
    return tf.linalg.global_norm([x, None, x])


def _clip_t_and_none(t):
    return tf.clip_by_global_norm([t, None], 1.0)


def _clip_t(t):
    return tf.clip_by_global_norm([t], 1.0)


EDGE_SAMPLES = {
    "norm_at_zero": lambda: [Edge(ZEROS).gives(0.0).and_grad(ZEROS),
                             Edge(ZEROS, axis=[0, 1]).gives(0.0).and_grad(ZEROS)],
    "global_norm": lambda: [Edge(ZEROS).through(_global_norm_of_x_none_x).gives(0.0).and_grad(ZEROS)],
    "clip_by_norm": lambda: [Edge(ZEROS, 1.0).gives(ZEROS).and_grad(np.ones((2, 2)))],
    "clip_by_global_norm": lambda: [
        # (clipped, global norm): an infinite norm clips to NaN and passes None through
        Edge(np.array([np.inf, 1.0], np.float32)).through(_clip_t_and_none).gives(((np.full(2, np.nan), None), np.inf)),
        Edge(np.array([0.3, 0.4], np.float32)).through(_clip_t).gives((([0.3, 0.4],), 0.5), rtol=1e-6)],
}
