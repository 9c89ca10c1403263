"""tapegrad's SavedModels run the way TF Serving and TF1 sessions run them (Note [Session graph]): the
tf.compat.v1 loader restores the variables through saver_def and runs the signatures' tensors by name,
the saver's save op writes a checkpoint TF reads, and saved_model_cli runs a signature; and Keras 3's
model.export artifacts (Note [Keras export]) load in TF and in Keras 3's TFSMLayer. Skipped when
TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
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
rng = np.random.default_rng(1)
CLI = os.path.join(os.path.dirname(sys.executable), "saved_model_cli")


class Dense(tg.Module):
    def __init__(self):
        super().__init__()
        self.w = tg.Variable(rng.normal(size=(3, 2)).astype("float32"), name="w")
        self.b = tg.Variable(rng.normal(size=2).astype("float32"), name="b")

    @tg.function(input_signature=[tg.TensorSpec([None, 3], tg.float32)])
    def __call__(self, x):
        return tg.nn.relu(tg.matmul(x, self.w) + self.b)


class TwoHeads(tg.Module):  # two signatures, a Keras model whose variables share names, a dict of results
    def __init__(self):
        super().__init__()
        self.model = tgk.Sequential([tgk.Input((4,)), tgk.layers.Dense(6, activation="tanh"),
                                     tgk.layers.BatchNormalization(), tgk.layers.Dense(3)])
        self.scale = tg.Variable(2.0, name="scale")

    @tg.function(input_signature=[tg.TensorSpec([None, 4], tg.float32, name="features")])
    def predict(self, features):
        logits = self.model(features, training=False)
        return {"logits": logits * self.scale, "classes": tg.argmax(logits, axis=1)}

    @tg.function(input_signature=[tg.TensorSpec([None, 4], tg.float32), tg.TensorSpec([], tg.float32)])
    def shifted(self, x, by):
        return [self.model(x, training=False) + by, x * by]


def _session_run(path, key, feeds, tags=("serve",)):
    """Loads path into a TF1 session and runs signature key's outputs on feeds (by input name)."""
    with ref.compat.v1.Session(graph=ref.Graph()) as sess:
        meta = ref.compat.v1.saved_model.loader.load(sess, list(tags), str(path))
        sig = meta.signature_def[key]
        names = sorted(sig.outputs)
        values = sess.run([sig.outputs[n].name for n in names], {sig.inputs[k].name: v for k, v in feeds.items()})
        return dict(zip(names, values)), meta


def test_a_session_restores_the_variables_and_runs_the_signature(tmp_path):
    m = Dense()
    tg.saved_model.save(m, tmp_path)
    x = rng.normal(size=(5, 3)).astype("float32")
    with ref.compat.v1.Session(graph=ref.Graph()) as sess:
        ref.compat.v1.saved_model.loader.load(sess, ["serve"], str(tmp_path))
        out = sess.run("StatefulPartitionedCall:0", {"serving_default_x:0": x})
        np.testing.assert_allclose(out, m(tg.constant(x)).numpy(), rtol=RTOL, atol=ATOL)
        np.testing.assert_allclose(sess.run("StatefulPartitionedCall:0", {"serving_default_x:0": x[:1]}), out[:1],
                                   rtol=RTOL, atol=ATOL)  # another batch size


def test_each_signature_has_its_call_and_placeholders(tmp_path):
    m = TwoHeads()
    tg.saved_model.save(m, tmp_path, signatures={"predict": m.predict, "shifted": m.shifted})
    x = rng.normal(size=(3, 4)).astype("float32")
    out, meta = _session_run(tmp_path, "predict", {"features": x})
    want = m.predict(tg.constant(x))
    np.testing.assert_allclose(out["logits"], want["logits"].numpy(), rtol=1e-5, atol=ATOL)
    np.testing.assert_array_equal(out["classes"], want["classes"].numpy())
    assert meta.signature_def["predict"].inputs["features"].name == "predict_features:0"
    out, meta = _session_run(tmp_path, "shifted", {"x": x, "by": np.float32(0.5)})
    want = m.shifted(tg.constant(x), tg.constant(0.5))
    np.testing.assert_allclose(out["output_0"], want[0].numpy(), rtol=1e-5, atol=ATOL)
    np.testing.assert_allclose(out["output_1"], want[1].numpy(), rtol=RTOL, atol=ATOL)
    assert meta.signature_def["shifted"].outputs["output_1"].name == "StatefulPartitionedCall_1:1"


