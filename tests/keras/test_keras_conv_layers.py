"""keras convolution, pooling and reshaping layers: values against NumPy, output shapes, configs, errors."""
import os
import runpy

import numpy as np
import pytest

import tapegrad as tf
from opinfo.conv import (avg_pool_ref, conv2d_ref, conv2d_transpose_ref, depthwise_ref, max_pool_ref)
from tapegrad import keras

L = keras.layers

# (layer class, arguments, input shape): every layer's output shape must equal compute_output_shape's.
SHAPE_CASES = [
    (L.Conv2D, dict(filters=4, kernel_size=3), (2, 7, 6, 3)),
    (L.Conv2D, dict(filters=4, kernel_size=(3, 2), strides=2, padding="same"), (2, 7, 6, 3)),
    (L.Conv2D, dict(filters=2, kernel_size=3, dilation_rate=2, padding="same"), (1, 8, 9, 2)),
    (L.Conv1D, dict(filters=3, kernel_size=3, padding="causal", dilation_rate=2), (2, 9, 2)),
    (L.Conv1D, dict(filters=3, kernel_size=2, strides=2), (2, 9, 2)),
    (L.Conv2DTranspose, dict(filters=3, kernel_size=3, strides=2, padding="same"), (2, 4, 5, 2)),
    (L.Conv2DTranspose, dict(filters=3, kernel_size=3, strides=2), (2, 4, 5, 2)),
    (L.Conv2DTranspose, dict(filters=3, kernel_size=4, strides=3, output_padding=2), (2, 4, 5, 2)),
    (L.DepthwiseConv2D, dict(kernel_size=3, depth_multiplier=2, padding="same"), (2, 6, 6, 3)),
    (L.SeparableConv2D, dict(filters=4, kernel_size=3, depth_multiplier=2, strides=2), (2, 7, 7, 3)),
    (L.MaxPooling2D, dict(), (2, 7, 6, 3)),
    (L.MaxPooling2D, dict(pool_size=3, strides=2, padding="same"), (2, 7, 6, 3)),
    (L.AveragePooling2D, dict(pool_size=(3, 2), strides=1), (2, 7, 6, 3)),
    (L.MaxPooling1D, dict(pool_size=3), (2, 7, 3)),
    (L.AveragePooling1D, dict(pool_size=2, padding="same"), (2, 7, 3)),
    (L.GlobalAveragePooling2D, dict(), (2, 7, 6, 3)),
    (L.GlobalMaxPooling2D, dict(keepdims=True), (2, 7, 6, 3)),
    (L.GlobalAveragePooling1D, dict(keepdims=True), (2, 7, 3)),
    (L.GlobalMaxPooling1D, dict(), (2, 7, 3)),
    (L.ZeroPadding2D, dict(padding=((1, 2), (0, 1))), (2, 3, 4, 2)),
    (L.Cropping2D, dict(cropping=((1, 0), (1, 2))), (2, 5, 6, 2)),
    (L.UpSampling2D, dict(size=(2, 3)), (2, 3, 4, 2)),
    (L.Reshape, dict(target_shape=(-1, 4)), (2, 3, 4, 2)),
]


@pytest.mark.parametrize("cls,kwargs,shape", SHAPE_CASES, ids=[f"{c.__name__}-{i}" for i, (c, _, _) in
                                                                enumerate(SHAPE_CASES)])
def test_output_shape_and_config(cls, kwargs, shape, rng):
    layer = cls(**kwargs)
    y = layer(rng.standard_normal(shape).astype(np.float32))
    assert tuple(layer.compute_output_shape(shape)) == tuple(y.shape)
    assert tuple(layer.compute_output_shape((None,) + shape[1:]))[1:] == tuple(y.shape)[1:]
    config = layer.get_config()
    clone = cls(**{k: v for k, v in config.items() if k != "name"})
    assert clone.get_config() == {**config, "name": clone.name}


