"""keras.layers.MultiHeadAttention: values against TF-Keras 3 for the same weights, a float64 NumPy
reference, gradients, masks, the functional API, configs and errors naming the layer."""
import numpy as np
import pytest

import tapegrad as tf
from gradcheck import check_grads

keras = tf.keras


def _weights(shapes):
    """Deterministic weights; the same formula produced the TF-Keras values below."""
    return [(np.sin(np.arange(int(np.prod(s))) * 0.7 + k) * 0.5).reshape(s).astype(np.float32)
            for k, s in enumerate(shapes)]


Q = np.cos(np.arange(2 * 3 * 4) * 0.3).reshape(2, 3, 4).astype(np.float32)
V = np.sin(np.arange(2 * 5 * 6) * 0.2).reshape(2, 5, 6).astype(np.float32)
X4 = np.cos(np.arange(2 * 3 * 4 * 5) * 0.11).reshape(2, 3, 4, 5).astype(np.float32)
MASK = np.array([[[1, 1, 0, 0, 0], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]],
                 [[1, 1, 1, 1, 1], [0, 1, 0, 1, 0], [1, 1, 1, 0, 0]]], bool)

# From TF 2.21 / Keras 3.15 with _weights(...) set.
KERAS_OUT = np.array([[[0.463677, 0.502276, 0.304647, -0.036263], [0.464534, 0.502269, 0.30378, -0.037582],
                       [0.464338, 0.501694, 0.303096, -0.038053]],
                      [[0.464337, 0.50129, 0.302479, -0.038593], [0.463846, 0.501639, 0.303504, -0.037374],
                       [0.464546, 0.502298, 0.303812, -0.037561]]])
KERAS_MASKED = np.array([[[0.538992, 0.50618, 0.235303, -0.14624], [0.534191, 0.515301, 0.254057, -0.126674],
                          [0.328493, 0.494084, 0.427299, 0.159549]],
                         [[0.464337, 0.50129, 0.302479, -0.038593], [0.466248, 0.499407, 0.297688, -0.044039],
                          [0.513751, 0.50254, 0.254977, -0.112506]]])
KERAS_CAUSAL = np.array([[[-0.019494, -0.063076, -0.076993, -0.054699, -0.006679],
                          [-0.024479, -0.038176, -0.033918, -0.013708, 0.012949],
                          [-0.020591, -0.008286, 0.007916, 0.020395, 0.023282]],
                         [[0.02784, 0.052573, 0.05258, 0.027857, -0.009967],
                          [0.026034, 0.018556, 0.002352, -0.014959, -0.025235],
                          [0.014882, -0.008859, -0.028433, -0.034634, -0.024547]]])
KERAS_QV_MASKS = np.array([
    0.508604, 0.501262, 0.258169, -0.106345, 0.50972, 0.500777, 0.256311, -0.108702, 0.509387, 0.499758,
    0.255085, -0.109559, 0.464306, 0.504237, 0.307017, -0.034597, 0.462281, 0.503317, 0.307635, -0.032732,
    0.461469, 0.503452, 0.308654, -0.03131]).reshape(2, 3, 4)
KERAS_AXIS2 = np.array([
    0.299384, 0.340806, 0.221942, -0.001305, -0.223938, 0.29943, 0.341287, 0.222631, -0.000731, -0.22375,
    0.299426, 0.341777, 0.223384, -6.9e-05, -0.22349, 0.299376, 0.342134, 0.223981, 0.000487, -0.223237,
    0.25904, 0.299201, 0.198643, 0.00466, -0.191514, 0.258959, 0.29908, 0.198538, 0.004621, -0.191469,
    0.258952, 0.299027, 0.198466, 0.004563, -0.191486, 0.259019, 0.29906, 0.198448, 0.004503, -0.19156,
    0.313459, 0.386482, 0.277737, 0.038367, -0.219047, 0.31336, 0.386354, 0.27764, 0.038347, -0.218981,
    0.313341, 0.386394, 0.27772, 0.03843, -0.218934, 0.313408, 0.386592, 0.277956, 0.038593, -0.218922,
    0.290134, 0.326533, 0.209358, -0.006281, -0.218966, 0.290248, 0.327189, 0.210248, -0.005576, -0.218778,
    0.290321, 0.327764, 0.211054, -0.004918, -0.218577, 0.290333, 0.32809, 0.211541, -0.004499, -0.218423,
    0.263124, 0.310944, 0.212522, 0.014147, -0.190881, 0.263078, 0.310807, 0.212358, 0.014035, -0.19089,
    0.263123, 0.310687, 0.212131, 0.013806, -0.191013, 0.263246, 0.310621, 0.211906, 0.013528, -0.191212,
    0.317732, 0.387905, 0.27564, 0.033738, -0.224032, 0.317735, 0.387992, 0.27577, 0.03385, -0.223991,
    0.317779, 0.388128, 0.275935, 0.033965, -0.223979, 0.317852, 0.388274, 0.276084, 0.034048, -0.224002]).reshape(2, 3, 4, 5)
