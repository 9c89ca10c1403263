"""keras noise and regularization layers: AlphaDropout, GaussianNoise, GaussianDropout, SpatialDropout1D/2D/3D
and ActivityRegularization. Training vs inference, noise shapes and statistics, the deterministic parts
of the formulas, fit, tracing, configs and model files (values against Keras: test_tf_oracle_keras_layers_more.py)."""
import math

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

L = keras.layers
ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946  # -alpha * scale of SELU


def _alpha_affine(rate):
    a = ((1 - rate) * (1 + rate * ALPHA_P ** 2)) ** -0.5
    return a, -a * ALPHA_P * rate


# (constructor, input shape) for each layer, at a rate (or stddev) of 0.5
LAYERS = {"AlphaDropout": (lambda: L.AlphaDropout(0.5), (4, 6)),
          "GaussianNoise": (lambda: L.GaussianNoise(0.5), (4, 6)),
          "GaussianDropout": (lambda: L.GaussianDropout(0.5), (4, 6)),
          "SpatialDropout1D": (lambda: L.SpatialDropout1D(0.5), (4, 5, 6)),
          "SpatialDropout2D": (lambda: L.SpatialDropout2D(0.5), (4, 3, 5, 6)),
          "SpatialDropout3D": (lambda: L.SpatialDropout3D(0.5), (4, 2, 3, 5, 6)),
          "ActivityRegularization": (lambda: L.ActivityRegularization(l1=0.5), (4, 6))}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_identity_at_inference(name):
    make, shape = LAYERS[name]
    layer = make()
    x = np.random.default_rng(0).normal(size=shape).astype("float32")
    for out in (layer(x), layer(x, training=False)):
        np.testing.assert_array_equal(out.numpy(), x)
    assert layer.compute_output_shape(shape) == shape and layer.supports_masking


@pytest.mark.parametrize("make", [lambda: L.AlphaDropout(0.0), lambda: L.GaussianNoise(0.0),
                                  lambda: L.GaussianDropout(0.0), lambda: L.SpatialDropout1D(0.0)])
def test_zero_rate_is_the_identity_in_training(make):
    x = np.random.default_rng(1).normal(size=(3, 4, 5)).astype("float32")
    np.testing.assert_array_equal(make()(x, training=True).numpy(), x)


@pytest.mark.parametrize("rate", [0.2, 0.5])
def test_alpha_dropout_keeps_a_x_plus_b_and_sets_dropped_to_a_alpha_p_plus_b(rate):
    x = np.linspace(-2, 2, 20000, dtype="float32").reshape(100, 200)
    out = L.AlphaDropout(rate)(x, training=True).numpy()
    a, b = (np.float32(v) for v in _alpha_affine(rate))
    kept = out == a * x + b
    dropped = out == a * np.float32(ALPHA_P) + b
    assert (kept | dropped).all()
    assert abs(dropped.mean() - rate) < 0.02


def test_alpha_dropout_keeps_zero_mean_and_unit_variance():
    z = np.random.default_rng(2).standard_normal((500, 400)).astype("float32")
    out = L.AlphaDropout(0.3)(z, training=True).numpy()
    assert abs(out.mean()) < 0.01 and abs(out.std() - 1) < 0.01


def test_alpha_dropout_noise_shape_shares_the_mask():
    x = np.ones((50, 8), "float32")
    out = L.AlphaDropout(0.5, noise_shape=(None, 1))(x, training=True).numpy()
    assert all(len(np.unique(row)) == 1 for row in out)
    assert len(np.unique(out[:, 0])) == 2
    with pytest.raises(ValueError, match="noise_shape"):
        L.AlphaDropout(0.5, noise_shape=(None, 1, 1))(x, training=True)


def test_gaussian_noise_and_dropout_statistics():
    x = np.ones((400, 500), "float32")
    noise = L.GaussianNoise(0.3)(x, training=True).numpy() - x
    assert abs(noise.mean()) < 0.005 and abs(noise.std() - 0.3) < 0.005
    factor = L.GaussianDropout(0.3)(x, training=True).numpy()
    assert abs(factor.mean() - 1) < 0.005 and abs(factor.std() - math.sqrt(0.3 / 0.7)) < 0.005


