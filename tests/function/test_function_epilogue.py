"""Epilogue fusion in traced graphs (Note [Epilogue fusion] in cpp/graph/epilogue.cpp): a Conv2D or
MatMul with its bias add and relu runs as one node and gives exactly the values of the three ops."""
import numpy as np
import pytest

import tapegrad as tf


def _text(f, *args):
    return f.get_concrete_function(*args).graph.to_text()


def _conv(x, w, b):
    return tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + b)


def _dense(x, w, b):
    return tf.nn.relu(tf.matmul(x, w) + b)


def _data(rng, dtype, conv, nan=False):
    if conv:
        x, w, b = rng.normal(size=(3, 7, 6, 5)), rng.normal(size=(3, 3, 5, 16)), rng.normal(size=16)
    else:
        x, w, b = rng.normal(size=(9, 12)), rng.normal(size=(12, 20)), rng.normal(size=20)
    if nan:
        x[0, 1] = np.nan
    return [tf.constant(a.astype(dtype)) for a in (x, w, b)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layer,members", [(_conv, "Conv2D, Add, Relu"), (_dense, "MatMul, Add, Relu")])
def test_fused_values_are_the_ops_values(layer, members, dtype, rng):
    args = _data(rng, dtype, layer is _conv)
    f = tf.function(layer)
    assert f"Fused[{members}]" in _text(f, *args)
    want = layer(*args).numpy()  # eager: the ops one by one
    np.testing.assert_array_equal(f(*args).numpy(), want)
    assert (want == 0).any() and (want > 0).any()


@pytest.mark.parametrize("layer", [_conv, _dense])
def test_nan_propagates_through_the_fused_relu(layer, rng):
    args = _data(rng, np.float32, layer is _conv, nan=True)
    got = tf.function(layer)(*args).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(layer(*args).numpy()))
    assert np.isnan(got).any()


def test_the_large_convolution_paths_fuse_too(rng):
    # im2col + GEMM in chunks of images on both threads, the direct small-K kernel, a 1x1 filter.
    for x_shape, w_shape in [((16, 20, 20, 24), (3, 3, 24, 32)), ((16, 20, 20, 1), (3, 3, 1, 32)),
                             ((4, 9, 9, 8), (1, 1, 8, 12))]:
        x, w = rng.normal(size=x_shape).astype(np.float32), rng.normal(size=w_shape).astype(np.float32)
        b = rng.normal(size=w_shape[3]).astype(np.float32)
        args = [tf.constant(a) for a in (x, w, b)]
        f = tf.function(_conv)
        assert "Fused[Conv2D, Add, Relu]" in _text(f, *args)
        np.testing.assert_array_equal(f(*args).numpy(), _conv(*args).numpy())


def test_bias_only_and_relu_only():
    x, w, b = tf.constant([[1.0, -2.0]]), tf.constant([[1.0, 0.0], [0.0, 1.0]]), tf.constant([0.5, -0.5])
    biased = tf.function(lambda x, w, b: tf.matmul(x, w) + b)
    assert "Fused[MatMul, Add]" in _text(biased, x, w, b)
    np.testing.assert_array_equal(biased(x, w, b).numpy(), [[1.5, -2.5]])
    relu = tf.function(lambda x, w: tf.nn.relu(tf.matmul(x, w)))
    assert "Fused[MatMul, Relu]" in _text(relu, x, w)
    np.testing.assert_array_equal(relu(x, w).numpy(), [[1.0, 0.0]])


def test_what_is_not_fused(rng):
    x, w, b = _data(rng, np.float32, False)
    full_bias = tf.constant(rng.normal(size=(9, 20)).astype(np.float32))
    both = tf.function(lambda x, w: (tf.matmul(x, w), tf.nn.relu(tf.matmul(x, w) + 1.0)))
    not_vector = tf.function(lambda x, w, c: tf.nn.relu(tf.matmul(x, w) + c))
    v = tf.Variable(tf.zeros([20]))

    def assign_between(x, w):
        y = tf.matmul(x, w)  # the product must not move past the assignment its bias reads around
        v.assign(tf.ones([20]))
        return y + v
    between = tf.function(assign_between)
    for f, args in [(both, (x, w)), (not_vector, (x, w, full_bias)), (between, (x, w))]:
        assert "Fused[MatMul" not in _text(f, *args)
    np.testing.assert_allclose(between(x, w).numpy(), tf.matmul(x, w).numpy() + 1, rtol=1e-6)


def test_fusion_off_keeps_the_ops(monkeypatch, rng):
    monkeypatch.setenv("TAPEGRAD_FUSION", "off")
    args = _data(rng, np.float32, True)
    assert "Fused" not in _text(tf.function(_conv), *args)


def test_training_step_gradients_match_eager(rng):
    # The backward's ReluGrad reads the relu's output (the same mask) so the bias add can fuse.
    args = _data(rng, np.float64, True)

    def grads(x, w, b):
        with tf.GradientTape() as tape:
            tape.watch([x, w, b])
            y = _conv(x, w, b)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, [x, w, b])
    f = tf.function(grads)
    text = _text(f, *args)
    assert "Fused[Conv2D, Add, Relu]" in text and "ReluGrad" in text
    for got, want in zip(f(*args), grads(*args)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)


def test_function_called_under_a_tape_differentiates(rng):
    x, w, b = _data(rng, np.float64, False)
    f = tf.function(_dense)
    f(x, w, b)
    with tf.GradientTape() as tape:
        tape.watch([x, w, b])
        loss = tf.reduce_sum(f(x, w, b) ** 2)
    got = tape.gradient(loss, [x, w, b])
    with tf.GradientTape() as tape:
        tape.watch([x, w, b])
        loss = tf.reduce_sum(_dense(x, w, b) ** 2)
    for g, want in zip(got, tape.gradient(loss, [x, w, b])):
        np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-12)


def test_relaxed_shapes_run_the_fused_node(rng):
    spec = [tf.TensorSpec([None, 7, 6, 5], tf.float32), tf.TensorSpec([3, 3, 5, 16], tf.float32),
            tf.TensorSpec([16], tf.float32)]
    f = tf.function(_conv, input_signature=spec)
    _, w, b = _data(rng, np.float32, True)
    assert "Fused[Conv2D, Add, Relu]" in f.get_concrete_function().graph.to_text()
    for n in (3, 1, 4, 0):
        xn = tf.constant(rng.normal(size=(n, 7, 6, 5)).astype(np.float32))
        got = f(xn, w, b)
        assert got.shape == (n, 7, 6, 16)
        np.testing.assert_array_equal(got.numpy(), _conv(xn, w, b).numpy())


def test_a_bias_that_does_not_fit_at_run_time_gets_the_adds_error():
    # A graph relaxed after fusion serves other shapes; where the bias no longer fits the product
    # the fused node runs its members, and the Add refuses as it would unfused.
    f = tf.function(_dense, reduce_retracing=True)
    x = tf.ones([3, 4])
    f(x, tf.ones([4, 5]), tf.ones([5]))
    f(x, tf.ones([4, 7]), tf.ones([7]))
    assert "Fused[MatMul, Add, Relu]" in _text(f, x, tf.ones([4, 5]), tf.ones([5]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Add"):
        f(x, tf.ones([4, 5]), tf.ones([7]))
