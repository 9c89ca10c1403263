"""Convolution and pooling at edge values: NaN and -inf propagate, an empty batch gives an empty result."""
import numpy as np

import tapegrad as tf


def test_edge_values_propagate():
    x = np.array([[[[np.nan], [1.0]], [[2.0], [-np.inf]]]], np.float32)
    assert np.isnan(tf.nn.max_pool2d(x, 2, 2, "VALID").numpy()).all()
    assert np.isnan(tf.nn.avg_pool2d(x, 2, 2, "VALID").numpy()).all()
    assert np.isnan(tf.nn.conv2d(x, np.ones((2, 2, 1, 1), np.float32), 1, "VALID").numpy()).all()
    inf = np.full((1, 2, 2, 1), -np.inf, np.float32)
    assert tf.nn.max_pool2d(inf, 2, 2, "VALID").numpy().item() == -np.inf
    y = tf.nn.conv2d(np.zeros((0, 4, 4, 3), np.float32), np.ones((3, 3, 3, 2), np.float32), 2, "SAME")
    assert y.shape == (0, 2, 2, 2)
