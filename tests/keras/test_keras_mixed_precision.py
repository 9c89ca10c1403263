"""keras.mixed_precision: dtype policies (Keras's names, errors and layer properties), layers computing in
float16/bfloat16 on float32 weights with float32 gradients, and LossScaleOptimizer's dynamic scale (a
step with non-finite gradients skipped, the scale halved; doubled after dynamic_growth_steps finite
steps), eager and inside tf.function, and compile() wrapping the optimizer under mixed_float16. Keras on
TF's own numbers are compared in tests/oracle/test_tf_oracle_mixed_precision.py."""
import numpy as np
import pytest
import tapegrad as tf
from tapegrad import keras


@pytest.fixture(autouse=True)
def _global_policy():
    yield
    keras.mixed_precision.set_global_policy("float32")


def test_policies():
    p = keras.mixed_precision.Policy("mixed_float16")
    assert (p.name, p.compute_dtype, p.variable_dtype) == ("mixed_float16", "float16", "float32")
    assert keras.mixed_precision.DTypePolicy("mixed_bfloat16").compute_dtype == "bfloat16"
    assert repr(p) == '<DTypePolicy "mixed_float16">' and p == keras.DTypePolicy("mixed_float16")
    assert p.get_config() == {"name": "mixed_float16"} and keras.DTypePolicy.from_config(p.get_config()) == p
    with pytest.raises(ValueError, match="Cannot convert 'int8x' to a mixed precision DTypePolicy"):
        keras.mixed_precision.Policy("int8x")
    with pytest.raises(ValueError, match="Invalid `policy` argument"):
        keras.mixed_precision.set_global_policy(3)
    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    assert keras.mixed_precision.global_policy().name == "mixed_bfloat16"
    assert keras.layers.Dense(2).dtype_policy.name == "mixed_bfloat16"


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_layers_compute_in_the_half_type_on_float32_weights(policy):
    half = tf.as_dtype(policy[len("mixed_"):])
    layer = keras.layers.Dense(3, activation="relu", dtype=policy)
    x = np.random.default_rng(0).normal(size=(4, 5)).astype(np.float32)
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32) ** 2)
    assert y.dtype == half and layer.kernel.dtype == tf.float32 and layer.dtype == tf.float32
    assert (layer.compute_dtype, layer.variable_dtype) == (half.name, "float32")
    assert layer.get_config()["dtype"] == policy
    grads = tape.gradient(loss, layer.trainable_variables)
    assert [g.dtype for g in grads] == [tf.float32, tf.float32]
    k, b = layer.kernel.numpy(), layer.bias.numpy()
    xh = x.astype(half.as_numpy_dtype).astype(np.float32)
    kh = k.astype(half.as_numpy_dtype).astype(np.float32)
    want = np.maximum(xh @ kh + b, 0)
    tol = 3e-2 if policy == "mixed_bfloat16" else 3e-3
    np.testing.assert_allclose(y.numpy().astype(np.float32), want, rtol=tol, atol=tol)
    assert isinstance(layer.kernel, tf.Variable)  # the cast read lasts only for the call


def test_batch_normalization_statistics_stay_float32():
    bn = keras.layers.BatchNormalization(dtype="mixed_float16")
    y = bn(np.ones((4, 3), np.float32) * 2, training=True)
    assert y.dtype == tf.float16 and bn.moving_mean.dtype == tf.float32
    assert np.allclose(bn.moving_mean.numpy(), 0.02)


def _pairs(values, var):
    return [(tf.constant(np.asarray(values, np.float32)), var)]


@pytest.mark.parametrize("traced", [False, True])
def test_loss_scale_optimizer_skips_non_finite_steps_and_grows(traced):
    var = tf.Variable([1.0, 2.0])
    opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=8.0, dynamic_growth_steps=2)
    step = tf.function(lambda g: opt.apply_gradients([(g, var)])) if traced else \
        (lambda g: opt.apply_gradients([(g, var)]))
    assert float(opt.scale_loss(tf.constant(2.0))) == 16.0
    step(tf.constant([8.0, 16.0]))  # unscaled: [1, 2]
    np.testing.assert_allclose(var.numpy(), [0.5, 1.0])
    assert float(opt.dynamic_scale.numpy()) == 8.0 and int(opt.iterations.numpy()) == 1
    step(tf.constant([np.inf, 0.0], tf.float32))  # skipped: the scale halves, nothing moves
    np.testing.assert_allclose(var.numpy(), [0.5, 1.0])
    assert float(opt.dynamic_scale.numpy()) == 4.0 and int(opt.iterations.numpy()) == 1
    step(tf.constant([4.0, 4.0]))
    step(tf.constant([4.0, 4.0]))  # the second finite step in a row: the scale doubles
    np.testing.assert_allclose(var.numpy(), [-0.5, 0.0])
    assert float(opt.dynamic_scale.numpy()) == 8.0 and int(opt.iterations.numpy()) == 3
    step(tf.constant([np.nan, 1.0], tf.float32))
    assert float(opt.dynamic_scale.numpy()) == 4.0 and int(opt.step_counter.numpy()) == 0


