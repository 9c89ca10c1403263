"""A refused nn op leaves the tape usable (the nn rows' bad calls are in tests/ops/test_op_errors.py)."""
import pytest

import tapegrad as tf

IAE = tf.errors.InvalidArgumentError


def test_sparse_cross_entropy_error_leaves_tape_usable():
    x = tf.ones((2, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(IAE):
            tf.nn.sparse_softmax_cross_entropy_with_logits([0, 9], x)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits([0, 2], x))
    assert tape.gradient(loss, x).shape == (2, 3)