KERAS_ALL_AXES_00 = np.array([
    0.292376, 0.347116, 0.238602, 0.01787, -0.211267, 0.292595, 0.3481, 0.239888, 0.018853, -0.211049,
    0.292726, 0.349012, 0.241153, 0.019875, -0.21075, 0.29273, 0.349586, 0.242026, 0.020638, -0.210457]).reshape(4, 5)


def _layer(**kwargs):
    q, v = kwargs.pop("inputs", (Q, V))
    layer = keras.layers.MultiHeadAttention(**kwargs)
    layer(q, v)
    layer.set_weights(_weights([w.shape for w in layer.get_weights()]))
    return layer


def test_weights_follow_keras():
    layer = _layer(num_heads=2, key_dim=3, value_dim=2)
    names = [w.name.split("/", 1)[1].split(":")[0] for w in layer.weights]
    assert names == ["query/kernel", "query/bias", "key/kernel", "key/bias", "value/kernel", "value/bias",
                     "attention_output/kernel", "attention_output/bias"]
    assert [tuple(w.shape) for w in layer.weights] == [(4, 2, 3), (2, 3), (6, 2, 3), (2, 3), (6, 2, 2), (2, 2),
                                                       (2, 2, 4), (4,)]


def test_values_match_tf_keras():
    layer = _layer(num_heads=2, key_dim=3, value_dim=2)
    np.testing.assert_allclose(layer(Q, V).numpy(), KERAS_OUT, atol=2e-6)
    out, scores = layer(Q, V, attention_mask=MASK, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy(), KERAS_MASKED, atol=2e-6)
    assert scores.shape == (2, 2, 3, 5)
    assert (scores.numpy()[0, :, 2] == 0).all()  # a query with nothing to attend: zero scores, as Keras
    np.testing.assert_allclose(scores.numpy().sum(-1)[1], 1, rtol=1e-6)
    assert (scores.numpy()[~MASK[:, None].repeat(2, 1)] == 0).all()
    # Keras 3 ignores the query_mask argument (it reads the query tensor's Keras mask): so do we.
    np.testing.assert_allclose(layer(Q, V, query_mask=[[1, 1, 0], [1, 0, 1]],
                                     value_mask=[[1, 1, 1, 0, 0], [1, 0, 1, 0, 1]]).numpy(), KERAS_QV_MASKS, atol=2e-6)
    causal = _layer(num_heads=2, key_dim=3, use_bias=False, output_shape=5, inputs=(Q, Q))
    np.testing.assert_allclose(causal(Q, Q, use_causal_mask=True).numpy(), KERAS_CAUSAL, atol=2e-6)


def test_attention_axes_match_tf_keras():
    layer = _layer(num_heads=2, key_dim=2, attention_axes=(2,), inputs=(X4, X4))
    out, scores = layer(X4, X4, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy(), KERAS_AXIS2, atol=2e-6)
    assert scores.shape == (2, 3, 2, 4, 4)
    layer = _layer(num_heads=2, key_dim=2, inputs=(X4, X4))  # default: both middle axes at once
    out, scores = layer(X4, X4, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy()[0, 0], KERAS_ALL_AXES_00, atol=2e-6)
    assert scores.shape == (2, 2, 3, 4, 3, 4)