def test_conv2d_values_bias_and_activation(rng):
    x = rng.standard_normal((2, 6, 5, 3)).astype(np.float32)
    layer = L.Conv2D(4, (3, 2), strides=(2, 1), padding="same", activation="relu", bias_initializer="ones")
    y = layer(x).numpy()
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 2, 3, 4) and bias.shape == (4,)
    want = np.maximum(conv2d_ref(x.astype(np.float64), kernel, [2, 1], "SAME") + bias, 0)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_conv1d_causal_sees_only_the_past(rng):
    x = rng.standard_normal((1, 8, 2)).astype(np.float32)
    layer = L.Conv1D(3, 3, padding="causal", use_bias=False)
    y = layer(x).numpy()
    x2 = x.copy()
    x2[:, 5:] += 1.0  # changing steps >= 5 leaves outputs 0..4 alone
    np.testing.assert_allclose(layer(x2).numpy()[:, :5], y[:, :5], rtol=1e-6)
    kernel = layer.get_weights()[0]
    padded = np.pad(x, [(0, 0), (2, 0), (0, 0)]).astype(np.float64)
    want = conv2d_ref(padded[:, None], kernel[None], 1, "VALID")[:, 0]
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_is_conv2d_gradient(rng):
    x = rng.standard_normal((2, 3, 4, 2)).astype(np.float32)
    layer = L.Conv2DTranspose(3, 3, strides=2, padding="same", use_bias=False)
    y = layer(x).numpy()
    kernel = layer.get_weights()[0]
    want = conv2d_transpose_ref(x.astype(np.float64), kernel, (2, 6, 8, 3), 2, "SAME")
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_depthwise_and_separable_values(rng):
    x = rng.standard_normal((2, 5, 5, 3)).astype(np.float32)
    dw = L.DepthwiseConv2D(3, depth_multiplier=2, use_bias=False)
    np.testing.assert_allclose(dw(x).numpy(), depthwise_ref(x.astype(np.float64), dw.get_weights()[0]), rtol=1e-5,
                               atol=1e-5)
    sep = L.SeparableConv2D(4, 3, depth_multiplier=2, padding="same", use_bias=False)
    y = sep(x).numpy()
    d, p = sep.get_weights()
    assert [w.name.split(":")[0].rsplit("/", 1)[-1] for w in sep.weights] == ["depthwise_kernel", "pointwise_kernel"]
    want = conv2d_ref(depthwise_ref(x.astype(np.float64), d, 1, "SAME"), p)
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-5)


def test_pooling_values(rng):
    x = rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(L.MaxPooling2D(3, 2, "same")(x).numpy(), max_pool_ref(x64, 3, 2, "SAME"), rtol=1e-6)
    np.testing.assert_allclose(L.AveragePooling2D(2)(x).numpy(), avg_pool_ref(x64, 2, 2, "VALID"), rtol=1e-5)
    np.testing.assert_allclose(L.MaxPooling1D(2)(x[:, 0]).numpy(), max_pool_ref(x64[:, :1], [1, 2], [1, 2],
                                                                                  "VALID")[:, 0], rtol=1e-6)
    np.testing.assert_allclose(L.GlobalAveragePooling2D()(x).numpy(), x64.mean(axis=(1, 2)), rtol=1e-5)
    np.testing.assert_allclose(L.GlobalMaxPooling1D()(x[:, 0]).numpy(), x64[:, 0].max(axis=1), rtol=1e-6)


def test_reshaping_values(rng):
    x = rng.standard_normal((2, 3, 4, 2)).astype(np.float32)
    np.testing.assert_array_equal(L.ZeroPadding2D(((1, 0), (2, 1)))(x).numpy(),
                                  np.pad(x, [(0, 0), (1, 0), (2, 1), (0, 0)]))
    np.testing.assert_array_equal(L.Cropping2D(((1, 1), (0, 2)))(x).numpy(), x[:, 1:2, 0:2])
    np.testing.assert_array_equal(L.UpSampling2D((2, 3))(x).numpy(), x.repeat(2, axis=1).repeat(3, axis=2))
    np.testing.assert_array_equal(L.Reshape((4, -1))(x).numpy(), x.reshape(2, 4, 6))


