"""tapegrad's SavedModels served by TensorFlow: tf.saved_model.load calls the functions and the serving
signature with tapegrad's results, the variables hold tapegrad's values, and saved_model_cli lists the
signature. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import keras as tgk
from tf_oracle import import_tensorflow

ref = import_tensorflow()
RTOL, ATOL = 1e-6, 1e-6
rng = np.random.default_rng(0)


class Dense(tg.Module):
    def __init__(self):
        super().__init__()
        self.w = tg.Variable(rng.normal(size=(3, 2)).astype("float32"), name="w")
        self.b = tg.Variable(rng.normal(size=2).astype("float32"), name="b")

    @tg.function(input_signature=[tg.TensorSpec([None, 3], tg.float32)])
    def __call__(self, x):
        return tg.nn.relu(tg.matmul(x, self.w) + self.b)


class Counter(tg.Module):
    def __init__(self):
        super().__init__()
        self.total = tg.Variable(tg.zeros(3))

    @tg.function(input_signature=[tg.TensorSpec([3])])
    def add(self, x):
        self.total.assign_add(x)
        return self.total.read_value() * 2.0


class Served(tg.Module):  # a Keras model behind a serving function
    def __init__(self):
        super().__init__()
        self.model = tgk.Sequential([
            tgk.Input((8, 8, 3)), tgk.layers.Conv2D(4, 3, activation="relu"), tgk.layers.BatchNormalization(),
            tgk.layers.MaxPooling2D(), tgk.layers.Flatten(), tgk.layers.Dense(8, activation="gelu"),
            tgk.layers.LayerNormalization(), tgk.layers.Dense(5, activation="softmax")])

    @tg.function(input_signature=[tg.TensorSpec([None, 8, 8, 3], tg.float32, name="images")])
    def serve(self, images):
        return {"probabilities": self.model(images, training=False), "label": tg.argmax(self.model(images), axis=1)}


def test_tf_calls_the_function_and_the_signature(tmp_path):
    m = Dense()
    tg.saved_model.save(m, tmp_path)
    loaded = ref.saved_model.load(str(tmp_path))
    for batch in (1, 5):
        x = rng.normal(size=(batch, 3)).astype("float32")
        want = m(tg.constant(x)).numpy()
        np.testing.assert_allclose(loaded(ref.constant(x)).numpy(), want, rtol=RTOL, atol=ATOL)
        out = loaded.signatures["serving_default"](x=ref.constant(x))
        assert list(out) == ["output_0"]
        np.testing.assert_allclose(out["output_0"].numpy(), want, rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(loaded.w.numpy(), m.w.numpy())
    np.testing.assert_array_equal(loaded.b.numpy(), m.b.numpy())


def test_assignments_run_in_tf_in_order(tmp_path):
    m = Counter()
    tg.saved_model.save(m, tmp_path, signatures={})
    loaded = ref.saved_model.load(str(tmp_path))
    x = np.array([1.0, 2.0, 3.0], "float32")
    for _ in range(2):
        np.testing.assert_array_equal(loaded.add(ref.constant(x)).numpy(), m.add(tg.constant(x)).numpy())
    np.testing.assert_array_equal(loaded.total.numpy(), m.total.numpy())
    assert len(loaded.signatures) == 0


def test_a_keras_model_is_served_with_tapegrads_outputs(tmp_path):
    m = Served()
    tg.saved_model.save(m, tmp_path, signatures=m.serve)
    serving = ref.saved_model.load(str(tmp_path)).signatures["serving_default"]
    x = rng.normal(size=(3, 8, 8, 3)).astype("float32")
    out = serving(images=ref.constant(x))
    want = m.serve(tg.constant(x))
    assert sorted(out) == ["label", "probabilities"]
    np.testing.assert_allclose(out["probabilities"].numpy(), want["probabilities"].numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(out["label"].numpy(), want["label"].numpy())


def test_saved_model_cli_lists_the_signature(tmp_path):
    tg.saved_model.save(Dense(), tmp_path)
    cli = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")
    if not os.path.exists(cli):
        pytest.skip("saved_model_cli is not installed beside this Python")
    shown = subprocess.run([cli, "show", "--dir", str(tmp_path), "--all"], capture_output=True, text=True,
                           timeout=300, env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"})
    assert shown.returncode == 0, shown.stderr
    for line in ("signature_def['serving_default']", "inputs['x'] tensor_info", "shape: (-1, 3)",
                 "outputs['output_0'] tensor_info", "shape: (-1, 2)", "Method name is: tensorflow/serving/predict",
                 "Function Name: '__call__'"):
        assert line in shown.stdout, shown.stdout


@pytest.mark.parametrize("layer", ["LSTM", "GRU", "SimpleRNN"])
def test_recurrent_models_are_served_by_tf(tmp_path, layer):
    cell = getattr(tgk.layers, layer)(4, return_sequences=True)
    model = tgk.Sequential([tgk.Input((6, 3)), cell, tgk.layers.Flatten(), tgk.layers.Dense(2)])
    model.export(str(tmp_path), verbose=False)
    loaded = ref.saved_model.load(str(tmp_path))
    for batch in (1, 7):  # exported with a None batch: the unrolled steps slice whatever batch comes
        x = rng.normal(size=(batch, 6, 3)).astype("float32")
        np.testing.assert_allclose(loaded.serve(ref.constant(x)).numpy(), model.predict(x, verbose=0), rtol=1e-5,
                                   atol=1e-6)


def test_slices_and_fills_of_the_batch_size_are_computed_in_tf(tmp_path):
    class M(tg.Module):
        @tg.function(input_signature=[tg.TensorSpec([None, 4], tg.float32)])
        def f(self, x):
            return tg.reshape(x[:, 1:3] + tg.ones([x.shape[0], 2]), [x.shape[0] * 2])

    m = M()
    tg.saved_model.save(m, tmp_path)
    loaded = ref.saved_model.load(str(tmp_path))
    for batch in (1, 6):
        x = rng.normal(size=(batch, 4)).astype("float32")
        np.testing.assert_allclose(loaded.f(ref.constant(x)).numpy(), m.f(tg.constant(x)).numpy(), rtol=RTOL)


def test_an_attention_block_serves_in_tf(tmp_path):
    # MultiHeadAttention's einsums (Einsum nodes), its softmax and a LayerNormalization, for any batch
    seq = tgk.Input((5, 8))
    attended = tgk.layers.MultiHeadAttention(num_heads=2, key_dim=4)(seq, seq)
    model = tgk.Model(seq, tgk.layers.LayerNormalization()(seq + attended))
    model.export(str(tmp_path), verbose=False)
    loaded = ref.saved_model.load(str(tmp_path))
    for batch in (1, 3):
        x = rng.normal(size=(batch, 5, 8)).astype("float32")
        np.testing.assert_allclose(loaded.serve(ref.constant(x)).numpy(), model.predict(x, verbose=0), rtol=1e-5,
                                   atol=1e-5)
