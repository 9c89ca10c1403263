"""keras.layers' UnitNormalization, RMSNormalization, Identity, Wrapper and the functional merge forms (add,
concatenate, dot, ...) run by Keras on TF and by tapegrad on the same inputs: outputs, gradients of the
inputs and of RMSNormalization's scale, weight shapes, configs, serialize / deserialize, and Keras's
errors. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as ref_keras  # noqa: E402

from tapegrad import keras as tg_keras  # noqa: E402

SIDES = ((tg, tg_keras), (ref, ref_keras))
X = np.random.default_rng(4).normal(size=(2, 3, 4)).astype(np.float32)
X[0, 1] = 0.0  # a zero slice: UnitNormalization keeps it zero
LAYERS = {"unit": lambda k: k.layers.UnitNormalization(), "unit_axes": lambda k: k.layers.UnitNormalization(axis=[1, 2]),
          "unit_axis1": lambda k: k.layers.UnitNormalization(axis=1), "rms": lambda k: k.layers.RMSNormalization(),
          "rms_axes": lambda k: k.layers.RMSNormalization(axis=[1, 2], epsilon=1e-3),
          "identity": lambda k: k.layers.Identity()}


def _run(tf, keras, make):
    layer = make(keras)
    x = tf.constant(X)
    layer(x)
    for w in layer.weights:
        w.assign(np.linspace(0.5, 1.5, int(np.prod(w.shape))).reshape(tuple(w.shape)).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x)
        loss = tf.reduce_sum(out * tf.constant(np.cos(np.arange(X.size)).reshape(X.shape).astype(np.float32)))
    grads = tape.gradient(loss, [x] + list(layer.trainable_weights))
    return [np.asarray(out)] + [np.asarray(g) for g in grads], layer


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_as_keras(name):
    (ours, our_layer), (theirs, their_layer) = (_run(tf, keras, LAYERS[name]) for tf, keras in SIDES)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert [tuple(w.shape) for w in our_layer.weights] == [tuple(w.shape) for w in their_layer.weights]
    ours_config, theirs_config = our_layer.get_config(), their_layer.get_config()
    assert set(ours_config) == set(theirs_config)
    for key in set(ours_config) - {"name", "dtype"}:
        assert ours_config[key] == theirs_config[key], key


MERGES = {"add": lambda k, a, b: k.layers.add([a, b]), "subtract": lambda k, a, b: k.layers.subtract([a, b]),
          "multiply": lambda k, a, b: k.layers.multiply([a, b]), "average": lambda k, a, b: k.layers.average([a, b]),
          "maximum": lambda k, a, b: k.layers.maximum([a, b]), "minimum": lambda k, a, b: k.layers.minimum([a, b]),
          "concatenate": lambda k, a, b: k.layers.concatenate([a, b]),
          "concatenate_axis1": lambda k, a, b: k.layers.concatenate([a, b], axis=1),
          "dot": lambda k, a, b: k.layers.dot([a[:, 0], b[:, 0]], axes=1),
          "dot_normalized": lambda k, a, b: k.layers.dot([a[:, 0], b[:, 0]], axes=1, normalize=True)}


@pytest.mark.parametrize("name", list(MERGES))
def test_merge_functions_as_keras(name):
    b = X[::-1].copy() + 0.5
    ours = MERGES[name](tg_keras, tg.constant(X), tg.constant(b))
    theirs = MERGES[name](ref_keras, ref.constant(X), ref.constant(b))
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-6)


def test_merge_functions_in_a_functional_model():
    outs = []
    for _, keras in SIDES:
        a, b = keras.Input((3, 4)), keras.Input((3, 4))
        model = keras.Model([a, b], keras.layers.concatenate([keras.layers.add([a, b]), keras.layers.multiply([a, b])]))
        outs.append(np.asarray(model([X, X + 1.0])))
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-6)


def test_serialize_and_deserialize():
    for _, keras in SIDES:
        s = keras.layers.serialize(keras.layers.UnitNormalization(axis=[1, 2], name="unit_ser"))
        assert s["class_name"] == "UnitNormalization" and s["config"]["axis"] == [1, 2]
        layer = keras.layers.deserialize(s)
        assert type(layer).__name__ == "UnitNormalization" and layer.name == "unit_ser"


@pytest.mark.parametrize("bad,error", [(lambda k: k.layers.UnitNormalization(axis="a"), TypeError),
                                       (lambda k: k.layers.Wrapper(3), ValueError)])
def test_errors_as_keras(bad, error):
    with pytest.raises(error) as theirs:
        bad(ref_keras)
    with pytest.raises(error) as ours:
        bad(tg_keras)
    assert str(ours.value).split(" Received")[0] in str(theirs.value)


def test_wrapper_holds_its_layer():
    for _, keras in SIDES:
        dense = keras.layers.Dense(2)
        wrapper = keras.layers.Wrapper(dense)
        assert wrapper.layer is dense and isinstance(wrapper, keras.layers.Layer)
        config = wrapper.get_config()
        assert config["layer"]["class_name"] == "Dense"
