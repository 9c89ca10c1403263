"""Run under mpiexec by tests/distribute/test_multi_worker_fit.py: `python fit_worker.py CASE`. Each case checks
itself (assert) on every rank and prints `CASE ok` on rank 0; a failure exits non-zero.

Keras's fit and evaluate under tf.distribute.MultiWorkerMirroredStrategy: each rank steps on its slice of
every global batch, and ends with the weights (and the history) of one process fitting the global batches.
The one-process runs come first: once a multi-rank strategy's scope is opened, Keras's steps shard."""
import sys

import numpy as np

import tapegrad as tf
import tapegrad.distribute as hvd
from tapegrad import keras

GLOBAL_BATCH = 12
N = 46  # 3 whole batches and a short one of 10


def _data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(N, 5)).astype(np.float32)
    y = (x @ rng.normal(size=(5, 1)) + 0.3).astype(np.float32)
    return x, y


class Recording(keras.Sequential):
    """Records the size of each batch its train_step sees (run eagerly)."""

    seen = []

    def train_step(self, data):
        Recording.seen.append(int(data[0].shape[0]))
        return super().train_step(data)


def _model(kind="dense"):
    tf.random.set_seed(2)
    layers = [keras.Input((5,)), keras.layers.Dense(8, activation="tanh")]
    if kind == "batch_norm":
        layers.append(keras.layers.BatchNormalization())
    model = (Recording if kind == "recording" else keras.Sequential)(layers + [keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse", metrics=["mae"],
                  run_eagerly=kind == "recording")
    return model


def _fits(kind="dense"):
    x, y = _data()
    model = _model(kind)
    arrays = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=2, shuffle=False, verbose=0).history
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
    from_dataset = model.fit(dataset, epochs=1, verbose=0).history
    evaluated = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0, return_dict=True)
    return model, (arrays, from_dataset, evaluated)


def _same_on_every_rank(model):
    flat = np.concatenate([w.ravel() for w in model.get_weights()])[None]
    everyone = hvd.allgather(tf.constant(flat)).numpy()
    assert (everyone == everyone[0]).all(), "ranks ended with different weights"


def _check(kind):
    reference, ref_logs = _fits(kind)  # one process on the global batches, before any strategy
    Recording.seen.clear()
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        pass  # (Keras's steps shard from here on; the model may be made inside or outside the scope)
    model, logs = _fits(kind)
    _same_on_every_rank(model)
    if kind == "batch_norm":  # the moving variance of slices is not the global batch's: equal ranks only
        return
    for a, b in zip(model.get_weights(), reference.get_weights()):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    for ours, theirs in zip(logs[:2], ref_logs[:2]):
        for key in ("loss", "mae"):
            np.testing.assert_allclose(ours[key], theirs[key], rtol=2e-5)
    for key in ("loss", "mae"):
        np.testing.assert_allclose(logs[2][key], ref_logs[2][key], rtol=2e-5)
    if kind == "recording":
        n, r = hvd.size(), hvd.rank()
        sizes = [[len(range(*_bounds(b, q, n))) for q in range(n)][r] for b in (12, 12, 12, 10)]
        assert Recording.seen == sizes * 3, (Recording.seen, sizes)


def _bounds(batch, rank, size):
    from tapegrad.distribute._multi_worker import slice_bounds
    return slice_bounds(batch, batch, rank, size)


CASES = {"fit": lambda: _check("dense"), "fit_eager": lambda: _check("recording"),
         "fit_batch_norm": lambda: _check("batch_norm")}

if __name__ == "__main__":
    case = sys.argv[1]
    CASES[case]()
    hvd.barrier()
    if hvd.rank() == 0:
        print(f"{case} ok", flush=True)
