"""Bad inputs to the convolution and pooling ops raise TF's error classes naming the op and the shapes."""
import numpy as np
import pytest

import tapegrad as tf

IAE = tf.errors.InvalidArgumentError
X, W = np.zeros((2, 5, 5, 3), np.float32), np.zeros((3, 3, 3, 4), np.float32)


def _raises(op_name, fn, *args, error=IAE, **kwargs):
    with pytest.raises(error) as e:
        fn(*args, **kwargs)
    assert op_name in str(e.value), str(e.value)
    return str(e.value)


def test_conv2d_shape_errors_name_the_shapes():
    msg = _raises("Conv2D", tf.nn.conv2d, X, W[:, :, :2], 1, "SAME")              # depth mismatch
    assert "(2, 5, 5, 3)" in msg and "(3, 3, 2, 4)" in msg
    msg = _raises("Conv2D", tf.nn.conv2d, X[:, :1, :1], W, 1, "VALID")            # negative output size
    assert "negative" in msg and "(2, 1, 1, 3)" in msg
    msg = _raises("Conv2D", tf.nn.conv2d, X[0], W, 1, "SAME")                     # rank 3 input
    assert "(5, 5, 3)" in msg
    _raises("Conv2D", tf.nn.conv2d, X, W[0], 1, "SAME")                           # rank 3 filter
    msg = _raises("Conv2D", tf.nn.conv2d, X, W.astype(np.float64), 1, "SAME")     # dtypes differ
    assert "float32" in msg and "float64" in msg
    _raises("Conv2D", tf.nn.conv2d, X.astype(np.int32), W.astype(np.int32), 1, "SAME")


def test_conv2d_argument_errors():
    _raises("Conv2D", tf.nn.conv2d, X, W, 0, "SAME")
    _raises("Conv2D", tf.nn.conv2d, X, W, [1, 2, 3], "SAME")
    _raises("Conv2D", tf.nn.conv2d, X, W, 1, "same")                              # TF: upper case only
    _raises("Conv2D", tf.nn.conv2d, X, W, 1, [[0, 0], [1, 1], [1, 1], [1, 0]])    # channel padding
    _raises("Conv2D", tf.nn.conv2d, X, W, [2, 1, 1, 1], "SAME", error=tf.errors.UnimplementedError)
    _raises("conv2d", tf.nn.conv2d, X, W, 1, "SAME", data_format="NCHW", error=tf.errors.UnimplementedError)
    _raises("Conv2D", tf.nn.conv2d, X, W, "a", "SAME", error=TypeError)


def test_backprop_ops_check_their_gradient_shape():
    msg = _raises("Conv2DBackpropInput", tf.nn.conv2d_transpose, np.zeros((2, 4, 4, 4), np.float32), W,
                  [2, 5, 5, 3], 1, "VALID")
    assert "(2, 4, 4, 4)" in msg and "(2, 3, 3, 4)" in msg
    _raises("conv2d_transpose", tf.nn.conv2d_transpose, X, W, [2, 5, 5], 1, "VALID")
    _raises("conv2d_transpose", tf.nn.conv2d_transpose, X, W, None, 1, "VALID", error=TypeError)
    f = tf._core.op("Conv2DBackpropFilter")
    msg = _raises("Conv2DBackpropFilter", f, X, np.zeros((2, 2, 2, 4), np.float32), filter_sizes=[3, 3, 3, 4],
                  strides=[1, 1], padding="VALID")
    assert "(2, 3, 3, 4)" in msg
    _raises("Conv2DBackpropFilter", f, X, np.zeros((2, 3, 3, 4), np.float32), filter_sizes=[3, 3, 3],
            strides=[1, 1], padding="VALID")


def test_depthwise_and_pooling_errors():
    _raises("DepthwiseConv2dNative", tf.nn.depthwise_conv2d, X, W[:, :, :2], [1, 1, 1, 1], "SAME")
    msg = _raises("MaxPool", tf.nn.max_pool2d, X, 9, 1, "VALID")
    assert "(2, 5, 5, 3)" in msg
    _raises("AvgPool", tf.nn.avg_pool2d, X[0], 2, 2, "VALID")
    _raises("MaxPool", tf.nn.max_pool2d, X.astype(np.int32), 2, 2, "VALID")
    _raises("avg_pool2d", tf.nn.avg_pool2d, X, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]], error=TypeError)
    _raises("max_pool", tf.nn.max_pool, np.zeros((1, 4, 4, 4, 1), np.float32), 2, 2, "VALID",
            error=tf.errors.UnimplementedError)
    _raises("MaxPoolGrad", tf._core.op("MaxPoolGrad"), X, np.zeros((2, 3, 3, 3), np.float32), ksize=[2, 2],
            strides=[2, 2], padding="VALID")


def test_edge_values_propagate():
    x = np.array([[[[np.nan], [1.0]], [[2.0], [-np.inf]]]], np.float32)
    assert np.isnan(tf.nn.max_pool2d(x, 2, 2, "VALID").numpy()).all()
    assert np.isnan(tf.nn.avg_pool2d(x, 2, 2, "VALID").numpy()).all()
    assert np.isnan(tf.nn.conv2d(x, np.ones((2, 2, 1, 1), np.float32), 1, "VALID").numpy()).all()
    inf = np.full((1, 2, 2, 1), -np.inf, np.float32)
    assert tf.nn.max_pool2d(inf, 2, 2, "VALID").numpy().item() == -np.inf
    y = tf.nn.conv2d(np.zeros((0, 4, 4, 3), np.float32), np.ones((3, 3, 3, 2), np.float32), 2, "SAME")
    assert y.shape == (0, 2, 2, 2)


def test_huge_windows_are_refused_before_any_size_overflows():
    msg = _raises("Conv2D", tf.nn.conv2d, X, W, 1, "SAME", dilations=2 ** 62)
    assert "dilations" in msg
    _raises("MaxPool", tf.nn.max_pool2d, X, 2 ** 40, 1, "SAME")
    _raises("Conv2D", tf.nn.conv2d, X, W, 1, [[0, 0], [2 ** 62, 2 ** 62], [0, 0], [0, 0]])
    _raises("Conv2D", tf.nn.conv2d, X[:0], np.zeros((2 ** 40, 1, 3, 0), np.float32), 1, "SAME")