def test_loss_scale_optimizer_arguments_and_config():
    inner = keras.optimizers.Adam(0.01)
    opt = keras.optimizers.LossScaleOptimizer(inner)
    assert opt.initial_scale == 2.0 ** 15 and opt.dynamic_growth_steps == 2000 and opt.name == "loss_scale_optimizer"
    assert opt.inner_optimizer is inner and keras.mixed_precision.LossScaleOptimizer is keras.optimizers.LossScaleOptimizer
    np.testing.assert_allclose(float(opt.learning_rate.numpy()), 0.01, rtol=1e-6)
    config = opt.get_config()
    assert config["initial_scale"] == 2.0 ** 15 and config["inner_optimizer"]["class_name"] == "Adam"
    clone = keras.optimizers.LossScaleOptimizer.from_config(config)
    assert type(clone.inner_optimizer) is keras.optimizers.Adam
    with pytest.raises(ValueError, match="no longer supports `dynamic=False`"):
        keras.optimizers.LossScaleOptimizer(inner, dynamic=False)
    with pytest.raises(ValueError, match="does not support `clipnorm`"):
        keras.optimizers.LossScaleOptimizer(inner, clipnorm=1.0)


def test_loss_scale_factor_of_a_plain_optimizer():
    var = tf.Variable([1.0])
    opt = keras.optimizers.SGD(0.5, loss_scale_factor=4.0)
    assert float(opt.scale_loss(tf.constant(3.0))) == 12.0
    opt.apply_gradients([(tf.constant([8.0]), var)])  # the gradient of the scaled loss, divided by 4
    np.testing.assert_allclose(var.numpy(), [0.0])


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_fit_under_a_mixed_policy(policy):
    keras.mixed_precision.set_global_policy(policy)
    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(4),
                              keras.layers.Activation("softmax", dtype="float32")])
    model.compile("adam", "sparse_categorical_crossentropy")
    scaled = isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer)
    assert scaled == (policy == "mixed_float16")  # as Keras: bfloat16 needs no loss scale
    x = np.random.default_rng(2).normal(size=(64, 8)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + 2 * (x[:, 1] > 0)
    history = model.fit(x, y, epochs=8, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict(x[:2], verbose=0).dtype == np.float32
    assert all(w.dtype == tf.float32 for w in model.trainable_weights)
    assert int(model.optimizer.iterations.numpy()) == 32
    no_scale = keras.Sequential([keras.Input((8,)), keras.layers.Dense(2)])
    no_scale.compile("sgd", "mse", auto_scale_loss=False)
    assert not isinstance(no_scale.optimizer, keras.optimizers.LossScaleOptimizer)


@pytest.mark.parametrize("make", [lambda k: k.layers.LSTM(4, return_sequences=True), lambda k: k.layers.GRU(4),
                                  lambda k: k.layers.SimpleRNN(4)], ids=["lstm", "gru", "simple_rnn"])
def test_recurrent_layers_in_float16(make):
    x = np.random.default_rng(5).normal(size=(3, 6, 4)).astype(np.float32)
    keras.mixed_precision.set_global_policy("mixed_float16")
    mixed = make(keras)
    keras.mixed_precision.set_global_policy("float32")
    full = make(keras)
    mixed(x[:1])
    full(x[:1])
    full.set_weights([w.astype(np.float16).astype(np.float32) for w in mixed.get_weights()])
    with tf.GradientTape() as tape:
        y = mixed(x)
        loss = tf.reduce_sum(tf.cast(y, tf.float32))
    assert y.dtype == tf.float16
    grads = tape.gradient(loss, mixed.trainable_variables)
    assert all(g.dtype == tf.float32 for g in grads)
    with tf.GradientTape() as tape:
        want = full(x.astype(np.float16).astype(np.float32))
        loss = tf.reduce_sum(want)
    np.testing.assert_allclose(y.numpy().astype(np.float32), want.numpy(), rtol=1e-2, atol=1e-2)
    for g, w in zip(grads, tape.gradient(loss, full.trainable_variables)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=3e-2, atol=3e-2)