def _reference(q, v, k, ws, mask=None, fused=True):
    """Attention by the formula in float64 NumPy; a mask as Keras's fused or explicit path applies it
    (Note [Attention masks, as Keras])."""
    wq, bq, wk, bk, wv, bv, wo, bo = ws
    qh = np.einsum("btd,dnh->btnh", q, wq) + bq
    kh = np.einsum("bsd,dnh->bsnh", k, wk) + bk
    vh = np.einsum("bsd,dnh->bsnh", v, wv) + bv
    s = np.einsum("btnh,bsnh->bnts", qh, kh) / np.sqrt(wq.shape[-1])
    if mask is not None:
        s = np.where(mask[:, None], s, -0.7 * 3.38953e38 if fused else -1e9)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    if mask is not None and not fused:
        p = p * mask[:, None]
    return np.einsum("bnts,bsnh->btnh", p, vh).reshape(q.shape[0], q.shape[1], -1) @ wo.reshape(-1, wo.shape[-1]) + bo


def test_float64_against_numpy_and_gradients():
    rng = np.random.default_rng(0)
    q, v, k = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 6)), rng.normal(size=(2, 5, 3))
    layer = keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2, dtype="float64")
    layer(q, v, key=k)
    ws = [w.numpy() for w in layer.weights]
    np.testing.assert_allclose(layer(q, v, key=k).numpy(), _reference(q, v, k, ws), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(layer(q, v, key=k, attention_mask=MASK).numpy(), _reference(q, v, k, ws, MASK),
                               rtol=1e-10, atol=1e-12)
    out, _ = layer(q, v, key=k, attention_mask=MASK, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy(), _reference(q, v, k, ws, MASK, fused=False), rtol=1e-10, atol=1e-12)
    check_grads(lambda a, b, c: layer(a, b, key=c, attention_mask=MASK), [q, v, k], {}, [0, 1, 2], rng)
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(q, v, key=k) ** 2)
    grads = tape.gradient(loss, layer.trainable_variables)
    assert len(grads) == 8 and all(g is not None for g in grads)


def test_functional_api_training_and_config():
    inp = keras.Input(shape=(7, 8))
    att = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4, dropout=0.1)
    x = att(inp, inp)
    out = keras.layers.Dense(1)(keras.layers.GlobalAveragePooling1D()(x))
    model = keras.Model(inp, out)
    assert x.shape == (None, 7, 8) and len(model.trainable_variables) == 10
    model.compile(optimizer="adam", loss="mse")
    data = np.random.default_rng(1).normal(size=(16, 7, 8)).astype(np.float32)
    history = model.fit(data, data[:, :1, 0], batch_size=8, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    config = att.get_config()
    assert config["num_heads"] == 2 and config["key_dim"] == 4 and config["dropout"] == 0.1
    again = keras.layers.MultiHeadAttention.from_config(config)
    assert again.num_heads == 2 and again.value_dim == 4


def test_dropout_only_in_training():
    layer = _layer(num_heads=2, key_dim=3, value_dim=2, dropout=0.5)
    np.testing.assert_allclose(layer(Q, V).numpy(), KERAS_OUT, atol=2e-6)
    assert not np.allclose(layer(Q, V, training=True).numpy(), KERAS_OUT, atol=1e-3)


def test_bad_arguments_name_the_layer():
    with pytest.raises(ValueError, match="num_heads"):
        keras.layers.MultiHeadAttention(num_heads=0, key_dim=2)
    with pytest.raises(ValueError, match="dropout"):
        keras.layers.MultiHeadAttention(num_heads=1, key_dim=2, dropout=1.0)
    layer = keras.layers.MultiHeadAttention(num_heads=1, key_dim=2, name="att")
    with pytest.raises(ValueError, match=r"att: query, value and key must have the same rank"):
        layer(tf.ones([2, 3]), tf.ones([2, 3]))
    layer = keras.layers.MultiHeadAttention(num_heads=1, key_dim=2, attention_axes=(3,), name="att2")
    with pytest.raises(ValueError, match=r"att2: attention_axes"):
        layer(tf.ones([2, 3, 4]), tf.ones([2, 3, 4]))


def test_unsupported_arguments_raise_tf_errors():
    with pytest.raises(tf.errors.UnimplementedError, match="use_gate"):
        keras.layers.MultiHeadAttention(num_heads=1, key_dim=2, use_gate=True)
    with pytest.raises(tf.errors.UnimplementedError, match="output_shape"):
        keras.layers.MultiHeadAttention(num_heads=1, key_dim=2, output_shape=(2, 3))
    layer = keras.layers.MultiHeadAttention(num_heads=1, key_dim=2, name="att3")
    with pytest.raises(ValueError, match="att3: use_causal_mask needs one attention axis"):
        layer(X4, X4, use_causal_mask=True)
