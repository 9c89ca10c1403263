"""keras.layers.Attention run by Keras on TF and by tapegrad from the same inputs: dot and concat scores,
use_scale, value and query masks, the causal mask, key given apart, the scores returned, gradients of
the inputs and weights, configs and Keras's errors. Skipped when TensorFlow does not import, unless
TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as ref_keras  # noqa: E402

from tapegrad import keras as tg_keras  # noqa: E402

RNG = np.random.default_rng(0)
Q, V, K = (RNG.normal(size=s).astype(np.float32) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 4)))
QMASK = np.array([[True, True, False], [True, False, True]])
VMASK = np.array([[True, True, True, False, False], [True, False, True, True, True]])
CASES = [("dot", {}, {}), ("scaled", {"use_scale": True}, {}), ("concat", {"score_mode": "concat"}, {}),
         ("concat_scaled", {"score_mode": "concat", "use_scale": True}, {}),
         ("masks", {}, {"mask": [QMASK, VMASK]}), ("causal", {}, {"use_causal_mask": True}),
         ("causal_masked", {"use_scale": True}, {"use_causal_mask": True, "mask": [None, VMASK]})]


def _run(tf, keras, kwargs, call, with_key):
    layer = keras.layers.Attention(**kwargs)
    inputs = [tf.constant(Q), tf.constant(V)] + ([tf.constant(K)] if with_key else [])
    layer(inputs)
    for w in layer.weights:
        w.assign(np.float32(1.7))
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        out, scores = layer(inputs, return_attention_scores=True, **call)
        loss = tf.reduce_sum(out * out)
    grads = tape.gradient(loss, inputs + list(layer.trainable_weights))
    return [np.asarray(out), np.asarray(scores)] + [np.asarray(g) for g in grads], layer.get_config()


@pytest.mark.parametrize("with_key", [False, True])
@pytest.mark.parametrize("case,kwargs,call", CASES, ids=[c[0] for c in CASES])
def test_attention_as_keras(case, kwargs, call, with_key):
    ours, our_config = _run(tg, tg_keras, kwargs, call, with_key)
    theirs, their_config = _run(ref, ref_keras, kwargs, call, with_key)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    for key in ("use_scale", "score_mode", "dropout", "seed"):
        assert our_config[key] == their_config[key]


@pytest.mark.parametrize("bad", [lambda k: k.layers.Attention(score_mode="add"),
                                 lambda k: k.layers.Attention()(np.ones((1, 2, 2), np.float32)),
                                 lambda k: k.layers.Attention()([np.ones((1, 2, 2), np.float32)]),
                                 lambda k: k.layers.Attention()([np.ones((1, 2, 2), np.float32)] * 2, mask=QMASK)])
def test_errors_as_keras(bad):
    with pytest.raises(ValueError) as theirs:
        bad(ref_keras)
    with pytest.raises(ValueError) as ours:
        bad(tg_keras)
    assert str(ours.value).split(" Received")[0] in str(theirs.value)  # Keras adds its call context around it
