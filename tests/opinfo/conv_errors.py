"""Bad calls of the convolution and pooling rows (opinfo/conv.py): TF's error classes, the message naming
the op (the Python function where TF's Python code refuses first) and, where it matters, the shapes."""
import numpy as np

import tapegrad as tf
from opinfo.core import BadCall

IAE = tf.errors.InvalidArgumentError
X, W = np.zeros((2, 5, 5, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32)


def _naming(call, name, *words, error=IAE):
    """The bad call raises `error`, its message holding the name and each of the words."""
    return call.raises(error, contains=(name, *words))


def _conv2d():
    conv, un = tf.nn.conv2d, tf.errors.UnimplementedError
    return [
        # shapes
        _naming(BadCall(conv, X, W[:, :, :2], 1, "SAME"), "Conv2D", "(2, 5, 5, 3)", "(3, 3, 2, 4)"),  # depths differ
        _naming(BadCall(conv, X[:, :1, :1], W, 1, "VALID"), "Conv2D", "negative", "(2, 1, 1, 3)"),  # output size < 0
        _naming(BadCall(conv, X[0], W, 1, "SAME"), "Conv2D", "(5, 5, 3)"),                          # rank 3 input
        _naming(BadCall(conv, X, W[0], 1, "SAME"), "Conv2D"),                                       # rank 3 filter
        _naming(BadCall(conv, X, W.astype(np.float64), 1, "SAME"), "Conv2D", "float32", "float64"),  # dtypes differ
        _naming(BadCall(conv, X.astype(np.int32), W.astype(np.int32), 1, "SAME"), "Conv2D"),
        # arguments
        _naming(BadCall(conv, X, W, 0, "SAME"), "Conv2D"),
        _naming(BadCall(conv, X, W, [1, 2, 3], "SAME"), "Conv2D"),
        _naming(BadCall(conv, X, W, 1, "same"), "Conv2D"),                                       # TF: upper case only
        _naming(BadCall(conv, X, W, 1, [[0, 0], [1, 1], [1, 1], [1, 0]]), "Conv2D"),             # channel padding
        _naming(BadCall(conv, X, W, [2, 1, 1, 1], "SAME"), "Conv2D", error=un),
        _naming(BadCall(conv, X, W, 1, "SAME", data_format="NCHW"), "conv2d", error=un),
        _naming(BadCall(conv, X, W, "a", "SAME"), "Conv2D", error=TypeError),
        # huge windows: refused before any size overflows
        _naming(BadCall(conv, X, W, 1, "SAME", dilations=2 ** 62), "Conv2D", "dilations"),
        _naming(BadCall(conv, X, W, 1, [[0, 0], [2 ** 62, 2 ** 62], [0, 0], [0, 0]]), "Conv2D"),
        _naming(BadCall(conv, X[:0], np.zeros((2 ** 40, 1, 3, 0), np.float32), 1, "SAME"), "Conv2D"),
    ]


def _conv2d_backprop_input():
    transpose = tf.nn.conv2d_transpose
    return [  # the gradient's shape is checked
        _naming(BadCall(transpose, np.zeros((2, 4, 4, 4), np.float32), W, [2, 5, 5, 3], 1, "VALID"),
                "Conv2DBackpropInput", "(2, 4, 4, 4)", "(2, 3, 3, 4)"),
        _naming(BadCall(transpose, X, W, [2, 5, 5], 1, "VALID"), "conv2d_transpose"),
        _naming(BadCall(transpose, X, W, None, 1, "VALID"), "conv2d_transpose", error=TypeError),
    ]


def _conv2d_backprop_filter():
    f = tf._core.op("Conv2DBackpropFilter")
    return [
        _naming(BadCall(f, X, np.zeros((2, 2, 2, 4), np.float32), filter_sizes=[3, 3, 3, 4], strides=[1, 1],
                        padding="VALID"), "Conv2DBackpropFilter", "(2, 3, 3, 4)"),
        _naming(BadCall(f, X, np.zeros((2, 3, 3, 4), np.float32), filter_sizes=[3, 3, 3], strides=[1, 1],
                        padding="VALID"), "Conv2DBackpropFilter"),
    ]


def _max_pool():
    return [
        _naming(BadCall(tf.nn.max_pool2d, X, 9, 1, "VALID"), "MaxPool", "(2, 5, 5, 3)"),
        _naming(BadCall(tf.nn.max_pool2d, X.astype(np.int32), 2, 2, "VALID"), "MaxPool"),
        _naming(BadCall(tf.nn.max_pool, np.zeros((1, 4, 4, 4, 1), np.float32), 2, 2, "VALID"), "max_pool",
                error=tf.errors.UnimplementedError),
        _naming(BadCall(tf.nn.max_pool2d, X, 2 ** 40, 1, "SAME"), "MaxPool"),  # a huge window
    ]


def _avg_pool():
    return [
        _naming(BadCall(tf.nn.avg_pool2d, X[0], 2, 2, "VALID"), "AvgPool"),
        _naming(BadCall(tf.nn.avg_pool2d, X, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]), "avg_pool2d", error=TypeError),
    ]


ERROR_INPUTS = {
    "Conv2D": _conv2d, "Conv2DBackpropInput": _conv2d_backprop_input, "Conv2DBackpropFilter": _conv2d_backprop_filter,
    "MaxPool": _max_pool, "AvgPool": _avg_pool,
    "DepthwiseConv2dNative": lambda: [_naming(BadCall(tf.nn.depthwise_conv2d, X, W[:, :, :2], [1, 1, 1, 1], "SAME"),
                                              "DepthwiseConv2dNative")],
    "MaxPoolGrad": lambda: [_naming(BadCall(tf._core.op("MaxPoolGrad"), X, np.zeros((2, 3, 3, 3), np.float32),
                                            ksize=[2, 2], strides=[2, 2], padding="VALID"), "MaxPoolGrad")],
}
