"""Run under mpiexec by tests/distribute/test_multi_worker.py: `python mwms_worker.py CASE`. Each case checks
itself (assert) on every rank and prints `CASE ok` on rank 0; a failure exits non-zero."""
import sys

import numpy as np

import tapegrad as tf
import tapegrad.distribute as hvd
from tapegrad import keras

GLOBAL_BATCH = 12


def strategy_basics():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    r, n = hvd.rank(), hvd.size()
    assert strategy.num_replicas_in_sync == n
    assert strategy.extended.worker_devices == (f"/job:worker/replica:0/task:{r}/device:CPU:0",)
    with strategy.scope():
        def step(x):
            ctx = tf.distribute.get_replica_context()
            assert int(ctx.replica_id_in_sync_group) == r and ctx.num_replicas_in_sync == n
            return x * (r + 1), ctx.all_reduce(tf.distribute.ReduceOp.SUM, x * (r + 1)), ctx.all_reduce("MEAN", x)
        local, summed, mean = strategy.run(step, args=(tf.constant([1.0, 2.0]),))
    k = n * (n + 1) / 2
    np.testing.assert_allclose(summed.numpy(), [k, 2 * k])
    np.testing.assert_allclose(mean.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(strategy.reduce("SUM", local, axis=None).numpy(), [k, 2 * k])
    np.testing.assert_allclose(strategy.reduce("MEAN", local, axis=None).numpy(), [k / n, 2 * k / n])
    np.testing.assert_allclose(strategy.reduce("SUM", local, axis=0).numpy(), 3 * k)
    # MEAN along an axis: over every rank's elements (rank r holds r + 1 of them)
    uneven = tf.fill([r + 1], float(r))
    want = sum(q * (q + 1) for q in range(n)) / sum(q + 1 for q in range(n))
    np.testing.assert_allclose(strategy.reduce("MEAN", uneven, axis=0).numpy(), want, rtol=1e-6)
    gathered = strategy.gather(tf.fill([2, r + 1], float(r)), axis=1).numpy()
    assert gathered.shape == (2, n * (n + 1) // 2)
    assert gathered[0].tolist() == [float(q) for q in range(n) for _ in range(q + 1)]
    # each rank's slice of every global batch, a short last batch filled rank by rank
    batches = [list(b.numpy()) for b in strategy.experimental_distribute_dataset(tf.data.Dataset.range(14).batch(7))]
    low, extra = divmod(7, n)
    sizes = [low + (q < extra) for q in range(n)]
    start = sum(sizes[:r])
    assert batches == [list(range(start, start + sizes[r])), list(range(7 + start, 7 + start + sizes[r]))], batches
    short = [list(b.numpy()) for b in strategy.experimental_distribute_dataset(tf.data.Dataset.range(9).batch(8))]
    per = [list(range(sum(sizes8[:q]), sum(sizes8[:q + 1]))) for sizes8 in [[8 // n + (q < 8 % n) for q in range(n)]]
           for q in range(n)][r]
    rest = [8] if r == 0 else []
    assert short == [per, rest], short
    ctx = strategy.distribute_datasets_from_function(lambda c: c)
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == (n, r, n)


def _data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(48, 5)).astype(np.float32)
    y = (x @ rng.normal(size=(5, 1)) + 0.3).astype(np.float32)
    return x, y


def _model():
    tf.random.set_seed(2)
    m = keras.Sequential([keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
    m.build((None, 5))
    return m


def _step_fn(model, optimizer):
    def step(x, y):
        with tf.GradientTape() as tape:
            per_example = tf.reduce_sum((model(x) - y) ** 2, axis=1)
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=GLOBAL_BATCH)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return step


def custom_loop():
    """A TF-style custom loop: every rank ends with the weights of one process on the whole batches."""
    x, y = _data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    results = {}
    for traced in (False, True):
        with strategy.scope():
            model, optimizer = _model(), keras.optimizers.Adam(0.05)
        step = _step_fn(model, optimizer)

        def train_step(inputs, step=step):
            per_replica = strategy.run(step, args=inputs)
            return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

        if traced:
            train_step = tf.function(train_step)
        losses = [float(train_step(batch)) for _ in range(2) for batch in strategy.experimental_distribute_dataset(ds)]
        results[traced] = [v.numpy() for v in model.trainable_variables], losses
    # one process on the whole batches, no strategy
    model, optimizer = _model(), keras.optimizers.Adam(0.05)
    step = _step_fn(model, optimizer)
    ref_losses = [float(step(bx, by)) for _ in range(2) for bx, by in ds]
    for traced, (weights, losses) in results.items():
        for a, b in zip(weights, [v.numpy() for v in model.trainable_variables]):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=f"traced={traced}")
        np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
        flat = np.concatenate([w.ravel() for w in weights])[None]
        everyone = hvd.allgather(tf.constant(flat)).numpy()
        assert (everyone == everyone[0]).all(), "ranks ended with different weights"


CASES = {"strategy_basics": strategy_basics, "custom_loop": custom_loop}

if __name__ == "__main__":
    case = sys.argv[1]
    CASES[case]()
    hvd.barrier()
    if hvd.rank() == 0:
        print(f"{case} ok", flush=True)
