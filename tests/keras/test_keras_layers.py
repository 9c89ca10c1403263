"""keras layers: weights, build, losses, training propagation, initializers, regularizers, constraints."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


def test_dense_forward_matches_numpy_and_activation_by_name():
    layer = keras.layers.Dense(3, activation="elu")
    x = np.random.default_rng(0).normal(size=(4, 5)).astype("float32")
    out = layer(x).numpy()
    z = x @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(out, np.where(z > 0, z, np.expm1(z)), rtol=1e-5, atol=1e-6)
    assert layer.kernel.shape == (5, 3) and [w.path for w in layer.weights][0].endswith("/kernel")


def test_dense_on_3d_input_and_wrong_width():
    layer = keras.layers.Dense(2)
    assert layer(np.ones((2, 3, 4), "float32")).shape == (2, 3, 2)
    with pytest.raises(ValueError, match="last axis"):
        layer(np.ones((2, 5), "float32"))


def test_regularization_losses_one_per_regularized_weight():
    reg = keras.regularizers.l2(0.05)
    model = keras.Sequential([keras.layers.Dense(4, kernel_regularizer=reg, bias_regularizer=keras.regularizers.l1(0.1)),
                              keras.layers.Dense(1, kernel_regularizer=reg)])
    model(np.ones((2, 3), "float32"))
    losses = model.losses
    assert len(losses) == 3
    k0, b0, k1 = model.layers[0].kernel.numpy(), model.layers[0].bias.numpy(), model.layers[1].kernel.numpy()
    np.testing.assert_allclose([float(l) for l in losses],
                               [0.05 * (k0 ** 2).sum(), 0.1 * np.abs(b0).sum(), 0.05 * (k1 ** 2).sum()], rtol=1e-5)


def test_regularization_loss_is_differentiable():
    layer = keras.layers.Dense(2, kernel_regularizer=keras.regularizers.l2(0.5))
    layer(np.ones((1, 2), "float32"))
    with tf.GradientTape() as tape:
        loss = tf.add_n(layer.losses)
    g = tape.gradient(loss, layer.kernel)
    np.testing.assert_allclose(g.numpy(), 2 * 0.5 * layer.kernel.numpy(), rtol=1e-6)


def test_add_loss_cleared_at_each_outer_call():
    class Penalized(keras.layers.Layer):
        def call(self, x):
            self.add_loss(tf.reduce_sum(x))
            return x

    model = keras.Sequential([Penalized(), Penalized()])
    model(np.ones((2, 2), "float32"))
    model(np.ones((2, 2), "float32"))
    assert [float(l) for l in model.losses] == [4.0, 4.0]


def test_training_flag_reaches_nested_layers():
    seen = []

    class Probe(keras.layers.Layer):
        def call(self, x, training=None):
            seen.append(training)
            return x

    class Inner(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.probe = Probe()

        def call(self, x):
            return self.probe(x)

    model = keras.Sequential([Inner()])
    model(np.ones((1, 1), "float32"), training=True)
    model(np.ones((1, 1), "float32"))
    assert seen[-2:] == [True, False]


def test_dropout_training_vs_inference():
    keras.utils.set_random_seed(0)
    layer = keras.layers.Dropout(0.5)
    x = np.ones((200, 50), "float32")
    np.testing.assert_array_equal(layer(x).numpy(), x)
    out = layer(x, training=True).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    assert 0.4 < (out == 0).mean() < 0.6
    with pytest.raises(ValueError):
        keras.layers.Dropout(1.0)


def test_batch_normalization_statistics():
    layer = keras.layers.BatchNormalization(momentum=0.9)
    x = np.random.default_rng(1).normal(3.0, 2.0, size=(64, 3)).astype("float32")
    out = layer(x, training=True).numpy()
    np.testing.assert_allclose(out.mean(0), 0.0, atol=1e-5)
    np.testing.assert_allclose(out.std(0), np.sqrt(x.var(0) / (x.var(0) + 1e-3)), rtol=1e-4)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 + 0.1 * x.var(0), rtol=1e-5)
    inference = layer(x).numpy()
    expect = (x - layer.moving_mean.numpy()) / np.sqrt(layer.moving_variance.numpy() + 1e-3)
    np.testing.assert_allclose(inference, expect, rtol=1e-5, atol=1e-5)
    assert len(layer.trainable_weights) == 2 and len(layer.non_trainable_weights) == 2


def test_flatten_activation_inputlayer():
    x = np.arange(24, dtype="float32").reshape(2, 3, 4)
    assert keras.layers.Flatten()(x).shape == (2, 12)
    np.testing.assert_allclose(keras.layers.Activation("relu")(x - 10).numpy(), np.maximum(x - 10, 0))
    model = keras.Sequential([keras.layers.InputLayer(shape=(3, 4)), keras.layers.Flatten(), keras.layers.Dense(2)])
    assert model.built and model.count_params() == 26


@pytest.mark.parametrize("name", ["he_normal", "he_uniform", "glorot_uniform", "glorot_normal", "random_normal",
                                  "lecun_normal", "orthogonal"])
def test_initializers_seeded_and_scaled(name):
    cls = type(keras.initializers.get(name))
    a, b = cls(seed=3)((200, 100)), cls(seed=3)((200, 100))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    expect_std = {"he_normal": np.sqrt(2 / 200), "he_uniform": np.sqrt(2 / 200), "glorot_uniform": np.sqrt(2 / 300),
                  "glorot_normal": np.sqrt(2 / 300), "random_normal": 0.05, "lecun_normal": np.sqrt(1 / 200)}
    if name in expect_std:
        assert abs(a.numpy().std() / expect_std[name] - 1) < 0.05


def test_set_random_seed_makes_models_reproducible():
    def make():
        keras.utils.set_random_seed(7)
        model = keras.Sequential([keras.layers.Dense(3, kernel_initializer="he_normal"), keras.layers.Dense(1)])
        model(np.ones((1, 2), "float32"))  # weights are created at the first call
        return model

    m1, m2 = make(), make()
    for a, b in zip(m1.get_weights(), m2.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_constraints():
    w = tf.constant(np.array([[3.0, 0.1], [4.0, -0.2]], "float32"))
    np.testing.assert_allclose(keras.constraints.max_norm(1.0)(w).numpy()[:, 0], [0.6, 0.8], rtol=1e-5)
    np.testing.assert_allclose(keras.constraints.max_norm(1.0)(w).numpy()[:, 1], [0.1, -0.2], rtol=1e-5)
    np.testing.assert_allclose(keras.constraints.non_neg()(w).numpy(), [[3.0, 0.1], [4.0, 0.0]])
    np.testing.assert_allclose(np.linalg.norm(keras.constraints.unit_norm()(w).numpy(), axis=0), 1.0, rtol=1e-5)
    layer = keras.layers.Dense(2, kernel_constraint=keras.constraints.non_neg())
    layer(np.ones((1, 2), "float32"))
    assert isinstance(layer.kernel.constraint, keras.constraints.NonNeg)


@pytest.mark.parametrize("name", ["relu", "elu", "selu", "sigmoid", "tanh", "softplus", "gelu", "silu", "softmax",
                                  "linear", "leaky_relu", "relu6", "log_softmax", "softsign"])
def test_activations_by_name(name):
    x = np.linspace(-3, 3, 12).reshape(3, 4).astype("float64")
    ref = {"relu": np.maximum(x, 0), "elu": np.where(x > 0, x, np.expm1(x)), "sigmoid": 1 / (1 + np.exp(-x)),
           "tanh": np.tanh(x), "softplus": np.log1p(np.exp(x)), "silu": x / (1 + np.exp(-x)), "linear": x,
           "relu6": np.clip(x, 0, 6), "leaky_relu": np.where(x > 0, x, 0.2 * x), "softsign": x / (1 + np.abs(x)),
           "softmax": np.exp(x) / np.exp(x).sum(-1, keepdims=True),
           "log_softmax": x - np.log(np.exp(x).sum(-1, keepdims=True))}
    out = keras.activations.get(name)(tf.constant(x)).numpy()
    if name in ref:
        np.testing.assert_allclose(out, ref[name], rtol=1e-6, atol=1e-12)
    with pytest.raises(ValueError, match="Unknown activation"):
        keras.activations.get("nope")


def test_unknown_names_raise():
    for getter in (keras.initializers.get, keras.regularizers.get, keras.constraints.get, keras.losses.get,
                   keras.optimizers.get, keras.metrics.get):
        with pytest.raises(ValueError):
            getter("no_such_thing")
