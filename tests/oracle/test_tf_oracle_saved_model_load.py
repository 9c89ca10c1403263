"""SavedModels TensorFlow wrote, loaded by tapegrad: the functions and signatures give TF's results,
gradients through them TF's gradients, the variables TF's values. Skipped when TensorFlow does not
import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import warnings

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()
keras = ref.keras
RTOL, ATOL = 1e-6, 1e-6
rng = np.random.default_rng(0)


def _module():
    class M(ref.Module):
        def __init__(self):
            self.w = ref.Variable(rng.normal(size=(3, 2)).astype("float32"), name="w")
            self.b = ref.Variable(rng.normal(size=2).astype("float32"), name="b")
            self.inner = ref.Module()
            self.inner.scale = ref.Variable(1.5)

        @ref.function(input_signature=[ref.TensorSpec([None, 3], ref.float32)])
        def __call__(self, x):
            h = ref.nn.tanh(ref.matmul(x, self.w) + self.b) * self.inner.scale
            return ref.concat([h[:, :1] * 2.0, ref.reduce_mean(h, axis=1, keepdims=True)], axis=1)

        @ref.function(input_signature=[ref.TensorSpec([], ref.float32)])
        def bump(self, d):
            self.inner.scale.assign_add(d)
            return self.inner.scale.read_value()

        @ref.function(input_signature=[ref.TensorSpec([None, 3], ref.float32, name="features")])
        def serve(self, features):
            y = self(features)
            return {"y": y, "argmax": ref.argmax(y, axis=1)}
    return M()


def test_a_tf_module_runs_in_tapegrad(tmp_path):
    m = _module()
    ref.saved_model.save(m, str(tmp_path), signatures={"serving_default": m.serve})
    loaded = tg.saved_model.load(tmp_path)
    for batch in (1, 4):
        x = rng.normal(size=(batch, 3)).astype("float32")
        np.testing.assert_allclose(loaded(tg.constant(x)).numpy(), m(ref.constant(x)).numpy(), rtol=RTOL, atol=ATOL)
        out, want = loaded.signatures["serving_default"](features=tg.constant(x)), m.serve(ref.constant(x))
        assert sorted(out) == ["argmax", "y"]
        np.testing.assert_allclose(out["y"].numpy(), want["y"].numpy(), rtol=RTOL, atol=ATOL)
        np.testing.assert_array_equal(out["argmax"].numpy(), want["argmax"].numpy())
    np.testing.assert_array_equal(loaded.w.numpy(), m.w.numpy())


def test_gradients_through_a_loaded_function_are_tfs(tmp_path):
    m = _module()
    ref.saved_model.save(m, str(tmp_path))
    loaded = tg.saved_model.load(tmp_path)
    x = rng.normal(size=(5, 3)).astype("float32")
    with ref.GradientTape() as tape:
        y = ref.reduce_sum(m(ref.constant(x)) ** 2)
    want = tape.gradient(y, [m.w, m.b, m.inner.scale])
    with tg.GradientTape() as tape:
        y = tg.reduce_sum(loaded(tg.constant(x)) ** 2)
    got = tape.gradient(y, [loaded.w, loaded.b, loaded.inner.scale])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


def test_assignments_in_a_loaded_function(tmp_path):
    m = _module()
    ref.saved_model.save(m, str(tmp_path))
    loaded = tg.saved_model.load(tmp_path)
    for _ in range(2):
        np.testing.assert_array_equal(loaded.bump(tg.constant(0.25)).numpy(), m.bump(ref.constant(0.25)).numpy())
    assert float(loaded.inner.scale.numpy()) == float(m.inner.scale.numpy())


def _keras_models():
    keras.utils.set_random_seed(0)
    inp = keras.Input((8, 8, 3))
    h = keras.layers.Conv2D(4, 3, activation="relu")(inp)
    h = keras.layers.BatchNormalization()(h)
    h = keras.layers.MaxPooling2D()(h)
    h = keras.layers.Dense(8, activation="gelu")(keras.layers.Flatten()(h))
    out = keras.layers.Dense(5, activation="softmax")(keras.layers.LayerNormalization()(h))
    cnn = keras.Model(inp, out)
    lstm = keras.Sequential([keras.Input((6, 3)), keras.layers.LSTM(4), keras.layers.Dense(2)])
    # Keras's MultiHeadAttention exports Einsum nodes for its projections and scores
    seq = keras.Input((5, 8))
    attended = keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)(seq, seq)
    attention = keras.Model(seq, keras.layers.LayerNormalization()(seq + attended))
    return {"cnn": (cnn, (3, 8, 8, 3)), "lstm": (lstm, (2, 6, 3)), "attention": (attention, (3, 5, 8))}


@pytest.mark.parametrize("name", ["cnn", "lstm", "attention"])
def test_a_keras_export_serves_in_tapegrad(tmp_path, name):
    model, shape = _keras_models()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.export(str(tmp_path), verbose=False)
    loaded = tg.saved_model.load(tmp_path)
    x = rng.normal(size=shape).astype("float32")
    want = model.predict(x, verbose=0)
    np.testing.assert_allclose(loaded.serve(tg.constant(x)).numpy(), want, rtol=1e-5, atol=1e-6)
    serving = loaded.signatures["serving_default"]
    (key,) = serving.structured_input_signature[1]
    (out,) = serving(**{key: tg.constant(x)}).values()
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-5, atol=1e-6)


def test_an_op_tapegrad_lacks_is_named(tmp_path):
    class M(ref.Module):
        @ref.function(input_signature=[ref.TensorSpec([3], ref.float32)])
        def f(self, x):
            return ref.math.bessel_i0e(x)
    ref.saved_model.save(M(), str(tmp_path))
    loaded = tg.saved_model.load(tmp_path)
    with pytest.raises(tg.errors.UnimplementedError, match="__inference_f.*'BesselI0e'"):
        loaded.f(tg.ones(3))


def test_damaged_and_missing_files(tmp_path):
    m = _module()
    ref.saved_model.save(m, str(tmp_path / "ok"))
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tg.saved_model.load(tmp_path / "nowhere")
    pb = (tmp_path / "ok" / "saved_model.pb").read_bytes()
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "saved_model.pb").write_bytes(pb[: len(pb) // 2])
    with pytest.raises(tg.errors.DataLossError, match="saved_model.pb"):
        tg.saved_model.load(tmp_path / "cut")
    data = tmp_path / "ok" / "variables" / "variables.data-00000-of-00001"
    raw = bytearray(data.read_bytes())
    raw[0] ^= 0xFF
    data.write_bytes(bytes(raw))
    with pytest.raises(tg.errors.DataLossError, match="variables"):
        tg.saved_model.load(tmp_path / "ok")
    with pytest.raises(RuntimeError, match="could not be found"):
        tg.saved_model.load(tmp_path / "ok", tags=["train"])


def test_tfsm_layer_and_load_models_words(tmp_path):
    from tapegrad import keras as tgk
    model, shape = _keras_models()["cnn"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.export(str(tmp_path), verbose=False)
    x = rng.normal(size=shape).astype("float32")
    for endpoint in ("serve", "serving_default"):
        layer = tgk.layers.TFSMLayer(str(tmp_path), call_endpoint=endpoint)
        out = layer(tg.constant(x))
        out = next(iter(out.values())) if isinstance(out, dict) else out
        np.testing.assert_allclose(out.numpy(), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6)
    theirs = keras.layers.TFSMLayer(str(tmp_path), call_endpoint="serving_default")
    assert len(layer.weights) == len(theirs.weights)
    assert len(layer.trainable_weights) == len(theirs.trainable_weights)
    with pytest.raises(ValueError, match="The endpoint 'nope' is neither"):
        tgk.layers.TFSMLayer(str(tmp_path), call_endpoint="nope")
    with pytest.raises(ValueError) as ours:
        tgk.models.load_model(str(tmp_path))
    with pytest.raises(ValueError) as theirs:
        keras.models.load_model(str(tmp_path))
    assert str(ours.value) == str(theirs.value)


def test_loops_and_branches_on_values_stay_in_the_graph_when_traced(tmp_path):
    class M(ref.Module):
        @ref.function(input_signature=[ref.TensorSpec([None], ref.float32)])
        def f(self, x):
            (y,) = ref.while_loop(lambda v: ref.reduce_sum(v) < 100.0, lambda v: [v * 2.0], [x])
            z = ref.cond(ref.reduce_max(y) > 60.0, lambda: y - 1.0, lambda: y + 1.0)
            return ref.reshape(z, [ref.shape(z)[0], 1])
    m = M()
    ref.saved_model.save(m, str(tmp_path))
    loaded = tg.saved_model.load(tmp_path)
    traced = tg.function(lambda v: loaded.f(v))
    for x in ([1.0, 2.0], [30.0, 0.5], [0.1, 0.1], [7.0, 1.0, 1.0]):  # different trip counts and branches
        want = m.f(ref.constant(x)).numpy()
        np.testing.assert_allclose(loaded.f(tg.constant(x)).numpy(), want, rtol=RTOL)
        np.testing.assert_allclose(traced(tg.constant(x)).numpy(), want, rtol=RTOL)
