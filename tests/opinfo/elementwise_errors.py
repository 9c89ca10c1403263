"""Bad calls of the elementwise rows (opinfo/elementwise.py): InvalidArgumentError naming the op."""
import operator

import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError


def _add():
    return [
        BadCall(operator.add, tf.constant(np.ones((2, 3), np.float32)), tf.constant(np.ones(4, np.float32)))
        .raises(E, r"Add.*\(2, 3\).*\(4,\)"),  # shapes that do not broadcast, both named
        BadCall(operator.add, tf.constant(1.0), "a").raises((E, TypeError)),  # a value with no tensor form
        BadCall(operator.add, tf.constant([1, 2], dtype=tf.int32), np.array([1.5, 2.5])).raises(E),
    ]


def _exp():
    return [BadCall(tf.exp, tf.constant([1, 2])).raises(E, "Exp.*int32"),
            BadCall(tf._core.op("Exp"), tf.constant(1.0), tf.constant(2.0)).raises(E, "Exp.*expected 1 inputs")]


ERROR_INPUTS = {
    "Add": _add, "Exp": _exp,
    "LogicalAnd": lambda: [BadCall(tf.logical_and, tf.constant([1.0]), tf.constant([0.0])).raises(E, "LogicalAnd")],
    "Select": lambda: [BadCall(tf._core.op("Select"), tf.constant([1.0]), tf.constant([1.0]), tf.constant([2.0]))
                       .raises(E, "Select")],  # the condition must be bool
}
