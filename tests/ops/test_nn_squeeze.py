"""The nn ops' squeeze (tapegrad/_ops/nn/_common.py) is tf.squeeze for a tensor and a list of ints: the
same result, and for an axis out of range or of a size other than 1 the same error and message."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad._ops.nn._common import squeeze

SHAPES = [(1, 3, 1), (2, 1), (1,), (), (1, 1, 1, 2), (0, 1)]
AXES = [None, [], [0], [-1], [2], [0, 2], [-3, 2], [0, 0], [0, -3], [1], [3], [-4], [5, 0], [-2, -1]]


def outcome(fn, x, axes):
    try:
        y = fn(x, axes)
    except Exception as e:  # noqa: BLE001 -- the class and message are compared
        return type(e), str(e)
    return y.dtype, tuple(y.shape), y.numpy().tolist()


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("axes", AXES, ids=str)
def test_squeeze_is_tf_squeeze(shape, axes):
    x = tf.constant(np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))
    assert outcome(squeeze, x, axes) == outcome(tf.squeeze, x, axes)


def test_bad_axes_raise_tf_squeeze_errors():
    x = tf.zeros([1, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Squeeze: cannot squeeze axis 1 of shape \(1, 3\)$"):
        squeeze(x, [1])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Squeeze: cannot squeeze axis 4 of shape \(1, 3\)$"):
        squeeze(x, [4])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"^Squeeze: cannot squeeze axis -1 of shape \(1, 3\)$"):
        squeeze(x, [-3])


def test_traced_and_gradient_as_tf_squeeze():
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(1, 6, 1))
    traced = tf.function(lambda t: squeeze(t * 2.0, [0, -1]))
    np.testing.assert_array_equal(traced(x).numpy(), tf.squeeze(x * 2.0, [0, -1]).numpy())
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        mine, theirs = squeeze(x * x, [2]), tf.squeeze(x * x, [2])
    np.testing.assert_array_equal(tape.gradient(mine, x).numpy(), tape.gradient(theirs, x).numpy())
