"""Run under mpiexec by tests/distribute/test_distribute.py: `python mpi_worker.py CASE`. Each case
checks itself (assert) on every rank and prints `CASE ok` on rank 0; a failure exits non-zero."""
import os
import signal
import sys
import time

import numpy as np

import tapegrad as tf
import tapegrad.distribute as hvd
from tapegrad import keras
from tapegrad.distribute import _reduce, _runtime, _shared


def collectives():
    r, n = hvd.rank(), hvd.size()
    assert hvd.local_size() == n and hvd.local_rank() == r and hvd.cross_size() == 1
    x = tf.constant([1.0, -2.0, 3.0]) * (r + 1)
    all_x = np.array([[1.0, -2.0, 3.0]]) * np.arange(1, n + 1)[:, None]
    np.testing.assert_allclose(hvd.allreduce(x).numpy(), all_x.mean(0), rtol=1e-6)
    for op, ref in ((hvd.Sum, all_x.sum(0)), (hvd.Min, all_x.min(0)), (hvd.Max, all_x.max(0)),
                    (hvd.Product, all_x.prod(0))):
        np.testing.assert_allclose(hvd.allreduce(x, op=op).numpy(), ref, rtol=1e-6)
    np.testing.assert_allclose(hvd.allreduce(x, average=False).numpy(), all_x.sum(0), rtol=1e-6)
    i = hvd.allreduce(tf.constant([r, 10]), op=hvd.Sum)
    assert i.dtype == tf.int32 and i.numpy().tolist() == [n * (n - 1) // 2, 10 * n]
    ia = hvd.allreduce(tf.constant([3 * r + 1, 7]))  # an integer average floors, as an integer must
    assert ia.dtype == tf.int32 and ia.numpy().tolist() == [(3 * n * (n - 1) // 2 + n) // n, 7], ia
    assert hvd.allreduce(tf.zeros([0, 3]), op=hvd.Sum).shape == (0, 3)
    f64 = hvd.allreduce(tf.constant(float(r), tf.float64), prescale_factor=2.0)
    assert f64.dtype == tf.float64 and abs(float(f64) - 2.0 * (n - 1) / 2) < 1e-12
    big = tf.fill([300000], float(r))  # larger than the fusion threshold: reduced from its own memory
    grouped = hvd.grouped_allreduce([x, big, tf.constant([[r]], tf.int64)], op=hvd.Sum)
    np.testing.assert_allclose(grouped[0].numpy(), all_x.sum(0), rtol=1e-6)
    assert float(grouped[1][123]) == n * (n - 1) / 2 and grouped[2].dtype == tf.int64
    g = hvd.allgather(tf.fill([r + 1, 2], float(r)))
    assert g.shape == (n * (n + 1) // 2, 2)
    assert g.numpy()[:, 0].tolist() == [float(k) for k in range(n) for _ in range(k + 1)]
    b = hvd.broadcast(x, root_rank=n - 1)
    np.testing.assert_allclose(b.numpy(), all_x[-1], rtol=1e-6)
    assert hvd.broadcast(tf.constant([r == 0]), root_rank=0).numpy().tolist() == [True]  # bools travel too
    assert hvd.allgather(tf.constant([r == 0])).numpy().tolist() == [True] + [False] * (n - 1)
    assert hvd.allgather(tf.fill([r + 1], r)).numpy().tolist() == [k for k in range(n) for _ in range(k + 1)]
    v = tf.Variable(x)
    hvd.broadcast_variables([v], root_rank=0)
    np.testing.assert_allclose(v.numpy(), all_x[0])
    # Gradients through the collectives (Horovod's rules).
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        s = hvd.allreduce(w * (r + 1), op=hvd.Sum)
        z = tf.reduce_sum(s ** 2)
        gathered = tf.reduce_sum(hvd.allgather(tf.reshape(w, [1, 2]) * (r + 1)) ** 2)
        bc = tf.reduce_sum(hvd.broadcast(w * (r + 1), root_rank=0) * 3.0)
    k = n * (n + 1) / 2
    np.testing.assert_allclose(tape.gradient(z, w).numpy(), n * 2 * k * np.array([1.0, 2.0]) * (r + 1), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(gathered, w).numpy(), n * 2 * (r + 1) ** 2 * np.array([1.0, 2.0]),
                               rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(bc, w).numpy(), [3.0 * n, 3.0 * n] if r == 0 else [0.0, 0.0])
    bad = [  # (call, error class, text the message must hold)
        (lambda: hvd.broadcast(x, root_rank=n), tf.errors.InvalidArgumentError, "root_rank"),
        (lambda: hvd.grouped_allreduce(x), TypeError, "must be a list"),
        (lambda: hvd.allreduce("text"), tf.errors.InvalidArgumentError, "allreduce: tensor: reducing string"),
        (lambda: hvd.allreduce(tf.constant([True])), tf.errors.InvalidArgumentError, "reducing bool"),
        (lambda: hvd.allreduce(None), TypeError, "allreduce: tensor"),
        (lambda: hvd.allgather(tf.constant(1.0)), tf.errors.InvalidArgumentError, "at least one dimension"),
        (lambda: hvd.allreduce(x, op=hvd.Sum, average=True), ValueError, "not both"),
        (lambda: hvd.allreduce(x, op="sum"), TypeError, "op must be"),
        (lambda: hvd.allreduce(x, op=hvd.Adasum), tf.errors.UnimplementedError, "Adasum"),
        (lambda: hvd.allreduce(x, compression=object), tf.errors.UnimplementedError, "Compression.fp16"),
        (lambda: hvd.allreduce(tf.constant([1, 2]), prescale_factor=2.0), tf.errors.InvalidArgumentError,
         "need float tensors"),
        (lambda: hvd.DistributedOptimizer(keras.optimizers.SGD(), backward_passes_per_step=2),
         tf.errors.UnimplementedError, "backward_passes_per_step"),
        (lambda: hvd.DistributedGradientTape(tf.GradientTape(), op=hvd.Sum, gradient_predivide_factor=2.0),
         ValueError, "op=Average"),
        (lambda: hvd.set_timeout(0), ValueError, "positive"),
        (lambda: hvd.set_fusion_threshold(-1), ValueError, ">= 0"),
    ]
    for call, cls, text in bad:
        try:
            call()
        except cls as e:
            assert text in str(e), (text, str(e))
        else:
            raise AssertionError(f"no {cls.__name__} for {text}")
    hvd.allreduce(x)  # the job goes on: every rank refused the same calls before any message


def _data(n_rows=48):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(n_rows, 6)).astype(np.float32)
    y = (x @ rng.normal(size=(6, 1)) + 0.1).astype(np.float32)
    return x, y


def _model():
    tf.random.set_seed(1)
    m = keras.Sequential([keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(16, activation="relu"),
                          keras.layers.Dense(1)])
    m.build((None, 6))
    return m


def _train(x, y, distributed, steps=6, batch=12):
    model, opt = _model(), keras.optimizers.Adam(0.01)
    for step in range(steps):
        lo = (step * batch) % len(x)
        xb, yb = x[lo:lo + batch], y[lo:lo + batch]
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(xb) - yb) ** 2)
        if distributed:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return [v.numpy() for v in model.trainable_variables]


def equivalence():
    """n ranks, each on 1/n of every batch, end with the weights of one process on whole batches."""
    r, n = hvd.rank(), hvd.size()
    x, y = _data()
    per = 12 // n
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(per).shard(n, r)  # rank r: batches r, r+n, ...
    shard = [(a.numpy(), b.numpy()) for a, b in ds]
    xs, ys = np.concatenate([a for a, _ in shard]), np.concatenate([b for _, b in shard])
    weights = _train(xs, ys, distributed=True, batch=per)
    # The same for every fusion threshold: one tensor per bucket, or all in one.
    default = hvd.fusion_threshold()
    for threshold in (0, 1 << 30):
        hvd.set_fusion_threshold(threshold)
        again = _train(xs, ys, distributed=True, batch=per)
        for a, b in zip(weights, again):
            assert np.array_equal(a, b), f"fusion threshold {threshold} changed the result"
    hvd.set_fusion_threshold(default)
    # The same whether buckets start during the sweep or after it (Note [When to overlap]); through
    # shared memory a bucket "starts" when a gradient is written into the window.
    st, during_sweep = _runtime.state(), []
    shared = _shared.shared_arena(st) is not None
    cls, start_name = (_shared.SharedReduction, "_write") if shared else (_reduce.Reduction, "_start")
    final, start = cls.final, getattr(cls, start_name)

    def spy_final(self, index, tensor):
        during_sweep.append(True)
        try:
            return final(self, index, tensor)
        finally:
            during_sweep.pop()

    def spy_start(self, *args):
        started.append(bool(during_sweep))
        return start(self, *args)

    cls.final = spy_final
    setattr(cls, start_name, spy_start)
    configured = st.overlap
    for overlap in (True, False):
        st.overlap, started = overlap, []
        again = _train(xs, ys, distributed=True, batch=per)
        for a, b in zip(weights, again):
            assert np.array_equal(a, b), f"overlap={overlap} changed the result"
        assert started and any(started) == overlap, f"overlap={overlap}: buckets started during the sweep: {started}"
    cls.final = final
    setattr(cls, start_name, start)
    st.overlap = configured
    # One process on the whole batches: batch i of the full run is the ranks' batches i*n .. i*n+n-1.
    order = np.concatenate([np.arange(k * per, (k + 1) * per) for s in range(len(x) // 12)
                            for k in range(s * n, s * n + n)])
    reference = _train(x[order], y[order], distributed=False)
    for a, b in zip(weights, reference):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    everyone = hvd.allgather(tf.reshape(tf.concat([tf.reshape(w, [-1]) for w in weights], 0), [1, -1])).numpy()
    assert (everyone == everyone[0]).all(), "ranks ended with different weights"
    s = hvd.stats()
    assert s["steps"] == 30 and s["collectives"] > 0 and s["bytes"] > 0


def overlap_policy():
    """TAPEGRAD_OVERLAP: 1 (the default) starts buckets during the sweep, 0 after it."""
    want = os.environ.get("TAPEGRAD_OVERLAP", "1") == "1"
    assert _runtime.state().overlap == want, (os.environ.get("TAPEGRAD_OVERLAP"), want)


def shared_policy():
    """TAPEGRAD_SHARED_MEMORY: 1 (the default) reduces through the shared window when every rank is on
    this machine, 0 by MPI's collectives; the results are the same."""
    st = _runtime.state()
    want = os.environ.get("TAPEGRAD_SHARED_MEMORY", "1") == "1"
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) * (hvd.rank() + 1))
    chosen = []
    init = _shared.SharedReduction.__init__

    def spy(self, *args, **kwargs):
        chosen.append(True)
        return init(self, *args, **kwargs)

    _shared.SharedReduction.__init__ = spy
    got = hvd.allreduce(x, op=hvd.Sum).numpy()
    _shared.SharedReduction.__init__ = init
    assert (_shared.shared_arena(st) is not None) == want == bool(chosen), (want, chosen)
    n = hvd.size()
    np.testing.assert_array_equal(got, np.arange(6, dtype=np.float32).reshape(2, 3) * (n * (n + 1) // 2))


def shared_fallback():
    """A group the shared window has no room for (TAPEGRAD_SHARED_MEMORY_LIMIT here, a full /dev/shm
    in life) warns and goes to MPI's collectives on every rank, with the same results; so do later ones."""
    import warnings
    st, n = _runtime.state(), hvd.size()
    small = hvd.allreduce(tf.fill([8], float(hvd.rank())), op=hvd.Sum)
    assert _shared.shared_arena(st) is not None and float(small[0]) == n * (n - 1) / 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        big = hvd.allreduce(tf.fill([100000], float(hvd.rank())), op=hvd.Sum)
    assert any("TAPEGRAD_SHARED_MEMORY_LIMIT" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert float(big[99999]) == n * (n - 1) / 2 and _shared.shared_arena(st) is None
    v = tf.Variable(tf.ones([3]) * (hvd.rank() + 1))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    g = hvd.DistributedGradientTape(tape).gradient(loss, [v])[0]
    np.testing.assert_allclose(g.numpy(), [n + 1] * 3)  # mean of 2 (r + 1)


def objects():
    """broadcast_object, allgather_object, barrier, and hvd.load_model resuming on every rank."""
    import tempfile
    import tapegrad.distribute.keras as hvdk
    r, n = hvd.rank(), hvd.size()
    mine = {"epoch": 3, "from": r}
    got = hvd.broadcast_object(mine, root_rank=n - 1)
    assert got == {"epoch": 3, "from": n - 1} and got is not mine, got  # a copy on the root too
    assert hvd.allgather_object(("rank", r)) == [("rank", k) for k in range(n)]
    assert hvd.broadcast_object(None) is None and hvd.allgather_object(None, name="nothing") == [None] * n
    for call, cls, text in ((lambda: hvd.allgather_object(lambda: 0), TypeError, "cannot be pickled"),
                            (lambda: hvd.broadcast_object(1, root_rank=n), tf.errors.InvalidArgumentError,
                             "root_rank")):
        try:
            call()
        except cls as e:
            assert text in str(e), str(e)
        else:
            raise AssertionError(f"no {cls.__name__} for {text}")
    hvd.barrier()
    # Resuming: rank 0 saves a trained model; every rank loads it with its optimizer's state, and
    # the restored optimizer averages the gradients (the ranks' data differ, their weights stay equal).
    x, y = _data()
    path = hvd.broadcast_object(os.path.join(tempfile.mkdtemp(), "m.keras") if r == 0 else None)
    if r == 0:
        m = keras.Sequential([keras.layers.Dense(1)])
        m.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
        m.fit(x, y, batch_size=8, epochs=1, verbose=0)
        m.save(path)
    hvd.barrier()
    m = hvdk.load_model(path)
    assert getattr(m.optimizer, "_distributed", False) and int(m.optimizer.iterations.numpy()) == 6
    m.fit(x[r::n], y[r::n] * (r + 1), batch_size=4, epochs=1, verbose=0)
    flat = tf.reshape(tf.concat([tf.reshape(w, [-1]) for w in m.trainable_variables], 0), [1, -1])
    everyone = hvd.allgather(flat).numpy()
    assert (everyone == everyone[0]).all(), everyone


def one_rank():
    """Note [One rank]: one process gets the plain tape's gradients back, eager, traced and through
    DistributedOptimizer, with no collective run; a predivide factor still goes through a reduction."""
    assert hvd.size() == 1
    w = tf.Variable([[0.5, -1.0], [2.0, 0.25]])
    x = tf.constant([[1.0, 2.0]])

    def grads(distributed, **kw):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.tanh(x @ w) ** 2)
        return (hvd.DistributedGradientTape(tape, **kw) if distributed else tape).gradient(loss, [w])

    st, handed = _runtime.state(), []
    submit = st.submit
    st.submit = lambda fn, *args: handed.append(fn) or submit(fn, *args)  # work for the communication thread
    plain = grads(False)[0].numpy()
    assert np.array_equal(grads(True)[0].numpy(), plain)
    assert np.array_equal(tf.function(lambda: grads(True))()[0].numpy(), plain)
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(0.1))
    opt.apply_gradients(zip(grads(False), [w]))
    assert handed == [], handed
    np.testing.assert_allclose(grads(True, gradient_predivide_factor=4.0)[0].numpy(), grads(False)[0].numpy(),
                               rtol=1e-6)
    assert handed, "a predivide factor goes through a reduction"
    st.submit = submit


def compressed():
    """Compression.fp16 (Note [Wire dtype]): floating values travel as float16 at every size, are summed
    in float32 and rounded to float16 once, and come back in the tensor's dtype; integers are exact."""
    r, n = hvd.rank(), hvd.size()
    fp16 = hvd.Compression.fp16
    base = np.array([1 / 3, 1000.1, -2.5e-3, 7.0], np.float32)
    mine = tf.constant(base * (r + 1))
    ranks = [(base * (k + 1)).astype(np.float16) for k in range(n)]
    want_sum = np.sum(np.float32(ranks), axis=0).astype(np.float16).astype(np.float32)  # rounded once
    got = hvd.allreduce(mine, op=hvd.Sum, compression=fp16)
    assert got.dtype == tf.float32 and np.array_equal(got.numpy(), want_sum), (got.numpy(), want_sum)
    assert not np.array_equal(got.numpy(), base * n * (n + 1) / 2)  # float16's rounding: it did travel so
    np.testing.assert_allclose(hvd.allreduce(mine, compression=fp16).numpy(), want_sum / n, rtol=1e-6)
    big = tf.fill([200000], (r + 1) / 3)  # above the fusion threshold: a bucket of its own
    as64 = tf.constant(base.astype(np.float64) * (r + 1))
    g = hvd.grouped_allreduce([mine, big, tf.constant([r, 7]), as64], op=hvd.Sum, compression=fp16)
    assert np.array_equal(g[0].numpy(), want_sum)
    assert float(g[1][0]) == float(np.float16(sum(np.float32(np.float16((k + 1) / 3)) for k in range(n))))
    assert g[2].dtype == tf.int32 and g[2].numpy().tolist() == [n * (n - 1) // 2, 7 * n]
    assert g[3].dtype == tf.float64 and np.array_equal(g[3].numpy(), want_sum.astype(np.float64))
    w = tf.Variable(base)

    def grads():
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(w * w) * (r + 1) / 2
        return hvd.DistributedGradientTape(tape, compression=fp16).gradient(loss, [w])[0]
    want = want_sum / n  # d/dw = w * (r + 1): the same values as `mine`, averaged
    np.testing.assert_allclose(grads().numpy(), want, rtol=1e-6)
    np.testing.assert_allclose(tf.function(grads)().numpy(), want, rtol=1e-6)
    opt = hvd.DistributedOptimizer(keras.optimizers.SGD(1.0), compression=fp16)
    before = w.numpy().copy()
    opt.apply_gradients([(mine, w)])
    np.testing.assert_allclose(before - w.numpy(), want, rtol=1e-6)


def traced():
    """Horovod's TF2 loop with @tf.function, and model.fit with the Keras callbacks."""
    r, n = hvd.rank(), hvd.size()
    x, y = _data()
    model, opt = _model(), keras.optimizers.SGD(0.05)

    @tf.function
    def training_step(xb, yb, first_batch):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(xb, training=True) - yb) ** 2)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    default = hvd.fusion_threshold()
    hvd.set_fusion_threshold(0)  # one bucket per gradient: each starts as soon as the sweep finishes it
    losses = [float(training_step(x[k::n][:8], y[k::n][:8], k == 0)) for k in range(3)]
    hvd.set_fusion_threshold(default)
    assert all(np.isfinite(losses))
    # Two graphs (first_batch True and False), each with the collectives as nodes, replayed after.
    assert training_step.experimental_get_tracing_count() == 2
    texts = [cf.pretty_printed_graph() for cf in set(training_step._concrete.values())]
    for t in texts:  # a bucket starts before the sweep's last MatMul: communication overlaps it
        lines = t.splitlines()
        starts = [k for k, ln in enumerate(lines) if "HostCall HorovodAllreduceStart" in ln]
        waits = [k for k, ln in enumerate(lines) if "HostCall HorovodAllreduceWait" in ln]
        matmuls = [k for k, ln in enumerate(lines) if "MatMul(" in ln]
        assert starts and len(waits) == 1 and starts[0] < matmuls[-1] < waits[0], t
    assert sum("HorovodBroadcastVariables" in t for t in texts) == 1
    # Differentiating through collectives inside a traced function (their rules are recorded too).
    w = tf.Variable([1.0, 2.0])

    @tf.function
    def through(scale):
        with tf.GradientTape() as tape:
            z = tf.reduce_sum(hvd.allreduce(w * scale, op=hvd.Sum) ** 2)
            g = tf.reduce_sum(hvd.allgather(tf.reshape(w, [1, 2]) * scale) ** 2)
        return tape.gradient([z, g], w)
    for scale in (1.0, 2.0, 3.0):
        got = through(tf.constant(scale)).numpy()
        k = scale * n
        np.testing.assert_allclose(got, n * 2 * k * np.array([1.0, 2.0]) * scale + n * 2 * scale ** 2 * np.array(
            [1.0, 2.0]), rtol=1e-6)
    flat = tf.reshape(tf.concat([tf.reshape(v, [-1]) for v in model.trainable_variables], 0), [1, -1])
    everyone = hvd.allgather(flat).numpy()
    assert (everyone == everyone[0]).all()
    m2 = keras.Sequential([keras.layers.Dense(1)])
    m2.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.SGD(0.01, momentum=0.9)), loss="mse",
               metrics=["mae"])
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback(),
                 hvd.callbacks.LearningRateWarmupCallback(0.01, warmup_epochs=2, momentum_correction=False)]
    xs, ys = x[r::n], y[r::n] * (r + 1)  # a different loss per rank: the averaged metrics must agree
    h = m2.fit(xs, ys, batch_size=8, epochs=3, verbose=0, callbacks=callbacks)
    logs = hvd.allgather(tf.constant([[h.history["loss"][-1], h.history["mae"][-1]]], tf.float64)).numpy()
    assert (logs == logs[0]).all(), logs
    assert abs(h.history["lr"][-1] - 0.01) < 1e-8 and h.history["lr"][0] < 0.009  # a float32 rate, as in Keras
    flat = tf.reshape(m2.trainable_variables[0], [1, -1])
    everyone = hvd.allgather(flat).numpy()
    assert (everyone == everyone[0]).all()


