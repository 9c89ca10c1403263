"""Bad inputs to the random ops and tf.random: each error names the op or function."""
import pytest

import tapegrad as tf


def test_random_op_errors_name_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match="RandomUniform"):
        tf._core.op("RandomUniform")(shape=[2, -1], dtype=tf.float32.code, seed=-1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="RandomStandardNormal"):
        tf._core.op("RandomStandardNormal")(shape=[2], dtype=tf.int32.code, seed=-1)
    with pytest.raises(ValueError, match="normal"):
        tf.random.normal([2], dtype=tf.int32)
    with pytest.raises(ValueError, match="maxval"):
        tf.random.uniform([2], dtype=tf.int32)


@pytest.mark.parametrize("shape", [[[2, 3]], [2.0], [-1, 2]])
def test_a_shape_tensor_input_is_checked(shape):
    # RandomUniform's shape as a tensor input (a run-time shape in a relaxed graph)
    with pytest.raises(tf.errors.InvalidArgumentError, match="RandomUniform"):
        tf._core.op("RandomUniform")(tf.constant(shape), dtype=0, seed=-1)
