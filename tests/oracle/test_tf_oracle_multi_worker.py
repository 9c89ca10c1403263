"""tf.distribute.MultiWorkerMirroredStrategy in one process (no TF_CONFIG, no MPI launch: one worker with
one replica) against TF: a custom training loop as TF's multi-worker guide writes it gives TF's losses and
weights, and reduce / all_reduce agree. TF's strategy runs in a child process (the variables made under
it stay in TF's global collections and would change later tests). Several ranks are checked under
mpiexec in tests/distribute/test_multi_worker.py. Skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tapegrad as tg
from tf_oracle import import_tensorflow

ref = import_tensorflow()

LOOP = '''
import json, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
rng = np.random.default_rng(1)
X = rng.normal(size=(24, 4)).astype("float32")
Y = rng.normal(size=(24, 1)).astype("float32")
W0 = [rng.normal(size=(4, 6)).astype("float32") * 0.5, np.zeros(6, "float32"),
      rng.normal(size=(6, 1)).astype("float32") * 0.5, np.zeros(1, "float32")]


def custom_loop(lib, strategy):
    with strategy.scope():
        k = lib.keras
        model = k.Sequential([k.Input((4,)), k.layers.Dense(6, activation="tanh"), k.layers.Dense(1)])
        model.set_weights(W0)
        optimizer = k.optimizers.Adam(0.05)
        loss_fn = k.losses.MeanSquaredError(reduction="none")
    dist_dataset = strategy.experimental_distribute_dataset(lib.data.Dataset.from_tensor_slices((X, Y)).batch(8))

    def step_fn(inputs):
        x, y = inputs
        with lib.GradientTape() as tape:
            per_example = loss_fn(y, model(x, training=True))
            loss = lib.nn.compute_average_loss(per_example, global_batch_size=8)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @lib.function
    def train_step(inputs):
        per_replica = strategy.run(step_fn, args=(inputs,))
        return strategy.reduce(lib.distribute.ReduceOp.SUM, per_replica, axis=None)

    losses = [float(train_step(batch)) for _ in range(2) for batch in dist_dataset]
    value = lib.constant([[1.0, 2.0], [3.0, 5.0]])
    with strategy.scope():
        out = strategy.run(lambda v: lib.distribute.get_replica_context().all_reduce("SUM", v * 2.0), args=(value,))
    reduced = [np.asarray(strategy.reduce(op, out, axis=axis)).tolist() for op in ("SUM", "MEAN")
               for axis in (None, 0, 1)]
    return {"replicas": strategy.num_replicas_in_sync, "losses": losses,
            "weights": [np.asarray(w).tolist() for w in model.get_weights()], "reduced": reduced}


if __name__ == "__main__":
    import tensorflow as tf
    print("RESULT " + json.dumps(custom_loop(tf, tf.distribute.MultiWorkerMirroredStrategy())))
'''


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    script = tmp_path_factory.mktemp("mwms") / "loop.py"
    script.write_text(LOOP)
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    p = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    line = next((x for x in p.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, p.stdout + p.stderr
    namespace = {}
    exec(compile(LOOP.split("if __name__")[0], str(script), "exec"), namespace)
    ours = namespace["custom_loop"](tg, tg.distribute.MultiWorkerMirroredStrategy())
    return ours, json.loads(line[len("RESULT "):])


def test_a_custom_training_loop_gives_tfs_numbers(results):
    ours, theirs = results
    assert ours["replicas"] == theirs["replicas"] == 1
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5)
    for a, b in zip(ours["weights"], theirs["weights"]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_reduce_and_replica_context_as_tf(results):
    ours, theirs = results
    for a, b in zip(ours["reduced"], theirs["reduced"]):
        np.testing.assert_allclose(a, b)