def test_layer_gradients_reach_every_weight(rng):
    x = tf.constant(rng.standard_normal((2, 8, 8, 3)).astype(np.float32))
    model = keras.models.Sequential([
        L.Conv2D(4, 3, activation="relu"), L.MaxPooling2D(), L.DepthwiseConv2D(2, padding="same"),
        L.SeparableConv2D(3, 1), L.Conv2DTranspose(2, 2, strides=2), L.AveragePooling2D(),
        L.GlobalMaxPooling2D(), L.Dense(1)])
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    assert len(grads) == 11 and all(g is not None and g.shape == v.shape
                                    for g, v in zip(grads, model.trainable_variables))


@pytest.mark.parametrize("traced", [False, True])
def test_small_cnn_learns(traced, rng):
    x = rng.standard_normal((32, 8, 8, 1)).astype(np.float32)
    y = (x[:, :4].mean(axis=(1, 2, 3)) > x[:, 4:].mean(axis=(1, 2, 3))).astype(np.int32)
    keras.utils.set_random_seed(1)
    model = keras.models.Sequential([L.Conv2D(8, 3, activation="relu", padding="same"), L.MaxPooling2D(),
                                     L.Flatten(), L.Dense(2)])
    opt = keras.optimizers.Adam(0.01)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    step = tf.function(step) if traced else step
    first = float(step())
    for _ in range(30):
        last = float(step())
    assert last < 0.5 * first


@pytest.mark.parametrize("make,shape,match", [
    (lambda: L.Conv2D(2, 3), (2, 5, 5), "rank 4"),
    (lambda: L.Conv1D(2, 3), (2, 5, 5, 1), "rank 3"),
    (lambda: L.MaxPooling2D(), (2, 5, 5), "rank 4"),
    (lambda: L.Reshape((7,)), (2, 3, 2), "does not match"),
    (lambda: L.Cropping2D(3), (1, 5, 8, 1), "leaves nothing"),
])
def test_bad_input_names_the_layer_and_shape(make, shape, match):
    layer = make()
    with pytest.raises(ValueError, match=f"{layer.name}.*{match}|{match}.*{layer.name}"):
        layer(np.zeros(shape, np.float32))


def test_channels_must_match_the_built_kernel():
    layer = L.Conv2D(2, 3)
    layer(np.zeros((1, 5, 5, 3), np.float32))
    with pytest.raises(ValueError, match=r"conv2d.*\(1, 5, 5, 4\)"):
        layer(np.zeros((1, 5, 5, 4), np.float32))


@pytest.mark.parametrize("make,error", [
    (lambda: L.Conv2D(0, 3), ValueError), (lambda: L.Conv2D(2, (3, 3, 3)), ValueError),
    (lambda: L.Conv2D(2, 3, padding="full"), ValueError), (lambda: L.MaxPooling2D(strides=0), ValueError),
    (lambda: L.Conv2D(2, 3, data_format="channels_first"), tf.errors.UnimplementedError),
    (lambda: L.UpSampling2D(interpolation="bicubic"), tf.errors.UnimplementedError),
    (lambda: L.Conv2DTranspose(2, 3, strides=2, output_padding=2), ValueError),
])
def test_bad_arguments(make, error):
    with pytest.raises(error):
        make()


def test_cnn_example_learns(capsys):
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "cnn_mnist_shaped.py")
    accuracy = runpy.run_path(path)["main"](n_train=256, epochs=1)  # 4 steps: about 0.6 (chance: 0.1)
    assert accuracy > 0.4 and "test accuracy" in capsys.readouterr().out


@pytest.mark.parametrize("make, name", [
    (lambda m: keras.layers.DepthwiseConv2D(3, depth_multiplier=m), "DepthwiseConv2D"),
    (lambda m: keras.layers.SeparableConv2D(4, 3, depth_multiplier=m), "SeparableConv2D"),
])
@pytest.mark.parametrize("bad", [0, -1, 1.5])
def test_depth_multiplier_must_be_a_positive_int(make, name, bad):
    with pytest.raises(ValueError, match=f"{name}: depth_multiplier must be a positive int, got {bad!r}"):
        make(bad)
    assert make(2).depth_multiplier == 2