def test_noise_in_the_layer_dtype():
    x = np.ones((2, 3))
    for layer in (L.GaussianNoise(0.1, dtype="float64"), L.GaussianDropout(0.1, dtype="float64"),
                  L.AlphaDropout(0.1, dtype="float64")):
        assert layer(x, training=True).dtype == tf.float64


@pytest.mark.parametrize("make,shape,shared", [
    (lambda: L.SpatialDropout1D(0.5), (20, 7, 16), (1,)),
    (lambda: L.SpatialDropout2D(0.5), (20, 3, 4, 16), (1, 2)),
    (lambda: L.SpatialDropout2D(0.5, data_format="channels_first"), (20, 16, 3, 4), (2, 3)),
    (lambda: L.SpatialDropout3D(0.5), (20, 2, 3, 4, 16), (1, 2, 3)),
    (lambda: L.SpatialDropout3D(0.5, data_format="channels_first"), (20, 16, 2, 3, 4), (2, 3, 4))])
def test_spatial_dropout_drops_whole_channels(make, shape, shared):
    out = make()(np.ones(shape, "float32"), training=True).numpy()
    assert set(np.unique(out)) <= {0.0, 2.0}
    np.testing.assert_array_equal(out.min(axis=shared), out.max(axis=shared))  # one value per (sample, channel)
    assert 0.35 < (out == 0).mean() < 0.65


def test_spatial_dropout_rate_one_gives_zeros_and_checks_the_rank():
    np.testing.assert_array_equal(L.SpatialDropout1D(1.0)(np.ones((2, 3, 4), "float32"), training=True).numpy(), 0)
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        L.SpatialDropout2D(0.5)(np.ones((2, 3, 4), "float32"))
    with pytest.raises(ValueError, match="data_format"):
        L.SpatialDropout2D(0.5, data_format="nchw")
    assert isinstance(L.SpatialDropout1D(0.5), L.Dropout)


def test_spatial_dropout_default_data_format_is_the_backend_setting():
    keras.backend.set_image_data_format("channels_first")
    try:
        layer = L.SpatialDropout2D(0.5)
    finally:
        keras.backend.set_image_data_format("channels_last")
    assert layer.data_format == "channels_first" and layer.get_config()["data_format"] == "channels_first"
    assert "data_format" not in L.SpatialDropout1D(0.5).get_config()


@pytest.mark.parametrize("make", [lambda r: L.AlphaDropout(r), lambda r: L.GaussianNoise(r),
                                  lambda r: L.GaussianDropout(r), lambda r: L.SpatialDropout1D(r)])
def test_rates_outside_zero_one_are_refused(make):
    for bad in (-0.1, 1.5, "0.5"):
        with pytest.raises(ValueError):
            make(bad)


def test_alpha_and_gaussian_dropout_at_rate_one():
    x = np.ones((2, 3), "float32")
    for layer in (L.AlphaDropout(1.0), L.GaussianDropout(1.0)):
        np.testing.assert_array_equal(layer(x).numpy(), x)
        with pytest.raises(ValueError, match="rate=1"):
            layer(x, training=True)


def test_activity_regularization_adds_its_penalty_per_sample():
    x = np.arange(-6, 6, dtype="float32").reshape(3, 4) / 3
    layer = L.ActivityRegularization(l1=0.1, l2=0.01)
    expect = (0.1 * np.abs(x).sum() + 0.01 * (x ** 2).sum()) / 3
    for training in (True, False):
        np.testing.assert_array_equal(layer(x, training=training).numpy(), x)
        assert len(layer.losses) == 1  # one loss per call: the next outermost call replaces it
        np.testing.assert_allclose(float(layer.losses[0]), expect, rtol=1e-6)
    with pytest.raises(ValueError, match="l1"):
        L.ActivityRegularization(l1=-1)
    with pytest.raises(TypeError, match="activity_regularizer"):
        L.ActivityRegularization(activity_regularizer="l1")