def test_the_saver_writes_a_checkpoint_tf_reads(tmp_path):
    m = TwoHeads()
    tg.saved_model.save(m, tmp_path / "model", signatures=m.predict)
    prefix = str(tmp_path / "ckpt" / "saved")
    os.makedirs(tmp_path / "ckpt")
    with ref.compat.v1.Session(graph=ref.Graph()) as sess:
        meta = ref.compat.v1.saved_model.loader.load(sess, ["serve"], str(tmp_path / "model"))
        saver = meta.saver_def
        assert sess.run(saver.save_tensor_name, {saver.filename_tensor_name: prefix}) == prefix.encode()
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["saved.data-00000-of-00001", "saved.index"]  # merged
    written, original = ref.train.load_checkpoint(prefix), ref.train.load_checkpoint(str(tmp_path / "model/variables/variables"))
    keys = original.get_variable_to_shape_map()
    assert written.get_variable_to_shape_map() == keys
    for key in keys:
        if key != "_CHECKPOINTABLE_OBJECT_GRAPH":
            np.testing.assert_array_equal(written.get_tensor(key), original.get_tensor(key))
    restored = ref.train.Checkpoint(scale=ref.Variable(0.0))
    restored.restore(prefix).expect_partial()  # an object-based checkpoint: TF 2 matches it by the object graph
    assert restored.scale.numpy() == 2.0


@pytest.mark.skipif(not os.path.exists(CLI), reason="saved_model_cli is not installed beside this Python")
def test_saved_model_cli_runs_the_signature_and_lists_the_ops(tmp_path):
    m = Dense()
    tg.saved_model.save(m, tmp_path)
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    ran = subprocess.run([CLI, "run", "--dir", str(tmp_path), "--tag_set", "serve", "--signature_def",
                          "serving_default", "--input_exprs", "x=[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]"],
                         capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode == 0, ran.stderr
    printed = ran.stdout.split("Result for output key output_0:")[1]
    values = np.array([float(v) for v in printed.replace("[", " ").replace("]", " ").split()]).reshape(2, 2)
    np.testing.assert_allclose(values, m(tg.ones((2, 3))).numpy(), rtol=1e-5)
    shown = subprocess.run([CLI, "show", "--dir", str(tmp_path), "--all"], capture_output=True,
                           text=True, timeout=300, env=env)
    assert shown.returncode == 0, shown.stderr
    ops = shown.stdout.split("contains the following ops:")[1]
    for op in ("'VarHandleOp'", "'StatefulPartitionedCall'", "'RestoreV2'", "'MatMul'", "'Relu'"):
        assert op in ops, shown.stdout


class Subclassed(tgk.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tgk.layers.Dense(5, activation="relu")
        self.out = tgk.layers.Dense(2)

    def call(self, x, training=None):
        return self.out(self.hidden(x))


def _keras_models():
    seq = tgk.Sequential([tgk.Input((6, 6, 2), name="pixels"), tgk.layers.Conv2D(3, 3, activation="relu"),
                          tgk.layers.BatchNormalization(), tgk.layers.Flatten(), tgk.layers.Dropout(0.5),
                          tgk.layers.Dense(4, activation="softmax")])
    a, b = tgk.Input((4,), name="a"), tgk.Input((2,), name="b")
    merged = tgk.layers.Concatenate()([tgk.layers.Dense(3, activation="tanh")(a), b])
    functional = tgk.Model([a, b], tgk.layers.Dense(1)(merged))
    sub = Subclassed()
    sub(np.zeros((1, 3), "float32"))
    return [("sequential", seq, [rng.normal(size=(3, 6, 6, 2)).astype("float32")], ["pixels"]),
            ("functional", functional, [rng.normal(size=(3, 4)).astype("float32"),
                                        rng.normal(size=(3, 2)).astype("float32")], ["a", "b"]),
            ("subclassed", sub, [rng.normal(size=(3, 3)).astype("float32")], ["args_0"])]


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclassed"])
def test_model_export_serves_tapegrads_predictions(tmp_path, kind):
    import keras
    _, model, xs, names = next(m for m in _keras_models() if m[0] == kind)
    model.export(tmp_path, format="tf_saved_model", verbose=False)
    arg = xs if len(xs) > 1 else xs[0]  # serve's one argument: the input, or the list of inputs
    want = model.predict(arg, verbose=0)
    loaded = ref.saved_model.load(str(tmp_path))
    np.testing.assert_allclose(loaded.serve(arg).numpy(), want, rtol=RTOL, atol=ATOL)
    assert sorted(loaded.signatures) == ["serve", "serving_default"]
    out = loaded.signatures["serving_default"](**{n: ref.constant(x) for n, x in zip(names, xs)})
    np.testing.assert_allclose(out["output_0"].numpy(), want, rtol=RTOL, atol=ATOL)
    layer = keras.layers.TFSMLayer(str(tmp_path), call_endpoint="serve")
    np.testing.assert_allclose(np.asarray(layer(arg)), want, rtol=RTOL, atol=ATOL)
    assert len(layer.weights) == len(model.weights)
    served, _ = _session_run(tmp_path, "serving_default", dict(zip(names, xs)))  # TF Serving's way
    np.testing.assert_allclose(served["output_0"], want, rtol=RTOL, atol=ATOL)
