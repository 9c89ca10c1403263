"""Keras (TF 2.21's, Keras 3.15) and tapegrad's keras on the same bad input: the same exception class
from the training loops and Dense, and MultiHeadAttention's values and gradients where a query may
attend to nothing, eagerly, in tf.function and through fit. Skipped when TensorFlow does not import,
unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import warnings

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
LIBS = {"keras": ref, "tapegrad": tg}


def _outcome(fn):
    """("ok", value) or (exception class name, None); Keras's warnings are not under test here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", fn()
        except Exception as e:  # noqa: BLE001 -- the class is what is compared
            return type(e).__name__, None


def _model(lib, compile=True):  # noqa: A002 -- as Keras's argument
    keras = lib.keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    if compile:
        model.compile("sgd", "mse")
    return model


X = np.cos(np.arange(30) * 0.7).reshape(10, 3).astype(np.float32)
Y = X[:, :1] * 2.0

LOOP_CASES = {
    "fit_batch_size_-1": lambda lib: _model(lib).fit(X, Y, batch_size=-1, verbose=0),
    "evaluate_batch_size_-1": lambda lib: _model(lib).evaluate(X, Y, batch_size=-1, verbose=0),
    "predict_batch_size_-1": lambda lib: _model(lib).predict(X, batch_size=-1, verbose=0),
    "fit_batch_size_0": lambda lib: _model(lib).fit(X, Y, batch_size=0, verbose=0).history.keys(),
    "fit_validation_split_1": lambda lib: _model(lib).fit(X, Y, validation_split=1.0, verbose=0),
    "fit_validation_split_0.99": lambda lib: _model(lib).fit(X, Y, validation_split=0.99, verbose=0),
    "fit_uncompiled": lambda lib: _model(lib, compile=False).fit(X, Y, verbose=0),
    "evaluate_uncompiled": lambda lib: _model(lib, compile=False).evaluate(X, Y, verbose=0),
    "evaluate_no_samples": lambda lib: _model(lib).evaluate(X[:0], Y[:0], verbose=0),
    "dense_on_np_float32": lambda lib: lib.keras.layers.Dense(2)(np.float32(1)),
    "dense_on_a_vector": lambda lib: lib.keras.layers.Dense(2)(np.ones(3, np.float32)),
}


@pytest.mark.parametrize("case", LOOP_CASES)
def test_the_same_exception_class_as_keras(case):
    (want, want_value), (got, got_value) = (_outcome(lambda: LOOP_CASES[case](lib)) for lib in LIBS.values())
    assert got == want
    if want == "ok" and case != "dense_on_a_vector":
        assert list(got_value) == list(want_value)  # history keys, or evaluate's [] for no samples


# ---- MultiHeadAttention with a query row that attends to nothing
B, T, S, D = 2, 3, 4, 5
MASK = np.ones((B, T, S), bool)
MASK[0, 0] = False  # attends to nothing
MASK[1, 2, 1:] = False  # attends to one key


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(B, T, D)).astype(np.float32), rng.normal(size=(B, S, D)).astype(np.float32)


def _pair(**kwargs):
    """A Keras layer with random (non-zero) biases and a tapegrad layer holding the same weights."""
    q, v = _inputs()
    theirs = ref.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, bias_initializer="random_normal", **kwargs)
    theirs(q, v)
    ours = tg.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3, **kwargs)
    ours(q, v)
    ours.set_weights(theirs.get_weights())
    return theirs, ours


def _call(lib, layer, q, v, traced, **kwargs):
    fn = lambda a, b: layer(a, b, attention_mask=MASK, **kwargs)  # noqa: E731
    return (lib.function(fn) if traced else fn)(lib.constant(q), lib.constant(v))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
@pytest.mark.parametrize("kwargs", [{}, {"return_attention_scores": True}, {"training": False}],
                         ids=["fused", "scores", "dropout"])
def test_attention_to_nothing_matches_keras(kwargs, traced):
    theirs, ours = _pair(**({"dropout": 0.3} if "training" in kwargs else {}))
    q, v = _inputs(1)
    want, got = _call(ref, theirs, q, v, traced, **kwargs), _call(tg, ours, q, v, traced, **kwargs)
    want, got = (w if isinstance(w, tuple) else (w,) for w in (want, got))
    for w, g in zip(want, got):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "function"])
def test_attention_to_nothing_gradients_match_keras(traced):
    theirs, ours = _pair()
    q, v = _inputs(2)
    w = np.linspace(-1, 1, B * T * D).reshape(B, T, D).astype(np.float32)
    grads = []
    for lib, layer in ((ref, theirs), (tg, ours)):
        a, b = lib.constant(q), lib.constant(v)

        def step(a, b, lib=lib, layer=layer):
            with lib.GradientTape() as tape:
                tape.watch([a, b])
                loss = lib.reduce_sum(layer(a, b, attention_mask=MASK) * w)
            return tape.gradient(loss, [a, b] + layer.trainable_variables)
        grads.append((lib.function(step) if traced else step)(a, b))
    assert (grads[1][0].numpy()[0, 0] == 0).all()  # the row attending to nothing: no gradient to its query
    for want, got in zip(*grads):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-6)


def _attention_model(lib, layer):
    keras = lib.keras

    class Attend(keras.Model):
        def __init__(self):
            super().__init__()
            self.att = layer

        def call(self, x):
            return self.att(x[:, :T], x, attention_mask=MASK)

    return Attend()


def test_fit_through_attention_to_nothing_matches_keras():
    theirs, ours = _pair()
    x = np.random.default_rng(3).normal(size=(B, S, D)).astype(np.float32)
    y = np.tanh(x[:, :T])
    weights = []
    for lib, layer in ((ref, theirs), (tg, ours)):
        model = _attention_model(lib, layer)
        model.compile(lib.keras.optimizers.SGD(0.1), "mse", jit_compile=False)
        history = model.fit(x, y, batch_size=B, epochs=3, shuffle=False, verbose=0).history["loss"]
        weights.append((history, layer.get_weights()))
    np.testing.assert_allclose(weights[1][0], weights[0][0], rtol=1e-5)
    for got, want in zip(weights[1][1], weights[0][1]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
