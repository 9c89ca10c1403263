"""Bad calls of the reduction rows (opinfo/reduction.py): InvalidArgumentError naming the op and the
input's dtype and shape; the float-only composites refuse integers with a TypeError."""
import functools

import tapegrad as tf
from opinfo.core import BadCall

E = tf.errors.InvalidArgumentError


@functools.cache
def _x():
    return tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


@functools.cache
def _b():
    return tf.constant([[True, False], [False, False]])


def _numeric(fn, op):
    """Sum, Mean, Max, Min, Prod: an axis out of range, and a bool input."""
    return [BadCall(fn, _x(), axis=axis).raises(E, f"{op}: axis .* out of range .*float32\\(2, 3\\)")
            for axis in (2, -3, [0, 5])] + [
        BadCall(fn, _b()).raises(E, f"{op}: expected a numeric tensor, got bool\\(2, 2\\)")]


def _boolean(fn, op):
    return [BadCall(fn, _x()).raises(E, f"{op}: expected a bool tensor, got float32\\(2, 3\\)"),
            BadCall(fn, _b(), axis=2).raises(E, f"{op}: axis 2 is out of range")]


def _arg(fn, op):
    return [
        BadCall(fn, _x(), axis=2).raises(E, f"{op}: axis 2 is out of range for input float32\\(2, 3\\)"),
        BadCall(fn, tf.constant(1.0)).raises(E, f"{op}: axis 0 is out of range for input float32\\(\\)"),
        BadCall(fn, tf.zeros((2, 0)), axis=1).raises(E, f"{op}: reduction axis 1 is empty in input float32\\(2, 0\\)"),
        BadCall(fn, _b()).raises(E, f"{op}: expected a numeric tensor, got bool"),
        BadCall(fn, _x(), output_type=tf.float32).raises(E, f"{op}: output_type must be int32 or int64"),
    ]


def _cumsum():
    return [BadCall(tf.cumsum, _x(), axis=2).raises(E, "Cumsum: axis 2 is out of range for input float32\\(2, 3\\)"),
            BadCall(tf.cumsum, tf.constant(1.0)).raises(E, "Cumsum: axis 0 is out of range for input float32\\(\\)"),
            BadCall(tf.cumsum, _b()).raises(E, "Cumsum: expected a numeric tensor, got bool")]


def _float_only(fn):
    return lambda: [BadCall(fn, tf.constant([1, 2, 3])).raises(TypeError, f"{fn.__name__}: expected a float tensor, "
                                                                          f"got int32")]


def _sum():
    return _numeric(tf.reduce_sum, "Sum") + [
        BadCall(tf.reduce_sum, tf.zeros([2, 3]), axis=2).raises(E, "Sum.*axis 2")]


ERROR_INPUTS = {
    "Sum": _sum,
    **{op: functools.partial(_numeric, fn, op) for fn, op in [
        (tf.reduce_mean, "Mean"), (tf.reduce_max, "Max"), (tf.reduce_min, "Min"), (tf.reduce_prod, "Prod")]},
    "Any": functools.partial(_boolean, tf.reduce_any, "Any"), "All": functools.partial(_boolean, tf.reduce_all, "All"),
    "ArgMax": functools.partial(_arg, tf.argmax, "ArgMax"), "ArgMin": functools.partial(_arg, tf.argmin, "ArgMin"),
    "Cumsum": _cumsum,
    "ProdOthers": lambda: [BadCall(tf._core.op("ProdOthers"), tf.constant(2.0))
                           .raises(E, "ProdOthers: expected a tensor of rank >= 1, got float32\\(\\)")],
    "reduce_logsumexp": _float_only(tf.reduce_logsumexp), "reduce_variance": _float_only(tf.math.reduce_variance),
    "reduce_std": _float_only(tf.math.reduce_std),
}
