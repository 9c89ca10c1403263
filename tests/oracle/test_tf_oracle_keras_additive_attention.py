"""keras.layers.AdditiveAttention run by Keras on TF and by tapegrad from the same inputs and weights: with
and without use_scale, value and query masks, the causal mask, key given apart, a value wider than the
query, unbatched inputs, the scores returned, gradients of the inputs and the scale, configs, the layer's
weights, its dtypes under mixed_float16, a functional model, and Keras's errors. Skipped when TensorFlow
does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as ref_keras  # noqa: E402

from tapegrad import keras as tg_keras  # noqa: E402

SIDES = ((tg, tg_keras), (ref, ref_keras))
RNG = np.random.default_rng(0)
Q, V, K, WIDE = (RNG.normal(size=s).astype(np.float32) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 4), (2, 5, 6)))
QMASK = np.array([[True, True, False], [True, False, True]])
VMASK = np.array([[True, True, True, False, False], [True, False, True, True, True]])
CASES = [("scaled", {}, {}), ("unscaled", {"use_scale": False}, {}),
         ("masks", {}, {"mask": [QMASK, VMASK]}), ("value_mask", {"use_scale": False}, {"mask": [None, VMASK]}),
         ("causal", {}, {"use_causal_mask": True}),
         ("causal_masked", {}, {"use_causal_mask": True, "mask": [QMASK, VMASK]})]


def _run(tf, keras, kwargs, call, inputs):
    layer = keras.layers.AdditiveAttention(**kwargs)
    inputs = [tf.constant(a) for a in inputs]
    layer(inputs)
    for w in layer.weights:
        w.assign(np.linspace(-1.5, 2.0, w.shape[0]).astype(np.float32))
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out, scores = layer(inputs, return_attention_scores=True, **call)
        loss = tf.reduce_sum(out * out) + tf.reduce_sum(scores * tf.range(5, dtype=tf.float32))
    grads = tape.gradient(loss, inputs + list(layer.trainable_weights))
    return [np.asarray(out), np.asarray(scores)] + [np.asarray(g) for g in grads], layer


@pytest.mark.parametrize("inputs", ["qv", "qvk", "wide_value"])
@pytest.mark.parametrize("case,kwargs,call", CASES, ids=[c[0] for c in CASES])
def test_additive_attention_as_keras(case, kwargs, call, inputs):
    arrays = {"qv": [Q, V], "qvk": [Q, V, K], "wide_value": [Q, WIDE, K]}[inputs]
    (ours, our_layer), (theirs, their_layer) = (_run(tf, keras, kwargs, call, arrays) for tf, keras in SIDES)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    our_config, their_config = our_layer.get_config(), their_layer.get_config()
    for key in ("use_scale", "dropout", "seed"):
        assert our_config[key] == their_config[key]
    assert set(our_config) == set(their_config)
    assert [tuple(w.shape) for w in our_layer.weights] == [tuple(w.shape) for w in their_layer.weights]
    assert isinstance(our_layer, tg_keras.layers.Attention)


def test_unbatched_inputs_and_output_mask():
    got = []
    for tf, keras in SIDES:
        layer = keras.layers.AdditiveAttention(seed=4)
        out = layer([Q[0], K[0]])
        mask = layer.compute_mask([Q, V], mask=[QMASK, None])
        got.append((np.asarray(out).shape, np.asarray(mask), layer.compute_output_shape([(2, 3, 4), (2, 5, 6)]),
                    layer.get_config()["seed"]))
    (shape, mask, out_shape, seed), (shape2, mask2, out_shape2, seed2) = got
    assert shape == shape2 == (3, 4) and out_shape == tuple(out_shape2) == (2, 3, 6) and seed == seed2 == 4
    np.testing.assert_array_equal(mask, mask2)


def test_scale_initializer_range():
    # glorot_uniform over a (dim,) vector: limit sqrt(6 / (2 dim)); both sides stay within it and spread out
    for _, keras in SIDES:
        layer = keras.layers.AdditiveAttention()
        layer([np.zeros((1, 2, 200), np.float32)] * 2)
        scale = np.asarray(layer.weights[0])
        assert scale.shape == (200,) and np.abs(scale).max() <= np.sqrt(6 / 400) and scale.std() > 0.05


def _dtype_name(dtype):
    return dtype if isinstance(dtype, str) else dtype.name


def test_functional_model_and_mixed_float16():
    outs = []
    for tf, keras in SIDES:
        q, v = keras.Input((3, 4)), keras.Input((5, 4))
        model = keras.Model([q, v], keras.layers.AdditiveAttention(use_scale=False)([q, v], use_causal_mask=True))
        outs.append(np.asarray(model([Q, V])))
        keras.mixed_precision.set_global_policy("mixed_float16")
        try:
            layer = keras.layers.AdditiveAttention()
            out = layer([Q, V])  # NumPy inputs: both cast them to the compute dtype
            outs.append((_dtype_name(out.dtype), _dtype_name(layer.weights[0].dtype)))
        finally:
            keras.mixed_precision.set_global_policy("float32")
    np.testing.assert_allclose(outs[0], outs[2], rtol=1e-5, atol=1e-5)
    assert outs[1] == outs[3] == ("float16", "float32")


@pytest.mark.parametrize("bad", [lambda k: k.layers.AdditiveAttention()(np.ones((1, 2, 2), np.float32)),
                                 lambda k: k.layers.AdditiveAttention()([np.ones((1, 2, 2), np.float32)]),
                                 lambda k: k.layers.AdditiveAttention()([np.ones((1, 2, 2), np.float32)] * 4),
                                 lambda k: k.layers.AdditiveAttention()([np.ones((1, 2, 2), np.float32)] * 2,
                                                                        mask=QMASK)])
def test_errors_as_keras(bad):
    with pytest.raises(ValueError) as theirs:
        bad(ref_keras)
    with pytest.raises(ValueError) as ours:
        bad(tg_keras)
    assert str(ours.value).split(" Received")[0] in str(theirs.value)  # Keras adds its call context around it


def test_mismatched_feature_sizes_as_tf():
    # the query and key feature sizes must agree: TF's add raises InvalidArgumentError, so does ours
    with pytest.raises(ref.errors.InvalidArgumentError):
        ref_keras.layers.AdditiveAttention()([Q, WIDE])
    with pytest.raises(tg.errors.InvalidArgumentError):
        tg_keras.layers.AdditiveAttention()([Q, WIDE])
