"""keras.layers.UnitNormalization, RMSNormalization, Identity, Wrapper, the functional merge forms and
layers.serialize / deserialize, against NumPy; compared with Keras in
tests/oracle/test_tf_oracle_keras_norm_identity.py."""
import numpy as np
import pytest

import tapegrad as tf

keras = tf.keras
X = np.random.default_rng(1).normal(size=(2, 3, 4)).astype(np.float32)


def test_unit_normalization():
    x = X.copy()
    x[1, 2] = 0.0
    out = keras.layers.UnitNormalization()(x).numpy()
    np.testing.assert_allclose(out, x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12), rtol=1e-6)
    assert (out[1, 2] == 0).all()
    both = keras.layers.UnitNormalization(axis=[1, 2])(X).numpy()
    np.testing.assert_allclose(np.sqrt((both ** 2).sum(axis=(1, 2))), 1.0, rtol=1e-6)
    with pytest.raises(TypeError, match="axis"):
        keras.layers.UnitNormalization(axis="last")


def test_rms_normalization_and_its_scale():
    layer = keras.layers.RMSNormalization(epsilon=1e-3)
    layer(X)
    scale = np.array([0.5, 1.0, 2.0, -1.0], np.float32)
    layer.weights[0].assign(scale)
    want = X / np.sqrt((X.astype(np.float64) ** 2).mean(-1, keepdims=True) + 1e-3) * scale
    np.testing.assert_allclose(layer(X).numpy(), want, rtol=1e-5)
    assert layer.get_config()["axis"] == [-1] and layer.trainable_weights[0].shape == (4,)
    x = tf.constant(X)
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(layer(x))
    g_x, g_scale = tape.gradient(loss, [x, layer.weights[0]])
    np.testing.assert_allclose(g_scale.numpy(), (want / scale).sum(axis=(0, 1)), rtol=1e-5)
    assert g_x.shape == X.shape


def test_identity_and_wrapper():
    out = keras.layers.Identity()(X)
    np.testing.assert_array_equal(out.numpy(), X)
    assert keras.layers.Identity().get_config().keys() == {"name", "trainable", "dtype"}
    dense = keras.layers.Dense(2)
    wrapper = keras.layers.Wrapper(dense)
    wrapper.build((None, 4))
    assert dense.built and wrapper.get_config()["layer"]["class_name"] == "Dense"
    clone = keras.layers.Wrapper.from_config(wrapper.get_config())
    assert isinstance(clone.layer, keras.layers.Dense) and clone.layer.units == 2
    with pytest.raises(ValueError, match="supplied to Wrapper"):
        keras.layers.Wrapper(dense.units)


def test_merge_functions():
    a, b = X, X[::-1] + 1.0
    cases = {"add": a + b, "subtract": a - b, "multiply": a * b, "average": (a + b) / 2,
             "maximum": np.maximum(a, b), "minimum": np.minimum(a, b), "concatenate": np.concatenate([a, b], -1)}
    for name, want in cases.items():
        np.testing.assert_allclose(getattr(keras.layers, name)([a, b]).numpy(), want, rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(keras.layers.concatenate([a, b], axis=1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_allclose(keras.layers.dot([a[:, 0], b[:, 0]], axes=1).numpy(),
                               (a[:, 0] * b[:, 0]).sum(-1, keepdims=True), rtol=1e-6)


def test_serialize_round_trip():
    config = keras.layers.serialize(keras.layers.RMSNormalization(epsilon=0.1, name="rms_ser"))
    assert config["class_name"] == "RMSNormalization" and config["config"]["epsilon"] == 0.1
    layer = keras.layers.deserialize(config)
    assert isinstance(layer, keras.layers.RMSNormalization) and layer.name == "rms_ser"
