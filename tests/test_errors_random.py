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
