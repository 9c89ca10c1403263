"""Bad calls of the elementwise rows (opinfo/elementwise.py): InvalidArgumentError naming the op; a Python
float beside an integer tensor is TF's TypeError."""
import operator

import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError


def _ints():
    return tf.constant([1, 2])


def _py_float(fn, *args, **kwargs):
    """A Python float where an int32 tensor's dtype is needed: TF's TypeError "Cannot convert 2.0 to
    EagerTensor of dtype int32", integral floats included."""
    return BadCall(fn, *args, **kwargs).raises(TypeError, "Cannot convert")


def _add():
    return [
        BadCall(operator.add, tf.constant(np.ones((2, 3), np.float32)), tf.constant(np.ones(4, np.float32)))
        .raises(E, r"Add.*\(2, 3\).*\(4,\)"),  # shapes that do not broadcast, both named
        BadCall(operator.add, tf.constant(1.0), "a").raises((E, TypeError)),  # a value with no tensor form
        BadCall(operator.add, tf.constant([1, 2], dtype=tf.int32), np.array([1.5, 2.5])).raises(E),
        _py_float(operator.add, 2.0, _ints()),
        # but t + 1.5 and tf.add pass the float to the kernel (TF converts it as float32), which refuses the dtypes
        BadCall(operator.add, _ints(), 1.5).raises(E), BadCall(tf.add, _ints(), 2.0).raises(E),
    ]


def _exp():
    return [BadCall(tf.exp, tf.constant([1, 2])).raises(E, "Exp.*int32"),
            BadCall(tf._core.op("Exp"), tf.constant(1.0), tf.constant(2.0)).raises(E, "Exp.*expected 1 inputs")]


def _bitwise(fn, name, arity=2):
    """A float or bool operand is refused (the op's row lists the integers only), and two integer dtypes."""
    def calls():
        bad = [BadCall(fn, *[tf.constant(v)] * arity).raises(E, f"{name}: Value for attr 'T' of {t}")
               for v, t in (([1.0], "float32"), ([True], "bool"))]
        if arity == 2:
            bad.append(BadCall(fn, tf.constant([1], tf.uint8), tf.constant([1], tf.int32)).raises(E, name))
        return bad
    return calls


ERROR_INPUTS = {
    "Add": _add, "Exp": _exp,
    "BitwiseAnd": _bitwise(tf.bitwise.bitwise_and, "BitwiseAnd"), "BitwiseOr": _bitwise(tf.bitwise.bitwise_or, "BitwiseOr"),
    "BitwiseXor": _bitwise(tf.bitwise.bitwise_xor, "BitwiseXor"), "LeftShift": _bitwise(tf.bitwise.left_shift, "LeftShift"),
    "RightShift": _bitwise(tf.bitwise.right_shift, "RightShift"), "Invert": _bitwise(tf.bitwise.invert, "Invert", 1),
    "LogicalAnd": lambda: [BadCall(tf.logical_and, tf.constant([1.0]), tf.constant([0.0])).raises(E, "LogicalAnd"),
                           _py_float(operator.and_, tf.constant(True), 1.5)],
    "Select": lambda: [BadCall(tf._core.op("Select"), tf.constant([1.0]), tf.constant([1.0]), tf.constant([2.0]))
                       .raises(E, "Select"),  # the condition must be bool
                       # tf.where converts a Python value to the other operand's dtype
                       _py_float(tf.where, [True, False], _ints(), 1.5),
                       _py_float(tf.where, [True, False], 1.5, _ints())],
    # a Python float beside an integer tensor
    "Sub": lambda: [_py_float(operator.sub, _ints(), 2.0)],
    "Mul": lambda: [_py_float(operator.mul, _ints(), [1.5, 2.0]), _py_float(tf.multiply, _ints(), 1.5)],
    "RealDiv": lambda: [_py_float(operator.truediv, _ints(), 2.5)],
    "Pow": lambda: [_py_float(operator.pow, _ints(), 0.5)],
    "Less": lambda: [_py_float(operator.lt, _ints(), 1.5)],
    "FloorDiv": lambda: [_py_float(operator.floordiv, _ints(), 1.5)],
    "Maximum": lambda: [_py_float(tf.maximum, x=_ints(), y=1.5)],
}
