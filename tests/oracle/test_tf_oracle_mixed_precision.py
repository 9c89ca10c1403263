"""Keras mixed precision run by Keras on TF and by tapegrad from the same code and weights: layer dtypes under
each policy, forward values, a fit under mixed_float16 (compile wraps the optimizer in a LossScaleOptimizer)
and mixed_bfloat16, and LossScaleOptimizer's scale through finite and non-finite steps. Skipped when
TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as ref_keras  # noqa: E402  (Keras 3, beside TF)

from tapegrad import keras as tg_keras  # noqa: E402

SIDES = ((tg, tg_keras), (ref, ref_keras))


@pytest.fixture(autouse=True)
def _policies():
    yield
    for _, keras in SIDES:
        keras.mixed_precision.set_global_policy("float32")


def _model(keras, policy):
    keras.mixed_precision.set_global_policy(policy)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(3),
                              keras.layers.Activation("softmax", dtype="float32")])
    rng = np.random.default_rng(0)
    model.set_weights([rng.normal(size=w.shape).astype(np.float32) * 0.5 if w.ndim > 1 else
                       np.abs(rng.normal(size=w.shape)).astype(np.float32) for w in model.get_weights()])
    return model


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_layer_dtypes_and_forward(policy):
    x = np.random.default_rng(1).normal(size=(8, 6)).astype(np.float32)
    got = []
    for tf, keras in SIDES:
        model = _model(keras, policy)
        dense = model.layers[0]
        assert dense.compute_dtype == policy[len("mixed_"):] and dense.variable_dtype == "float32"
        assert str(dense.dtype_policy) == f'<DTypePolicy "{policy}">'
        hidden = dense(tf.constant(x))
        assert hidden.dtype.name == policy[len("mixed_"):]
        got.append((np.asarray(model(x, training=False)), hidden.dtype.name, model.layers[1](hidden).dtype.name))
    (ours, h1, b1), (theirs, h2, b2) = got
    assert ours.dtype == theirs.dtype == np.float32 and (h1, b1) == (h2, b2)
    tol = 3e-2 if policy == "mixed_bfloat16" else 3e-3
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


@pytest.mark.parametrize("policy", ["mixed_float16", "mixed_bfloat16"])
def test_fit(policy):
    rng = np.random.default_rng(2)
    x = rng.normal(size=(48, 6)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)
    results = []
    for _, keras in SIDES:
        model = _model(keras, policy)
        model.compile(keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
        results.append((type(model.optimizer).__name__,
                        model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0).history["loss"],
                        model.get_weights()))
    (name1, loss1, w1), (name2, loss2, w2) = results
    assert name1 == name2 == ("LossScaleOptimizer" if policy == "mixed_float16" else "SGD")
    tol = 5e-2 if policy == "mixed_bfloat16" else 5e-3
    np.testing.assert_allclose(loss1, loss2, rtol=tol, atol=tol)
    for a, b in zip(w1, w2):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_loss_scale_optimizer_steps():
    grads = [[8.0, 16.0], [np.inf, 0.0], [4.0, 4.0], [4.0, 4.0], [np.nan, 1.0], [2.0, 2.0]]
    seen = []
    for tf, keras in SIDES:
        var = tf.Variable([1.0, 2.0])
        opt = keras.optimizers.LossScaleOptimizer(keras.optimizers.SGD(0.5), initial_scale=8.0,
                                                  dynamic_growth_steps=2)
        trace = []
        for g in grads:
            opt.apply_gradients([(tf.constant(np.asarray(g, np.float32)), var)])
            trace.append((var.numpy().tolist(), float(np.asarray(opt.dynamic_scale)), int(np.asarray(opt.iterations))))
        scaled = float(np.asarray(opt.scale_loss(tf.constant(3.0))))
        seen.append((trace, scaled, opt.get_config()["initial_scale"], opt.get_config()["dynamic_growth_steps"]))
    assert seen[0] == seen[1]


LAYERS = [("lstm", lambda k, x, img, ids: k.layers.LSTM(4)(x)), ("gru", lambda k, x, img, ids: k.layers.GRU(4)(x)),
          ("simple_rnn", lambda k, x, img, ids: k.layers.SimpleRNN(4)(x)),
          ("bidirectional", lambda k, x, img, ids: k.layers.Bidirectional(k.layers.LSTM(3))(x)),
          ("conv2d", lambda k, x, img, ids: k.layers.Conv2D(4, 3)(img)),
          ("depthwise", lambda k, x, img, ids: k.layers.DepthwiseConv2D(3)(img)),
          ("separable", lambda k, x, img, ids: k.layers.SeparableConv2D(4, 3)(img)),
          ("conv2d_transpose", lambda k, x, img, ids: k.layers.Conv2DTranspose(4, 3)(img)),
          ("conv1d", lambda k, x, img, ids: k.layers.Conv1D(4, 3)(x)),
          ("embedding", lambda k, x, img, ids: k.layers.Embedding(10, 4)(ids)),
          ("attention", lambda k, x, img, ids: k.layers.MultiHeadAttention(2, 4)(x, x)),
          ("dot_attention", lambda k, x, img, ids: k.layers.Attention(use_scale=True)([x, x], use_causal_mask=True)),
          ("layer_norm", lambda k, x, img, ids: k.layers.LayerNormalization()(x)),
          ("group_norm", lambda k, x, img, ids: k.layers.GroupNormalization(groups=1)(img)),
          ("batch_norm", lambda k, x, img, ids: k.layers.BatchNormalization()(img, training=True)),
          ("dropout", lambda k, x, img, ids: k.layers.Dropout(0.5)(x, training=True)),
          ("max_pool", lambda k, x, img, ids: k.layers.MaxPooling2D()(img)),
          ("global_pool", lambda k, x, img, ids: k.layers.GlobalAveragePooling2D()(img)),
          ("prelu", lambda k, x, img, ids: k.layers.PReLU()(x)), ("softmax", lambda k, x, img, ids: k.layers.Softmax()(x)),
          ("rescaling", lambda k, x, img, ids: k.layers.Rescaling(0.5)(img))]


@pytest.mark.parametrize("layer", LAYERS, ids=[n for n, _ in LAYERS])
def test_layer_output_dtypes(layer):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 8)).astype(np.float32)
    img = rng.normal(size=(2, 8, 8, 3)).astype(np.float32)
    ids = np.array([[1, 2, 3], [4, 5, 6]])
    dtypes = []
    for _, keras in SIDES:
        keras.mixed_precision.set_global_policy("mixed_float16")
        out = layer[1](keras, x, img, ids)
        dtypes.append(out.dtype if isinstance(out.dtype, str) else out.dtype.name)
    assert dtypes[0] == dtypes[1] == "float16"
