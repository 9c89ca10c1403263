"""tf.saved_model.load without TensorFlow: tapegrad's own SavedModels load back with the same results and
gradients, every op an export writes is one loading runs, and damaged files raise naming the file.
TF-written SavedModels are tests/oracle/test_tf_oracle_saved_model_load.py."""
import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from tapegrad.saved_model import _import_ops, _tf_nodes

SESSION_OPS = {"Placeholder", "Const", "VarHandleOp", "SaveV2", "RestoreV2", "MergeV2Checkpoints", "ShardedFilename",
               "StaticRegexFullMatch", "StringJoin"}  # the saver's graph, which loading never runs


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.net = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="gelu"),
                                     keras.layers.LayerNormalization(), keras.layers.Dense(3, activation="softmax")])
        self.steps = tf.Variable(0)

    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    def __call__(self, x):
        self.steps.assign_add(1)
        return self.net(x)


def test_every_op_an_export_writes_is_one_loading_runs():
    assert sorted(set(_tf_nodes.TF_OPS) - set(_import_ops.RULES) - SESSION_OPS) == []


def test_round_trip_results_gradients_and_state(tmp_path):
    m = Model()
    tf.saved_model.save(m, tmp_path)
    loaded = tf.saved_model.load(tmp_path)
    x = tf.constant(np.random.default_rng(0).normal(size=(5, 4)).astype("float32"))
    np.testing.assert_allclose(loaded(x).numpy(), m(x).numpy(), rtol=1e-6, atol=1e-7)
    assert int(loaded.steps.numpy()) == 1 and int(m.steps.numpy()) == 1
    served = loaded.signatures["serving_default"](x=x)["output_0"]
    np.testing.assert_allclose(served.numpy(), m(x).numpy(), rtol=1e-6, atol=1e-7)
    kernels = list(m.net.trainable_variables)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(m(x) ** 3)
    want = tape.gradient(y, kernels)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(loaded(x) ** 3)
    got = tape.gradient(y, _variables(loaded))
    assert len([g for g in got if g is not None]) == len(want)
    for g, w in zip(sorted((g.numpy() for g in got if g is not None), key=lambda a: (a.shape, a.sum())),
                    sorted((w.numpy() for w in want), key=lambda a: (a.shape, a.sum()))):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


def _variables(obj, seen=None):
    """Every trainable Variable reachable from a loaded object."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, tf.Variable):
        return [obj] if obj.trainable else []
    children = obj if isinstance(obj, list) else obj.values() if isinstance(obj, dict) else (
        vars(obj).values() if hasattr(obj, "__dict__") else [])
    return [v for c in children for v in _variables(c, seen)]


def test_a_call_that_fits_no_signature(tmp_path):
    tf.saved_model.save(Model(), tmp_path)
    loaded = tf.saved_model.load(tmp_path)
    with pytest.raises(ValueError, match="Could not find matching concrete function"):
        loaded(tf.ones((2, 5)))
    with pytest.raises(TypeError, match="expected the arguments"):
        loaded.signatures["serving_default"](y=tf.ones((2, 4)))


def test_missing_and_damaged_files(tmp_path):
    with pytest.raises(OSError, match="SavedModel file does not exist"):
        tf.saved_model.load(tmp_path / "nowhere")
    tf.saved_model.save(Model(), tmp_path)
    index = tmp_path / "variables" / "variables.index"
    index.write_bytes(index.read_bytes()[:20])
    with pytest.raises(tf.errors.DataLossError, match="variables.index"):
        tf.saved_model.load(tmp_path)
    (tmp_path / "saved_model.pb").write_bytes(b"\xff\xff not a proto")
    with pytest.raises(tf.errors.DataLossError, match="saved_model.pb"):
        tf.saved_model.load(tmp_path)
