"""Merge, activation, normalization, embedding and axis layers against NumPy formulas."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from tapegrad.keras import layers

RNG = np.random.default_rng(0)
A = RNG.normal(size=(2, 3, 4))
B = RNG.normal(size=(2, 3, 4))


def _gn(x, groups, eps):
    n, t, c = x.shape
    g = x.reshape(n, t, groups, c // groups)
    m = g.mean(axis=(1, 3), keepdims=True)
    v = g.var(axis=(1, 3), keepdims=True)
    return ((g - m) / np.sqrt(v + eps)).reshape(x.shape)


def _ln(x, eps):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(x.var(-1, keepdims=True) + eps)


# (layer, inputs, NumPy reference)
CASES = [
    (lambda: layers.Add(), [A, B], A + B),
    (lambda: layers.Subtract(), [A, B], A - B),
    (lambda: layers.Multiply(), [A, B, A], A * B * A),
    (lambda: layers.Average(), [A, B], (A + B) / 2),
    (lambda: layers.Maximum(), [A, B], np.maximum(A, B)),
    (lambda: layers.Minimum(), [A, B], np.minimum(A, B)),
    (lambda: layers.Concatenate(axis=1), [A, B], np.concatenate([A, B], 1)),
    (lambda: layers.Dot(axes=(2, 2)), [A, B], np.einsum("bik,bjk->bij", A, B)),
    (lambda: layers.Dot(axes=1), [A[:, 0], B[:, 0]], (A[:, 0] * B[:, 0]).sum(1, keepdims=True)),
    (lambda: layers.ReLU(max_value=0.5, negative_slope=0.1, threshold=0.2), A,
     np.minimum(np.where(A >= 0.2, A, 0.1 * (A - 0.2)), 0.5)),
    (lambda: layers.LeakyReLU(negative_slope=0.2), A, np.where(A >= 0, A, 0.2 * A)),
    (lambda: layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25)), A, np.where(A >= 0, A, 0.25 * A)),
    (lambda: layers.ELU(alpha=0.5), A, np.where(A > 0, A, 0.5 * np.expm1(A))),
    (lambda: layers.Softmax(axis=1), A, np.exp(A) / np.exp(A).sum(1, keepdims=True)),
    (lambda: layers.LayerNormalization(epsilon=1e-3), A, _ln(A, 1e-3)),
    (lambda: layers.GroupNormalization(groups=2, epsilon=1e-3), A, _gn(A, 2, 1e-3)),
    (lambda: layers.Permute((2, 1)), A, A.transpose(0, 2, 1)),
    (lambda: layers.RepeatVector(3), A[:, 0], np.repeat(A[:, 0][:, None], 3, axis=1)),
    (lambda: layers.Lambda(lambda x, k: x * k, arguments={"k": 3.0}), A, 3 * A),
]


@pytest.mark.parametrize("make,inputs,expected", CASES, ids=[str(i) for i in range(len(CASES))])
def test_values_and_float64_gradients(make, inputs, expected):
    layer = make()
    layer_64 = type(layer).from_config({**layer.get_config(), "dtype": "float64"}) if not isinstance(
        layer, layers.Lambda) else layers.Lambda(layer.function, arguments=layer.arguments, dtype="float64")
    xs = [tf.constant(v) for v in inputs] if isinstance(inputs, list) else tf.constant(inputs)
    with tf.GradientTape() as tape:
        tape.watch(xs)
        out = layer_64(xs)
        loss = tf.reduce_sum(out * out)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-8)
    grads = tape.gradient(loss, xs)
    # the gradient of sum(f(x)^2) by central differences on one entry of the first input
    first = inputs[0] if isinstance(inputs, list) else inputs
    eps, idx = 1e-6, (0,) * first.ndim

    def value(delta):
        moved = first.copy()
        moved[idx] += delta
        args = [tf.constant(moved)] + [tf.constant(v) for v in inputs[1:]] if isinstance(inputs, list) else \
            tf.constant(moved)
        return float(tf.reduce_sum(tf.square(layer_64(args))))
    numeric = (value(eps) - value(-eps)) / (2 * eps)
    g = (grads[0] if isinstance(inputs, list) else grads).numpy()
    np.testing.assert_allclose(g[idx], numeric, rtol=1e-5, atol=1e-6)
    assert layer(inputs).dtype == tf.float32  # float32 by default


def test_embedding_looks_up_rows_and_its_gradient_touches_only_them():
    emb = layers.Embedding(6, 2, dtype="float64")
    ids = np.array([[1, 4], [1, 1]])
    with tf.GradientTape() as tape:
        out = emb(ids)
        loss = tf.reduce_sum(out)
    table = emb.embeddings.numpy()
    np.testing.assert_allclose(out.numpy(), table[ids])
    g = tape.gradient(loss, emb.embeddings)
    assert isinstance(g, tf.IndexedSlices) and g.indices.numpy().tolist() == [1, 4, 1, 1]  # rows kept apart, as TF
    g = tf.convert_to_tensor(g).numpy()
    np.testing.assert_allclose(g[:, 0], [0, 3, 0, 0, 1, 0])
    x = keras.Input((2,), dtype="int32")
    assert layers.Embedding(6, 3)(x).shape == (None, 2, 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"emb_bad \(Embedding, input_dim=6\).*\(1, 2\).*6"):
        layers.Embedding(6, 3, name="emb_bad")(np.array([[1, 6]]))


def test_time_distributed_shares_one_layer_over_the_steps():
    dense = layers.Dense(2)
    td = layers.TimeDistributed(dense)
    out = td(A.astype(np.float32))
    w, c = dense.get_weights()
    np.testing.assert_allclose(out.numpy(), A.astype(np.float32) @ w + c, rtol=1e-5, atol=1e-6)
    assert td.weights == dense.weights
    assert td(keras.Input((None, 4))).shape == (None, None, 2)


@pytest.mark.parametrize("layer,inputs,match", [
    (layers.Add(name="add_bad"), [A, A[:, :2]], r"add_bad \(Add\).*\(2, 3, 4\), \(2, 2, 4\)"),
    (layers.Subtract(name="sub_bad"), [A, A, A], r"sub_bad \(Subtract\) needs exactly 2"),
    (layers.Concatenate(axis=1, name="cat_bad"), [A, A[:, :, :2]], r"cat_bad \(Concatenate\).*\(2, 3, 2\)"),
    (layers.Dot(axes=1, name="dot_bad"), [A, B[:, :2]], r"dot_bad \(Dot\).*\(2, 2, 4\)"),
    (layers.RepeatVector(2, name="rep_bad"), A, r"rep_bad \(RepeatVector\).*\(2, 3, 4\)"),
    (layers.Permute((2, 1), name="perm_bad"), A[:, 0], r"perm_bad \(Permute\).*\(2, 4\)"),
    (layers.GroupNormalization(groups=3, name="gn_bad"), A, r"gn_bad \(GroupNormalization\).*\(2, 3, 4\)"),
])
def test_bad_shapes_name_the_layer_and_shapes(layer, inputs, match):
    with pytest.raises(ValueError, match=match):
        layer(inputs)


def test_merge_layers_in_a_functional_model():
    a, b = keras.Input((4,)), keras.Input((4,))
    model = keras.Model([a, b], layers.Concatenate()([layers.Add()([a, b]), layers.Multiply()([a, b])]))
    x, y = np.ones((2, 4), np.float32), np.full((2, 4), 2.0, np.float32)
    np.testing.assert_allclose(model([x, y]).numpy(), np.concatenate([x + y, x * y], 1))
