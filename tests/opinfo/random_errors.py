"""Bad calls of the random rows (opinfo/random.py): each error names the op, or the tf.random function."""
import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError


def _uniform():
    op = tf._core.op("RandomUniform")
    return [BadCall(op, shape=[2, -1], dtype=tf.float32.code, seed=-1).raises(E, "RandomUniform"),
            BadCall(tf.random.uniform, [2], dtype=tf.int32).raises(ValueError, "maxval")] + [
        # the shape as a tensor input (a run-time shape in a relaxed graph) is checked too
        BadCall(op, tf.constant(shape), dtype=0, seed=-1).raises(E, "RandomUniform")
        for shape in [[[2, 3]], [2.0], [-1, 2]]]


def _standard_normal():
    op = tf._core.op("RandomStandardNormal")
    return [BadCall(op, shape=[2], dtype=tf.int32.code, seed=-1).raises(E, "RandomStandardNormal"),
            BadCall(tf.random.normal, [2], dtype=tf.int32).raises(ValueError, "normal")]


ERROR_INPUTS = {"RandomUniform": _uniform, "RandomStandardNormal": _standard_normal}