def _steps(break_at, action):
    r = hvd.rank()
    v = tf.Variable(tf.ones([10]))
    for step in range(5):
        if step == break_at and r == hvd.size() - 1:
            action()
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(v * v)
        hvd.DistributedGradientTape(tape).gradient(loss, [v])


def mismatch():
    r = hvd.rank()
    v = tf.Variable(tf.ones([3 + (r == hvd.size() - 1)]), name="kernel")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(v * v)
    try:
        hvd.DistributedGradientTape(tape).gradient(loss, [v])
    except tf.errors.InvalidArgumentError as e:
        assert "kernel" in str(e) and "[3] float32" in str(e) and "[4] float32" in str(e), str(e)
    else:
        raise AssertionError("shapes that differ across ranks did not raise")
    try:
        hvd.allreduce(tf.ones([2, 1 + r]), name="bad")
    except tf.errors.InvalidArgumentError as e:
        assert "bad" in str(e), str(e)
    else:
        raise AssertionError("allreduce of differing shapes did not raise")
    # The job goes on after a mismatch.
    assert hvd.allreduce(tf.constant(1.0), op=hvd.Sum).numpy() == hvd.size()


def stall():
    _steps(2, lambda: time.sleep(600))


def exit_early():
    _steps(2, lambda: os._exit(3))