def test_activity_regularization_counts_in_fit_and_evaluate():
    x = np.arange(-6, 6, dtype="float32").reshape(3, 4) / 3
    model = keras.Sequential([keras.Input((4,)), L.ActivityRegularization(l1=0.1)])
    model.compile(loss="mse", optimizer="sgd")
    expect = 0.1 * np.abs(x).sum() / 3 + (x ** 2).mean()
    np.testing.assert_allclose(model.evaluate(x, np.zeros_like(x), verbose=0), expect, rtol=1e-6)
    model(x)  # after a traced evaluate the losses are its graph's tensors (in Keras too); an eager call refills them
    np.testing.assert_allclose(float(model.losses[0]), 0.1 * np.abs(x).sum() / 3, rtol=1e-6)


def test_fit_trains_with_noise_and_evaluate_without():
    """fit calls the layers with training=True (noise on), evaluate with training=False (the identity)."""
    x = np.random.default_rng(3).normal(size=(64, 4)).astype("float32")
    model = keras.Sequential([keras.Input((4,)), L.GaussianNoise(1.0),
                              L.Dense(4, kernel_initializer="identity", use_bias=False)])
    model.compile(loss="mse", optimizer=keras.optimizers.SGD(0.0))
    history = model.fit(x, x, epochs=1, batch_size=16, verbose=0)
    assert 0.7 < history.history["loss"][0] < 1.3  # E[noise^2] = 1
    assert model.evaluate(x, x, verbose=0) == 0.0


def test_traced_calls_draw_new_noise_for_any_batch():
    for layer in (L.GaussianNoise(0.5), L.GaussianDropout(0.5), L.AlphaDropout(0.5, noise_shape=(None, 1, None)),
                  L.SpatialDropout1D(0.5)):
        f = tf.function(lambda x: layer(x, training=True), input_signature=[tf.TensorSpec([None, 4, 8])])
        a, b = f(tf.ones([3, 4, 8])).numpy(), f(tf.ones([3, 4, 8])).numpy()
        assert not np.array_equal(a, b) and f(tf.ones([5, 4, 8])).shape == (5, 4, 8)


def test_seeded_layers_repeat_after_set_random_seed():
    x = np.ones((8, 16), "float32")

    def draws():
        keras.utils.set_random_seed(5)
        return [make()(x, training=True).numpy() for make in (lambda: L.AlphaDropout(0.3, seed=1),
                                                            lambda: L.GaussianNoise(0.3, seed=2),
                                                            lambda: L.GaussianDropout(0.3))]
    for a, b in zip(draws(), draws()):
        np.testing.assert_array_equal(a, b)


CONFIGS = [(L.AlphaDropout, dict(rate=0.3, noise_shape=(None, 1), seed=4)), (L.GaussianNoise, dict(stddev=0.2, seed=1)),
           (L.GaussianDropout, dict(rate=0.4, seed=None)), (L.SpatialDropout1D, dict(rate=0.25, seed=3)),
           (L.SpatialDropout2D, dict(rate=0.25, data_format="channels_first", seed=None)),
           (L.SpatialDropout3D, dict(rate=0.25, data_format="channels_last", seed=None)),
           (L.ActivityRegularization, dict(l1=0.01, l2=0.2))]


@pytest.mark.parametrize("cls,kwargs", CONFIGS, ids=[c.__name__ for c, _ in CONFIGS])
def test_config_round_trip(cls, kwargs):
    layer = cls(**kwargs, name="noisy")
    config = layer.get_config()
    assert {k: config[k] for k in kwargs} == {k: list(v) if isinstance(v, tuple) else v for k, v in kwargs.items()}
    assert config["name"] == "noisy" and config["dtype"] == "float32"
    again = cls.from_config(config)
    assert type(again) is cls and again.get_config() == config
    restored = keras.saving.deserialize_keras_object(keras.saving.serialize_keras_object(layer))
    assert type(restored) is cls and restored.get_config() == config


def test_model_file_round_trip(tmp_path):
    model = keras.Sequential([keras.Input((5, 4)), L.GaussianNoise(0.1), L.SpatialDropout1D(0.2),
                              L.AlphaDropout(0.1), L.GaussianDropout(0.1), L.ActivityRegularization(l2=0.01),
                              L.Flatten(), L.Dense(1)])
    x = np.random.default_rng(4).normal(size=(2, 5, 4)).astype("float32")
    model.save(tmp_path / "noise.keras")
    loaded = keras.saving.load_model(tmp_path / "noise.keras")
    assert [type(l).__name__ for l in loaded.layers] == [type(l).__name__ for l in model.layers]
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
