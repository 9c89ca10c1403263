"""keras.layers.AdditiveAttention against a float64 NumPy reference of Bahdanau scores (with masks and the
causal mask), its gradients, dropout in training only, a fit that moves its scale, and a saved model."""
import numpy as np
import pytest

import tapegrad as tf

keras = tf.keras

RNG = np.random.default_rng(5)
Q, V, K = (RNG.normal(size=s).astype(np.float32) for s in ((2, 3, 4), (2, 5, 6), (2, 5, 4)))
SCALE = np.array([0.5, -1.0, 1.5, 2.0], np.float32)
VMASK = np.array([[True, True, False, True, False], [False, True, True, True, True]])
OPEN_FIRST = VMASK | np.eye(5, dtype=bool)[0]  # every causal row keeps a position: the loss is smooth
QMASK = np.array([[True, False, True], [True, True, False]])


def _reference(q, v, k, scale, value_mask=None, query_mask=None, causal=False):
    q, v, k = (a.astype(np.float64) for a in (q, v, k))
    scores = (scale * np.tanh(q[:, :, None, :] + k[:, None, :, :])).sum(-1)
    keep = np.ones(scores.shape, bool)
    if value_mask is not None:
        keep &= value_mask[:, None, :]
    if causal:
        keep &= np.tril(np.ones(scores.shape[1:], bool))[None]
    # less 1e9 in float32, as the layer: a row with nothing to attend to loses its scores to the rounding
    scores = np.where(keep, scores, (scores.astype(np.float32) - np.float32(1e9)).astype(np.float64))
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    out = weights @ v
    if query_mask is not None:
        out = np.where(query_mask[..., None], out, 0.0)
    return out, weights


def _layer(**kwargs):
    layer = keras.layers.AdditiveAttention(**kwargs)
    layer([Q, V, K])
    if layer.weights:
        layer.weights[0].assign(SCALE)
    return layer


@pytest.mark.parametrize("use_scale", [True, False])
@pytest.mark.parametrize("masks,causal", [(None, False), ((QMASK, VMASK), False), (None, True), ((None, VMASK), True)])
def test_values_match_the_reference(use_scale, masks, causal):
    layer = _layer(use_scale=use_scale)
    out, weights = layer([Q, V, K], mask=list(masks) if masks else None, return_attention_scores=True,
                         use_causal_mask=causal)
    want_out, want_weights = _reference(Q, V, K, SCALE if use_scale else 1.0, *(masks[::-1] if masks else ()),
                                        causal=causal)
    np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(weights.numpy(), want_weights, rtol=1e-5, atol=1e-6)


def test_key_defaults_to_value_and_weights():
    layer = keras.layers.AdditiveAttention()
    out = layer([Q, K])
    assert [w.shape for w in layer.trainable_weights] == [(4,)] and out.shape == (2, 3, 4)
    layer.weights[0].assign(SCALE)
    np.testing.assert_allclose(layer([Q, K]).numpy(), _reference(Q, K, K, SCALE)[0], rtol=1e-5, atol=1e-6)
    assert keras.layers.AdditiveAttention(use_scale=False).get_config()["use_scale"] is False
    assert not _layer(use_scale=False).weights


def _numeric_gradient(loss, x, eps=1e-3):
    """Central differences of a float64 function at x."""
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        step = np.zeros(x.shape)
        step[i] = eps
        grad[i] = (loss(x + step) - loss(x - step)) / (2 * eps)
    return grad


def test_gradients_of_inputs_and_scale():
    layer = _layer()
    q, v, k = (tf.constant(a) for a in (Q, V, K))
    with tf.GradientTape() as tape:
        tape.watch([q, v, k])
        loss = tf.reduce_sum(layer([q, v, k], mask=[None, OPEN_FIRST], use_causal_mask=True) ** 2)
    got = tape.gradient(loss, [q, v, k, layer.weights[0]])

    def reference_loss(q=Q, v=V, k=K, scale=SCALE):
        return (_reference(q, v, k, scale, OPEN_FIRST, causal=True)[0] ** 2).sum()
    wants = [_numeric_gradient(lambda a, name=name: reference_loss(**{name: a}), base.astype(np.float64))
             for name, base in (("q", Q), ("v", V), ("k", K), ("scale", SCALE))]
    for g, want in zip(got, wants):
        np.testing.assert_allclose(g.numpy(), want, rtol=2e-3, atol=2e-4)


def test_dropout_only_in_training():
    layer = _layer(dropout=0.5, seed=1)
    _, inference = layer([Q, V, K], return_attention_scores=True)
    np.testing.assert_allclose(inference.numpy().sum(-1), 1.0, rtol=1e-5)
    _, trained = layer([Q, V, K], return_attention_scores=True, training=True)
    kept = trained.numpy() != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(trained.numpy()[kept], 2.0 * inference.numpy()[kept], rtol=1e-5)


def test_fit_moves_the_scale_and_the_model_saves(tmp_path):
    q_in, v_in = keras.Input((3, 4)), keras.Input((5, 6))
    attended = keras.layers.AdditiveAttention(name="additive")([q_in, v_in, keras.layers.Dense(4)(v_in)])
    model = keras.Model([q_in, v_in], keras.layers.Dense(1)(keras.layers.Flatten()(attended)))
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    before = model.get_layer("additive").weights[0].numpy().copy()
    model.fit([Q, V], np.ones((2, 1), np.float32), epochs=2, verbose=0)
    assert not np.allclose(model.get_layer("additive").weights[0].numpy(), before)
    path = str(tmp_path / "additive.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    assert isinstance(loaded.get_layer("additive"), keras.layers.AdditiveAttention)
    np.testing.assert_allclose(loaded.predict([Q, V], verbose=0), model.predict([Q, V], verbose=0), rtol=1e-6)


def test_errors_name_the_layer():
    with pytest.raises(ValueError, match="AdditiveAttention layer must be called on a list"):
        keras.layers.AdditiveAttention()(Q)
    with pytest.raises(ValueError, match="AdditiveAttention layer accepts inputs list of length 2 or 3"):
        keras.layers.AdditiveAttention()([Q])
    with pytest.raises(tf.errors.InvalidArgumentError):
        keras.layers.AdditiveAttention()([Q, V])  # the key (here the value) must have the query's features