def kill():
    _steps(2, lambda: os.kill(os.getpid(), signal.SIGKILL))


def _last_rank():
    return int(os.environ.get("PMI_RANK", "0")) == int(os.environ.get("PMI_SIZE", "1")) - 1


def _before_init(action):
    """The last rank misbehaves before init, with MPI started (by importing mpi4py.MPI, as a script using
    mpi4py does). MPI_Init itself waits for every process the launcher started, tapegrad or not."""
    def case():
        from mpi4py import MPI  # noqa: F401 -- starts MPI on every rank
        if _last_rank():
            action()
        hvd.init(timeout=float(os.environ.get("WORKER_TIMEOUT", "30")))
        _steps(99, None)
    return case


def _raise():
    raise RuntimeError("a rank that fails before the first collective")


# Misbehaving before init, or after it but before the first collective (the shared window's set-up).
PRE_INIT = {"init_stall": _before_init(lambda: time.sleep(600)), "init_exit": _before_init(lambda: os._exit(3)),
            "init_raise": _before_init(_raise)}
FIRST = {"first_stall": lambda: _steps(0, lambda: time.sleep(600)), "first_exit": lambda: _steps(0, lambda: os._exit(3)),
         "first_raise": lambda: _steps(0, _raise)}

CASES = {"collectives": collectives, "equivalence": equivalence, "traced": traced, "mismatch": mismatch,
         "overlap_policy": overlap_policy, "shared_policy": shared_policy, "shared_fallback": shared_fallback, "objects": objects, "one_rank": one_rank,
         "compressed": compressed,
         "stall": stall, "exit": exit_early, "kill": kill}

if __name__ == "__main__":
    case = sys.argv[1]
    if case in PRE_INIT:
        PRE_INIT[case]()
        sys.exit(0)
    hvd.init(timeout=float(os.environ.get("WORKER_TIMEOUT", "30")))
    FIRST.get(case, CASES.get(case))()
    hvd.shutdown()
    if int(os.environ.get("PMI_RANK", "0")) == 0:
        print(f"{case} ok", flush=True)
