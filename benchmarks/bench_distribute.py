"""Data-parallel scaling over MPI (tapegrad.distribute): the wide MLP step and the LeNet CNN step at 1
and 2 ranks, one thread each, and an all-reduce bandwidth row against raw mpi4py.

Workloads (weak scaling: every rank runs the full per-rank batch, so 2 ranks do twice the work), eager and as a tf.function:
  wide MLP    784-512-512-10 relu, batch 256 per rank, sparse CE from logits, Adam; eager step with
              DistributedGradientTape (2.7 MB of float32 gradients a step).
  CNN         28x28x1, batch 64 per rank: Conv2D 32 3x3 relu, MaxPool 2, Conv2D 64 3x3 relu, MaxPool 2,
              Flatten, Dense 128 relu, Dense 10; sparse CE from logits, Adam (0.9 MB of gradients).
Reduced through the shared-memory window (the default with every rank on this machine: Note
[Shared-memory reduction] in tapegrad/distribute/_shared.py) or by MPI's all-reduce on the communication
thread (the "TAPEGRAD_SHARED_MEMORY=0" rows).
"buckets start": during the sweep (the default) or after it (the "TAPEGRAD_OVERLAP=0" rows; Note
[When to overlap] in tapegrad/distribute/_runtime.py); through the window, a bucket starts when its
gradient is written there. The "no communication" rows run the same steps with a plain GradientTape: what two processes on
this machine reach at all (they share the memory bandwidth and caches). The "mpi4py by hand" row
takes a plain tape's gradients and averages each with mpi4py's Allreduce after the sweep, in the
training thread: what the same step costs with MPI and no framework around it. The "Compression.fp16" row
sends the gradients as float16 (Horovod's option; half the bytes). One rank's DistributedGradientTape
returns the tape's own gradients (Note [One rank] in tapegrad/distribute/_tape.py; not with compression), so the speed-ups
is over the plain one-process step. Per row (medians over REPEATS launches, 1 and 2 ranks by turns): step time, samples/s over all
ranks, the speed-up over 1 rank (in brackets: its range over the pairs of launches), the communication
time per step (on the communication thread; through the window, the writes and the summing on the
training thread), the share of it that ran while the backward sweep
was still running (in a graph: before the node that waits for the results), and the time the
training thread waited for results (through the window: for the other ranks) after the sweep.
  allreduce   float32 buffers of 64 KB, 1 MB and 4 MB summed over 2 ranks: tapegrad.distribute.allreduce
              (tensor in, new tensor out; through the window, and with TAPEGRAD_SHARED_MEMORY=0)
              beside mpi4py's Allreduce on NumPy arrays of the same size,
              call by call, interleaved, after a barrier; median of 60 calls; bandwidth = bytes / time.
Cost model for N ranks (ring all-reduce): about 2 (N - 1) / N x bytes / bandwidth per step, plus
latency; through the window each rank writes the bytes once and reads the other ranks' (N - 1) x
bytes; the figures measured here give the bandwidth of this machine's shared memory.
Run: env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_distribute.py
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

STEPS, WARMUP = 40, 5
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))  # launches per row and rank count, by turns


def _mlp(tf, keras):
    model = keras.Sequential([keras.layers.Dense(512, activation="relu"), keras.layers.Dense(512, activation="relu"),
                              keras.layers.Dense(10)])
    model.build((None, 784))
    return model, (256, 784)


def _cnn(tf, keras):
    L = keras.layers
    model = keras.Sequential([L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(2), L.Conv2D(64, 3, activation="relu"),
                              L.MaxPooling2D(2), L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)])
    model.build((None, 28, 28, 1))
    return model, (64, 28, 28, 1)


def worker(which):
    import numpy as np

    import tapegrad as tf
    import tapegrad.distribute as hvd
    from tapegrad import keras
    hvd.init()
    out = {}
    if which.split("-")[0] in ("mlp", "cnn"):
        tf.random.set_seed(0)
        model, shape = (_mlp if which.startswith("mlp") else _cnn)(tf, keras)
        opt = keras.optimizers.Adam(1e-3)
        loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        rng = np.random.default_rng(hvd.rank())
        from mpi4py import MPI

        def by_hand(g):
            out = np.empty(g.shape, np.float32)
            MPI.COMM_WORLD.Allreduce(np.asarray(g), out)
            return tf.constant(out * np.float32(1 / hvd.size()))
        x = tf.constant(rng.normal(size=shape).astype(np.float32))
        y = tf.constant(rng.integers(0, 10, shape[0]))
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            if which.endswith("local"):  # the same work with no communication: the machine's ceiling
                grads = tape.gradient(loss, model.trainable_variables)
            elif which.endswith("mpi4py"):  # by hand: each gradient averaged by mpi4py after the sweep
                grads = [by_hand(g) for g in tape.gradient(loss, model.trainable_variables)]
            else:
                compression = hvd.Compression.fp16 if "fp16" in which else hvd.Compression.none
                grads = hvd.DistributedGradientTape(tape, compression=compression).gradient(
                    loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        if which.endswith("traced"):
            step = tf.function(step)
        times = []
        for i in range(WARMUP + STEPS):
            if i == WARMUP:
                hvd.stats(reset=True)
            t0 = time.perf_counter()
            float(step(x, y))
            times.append(time.perf_counter() - t0)
        s = hvd.stats()
        out = {"step": statistics.median(times[WARMUP:]), "batch": shape[0], "comm": s["comm_seconds"] / STEPS,
               "overlap": s["overlap_seconds"] / STEPS, "wait": s["wait_seconds"] / STEPS,
               "bytes": s["bytes"] / STEPS, "in_sweep": float(hvd._runtime.state().overlap)}
    else:
        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        for nbytes in (64 << 10, 1 << 20, 4 << 20):
            a = np.ones(nbytes // 4, np.float32)
            b = np.empty_like(a)
            t = tf.constant(a)
            cases = (("mpi4py", lambda: comm.Allreduce(a, b)), ("tapegrad", lambda: hvd.allreduce(t, op=hvd.Sum)))
            samples = {name: [] for name, _ in cases}
            for i in range(65):  # the two interleaved, call by call: both see the same machine
                for name, fn in cases:
                    comm.Barrier()
                    t0 = time.perf_counter()
                    fn()
                    if i >= 5:
                        samples[name].append(time.perf_counter() - t0)
            for name, ts in samples.items():
                out[f"{name} {nbytes}"] = statistics.median(ts)
    if hvd.rank() == 0:
        print("RESULT " + json.dumps(out), flush=True)
    hvd.shutdown()


def _ms(seconds):
    return "-" if seconds is None else f"{seconds * 1e3:.2f} ms"


def launch(which, n):
    mpiexec = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    if which.endswith("-defer"):  # every bucket starts when the sweep ends
        env["TAPEGRAD_OVERLAP"], which = "0", which[:-len("-defer")]
    if which.endswith("-collectives"):  # MPI's all-reduce instead of the shared-memory window
        env["TAPEGRAD_SHARED_MEMORY"], which = "0", which[:-len("-collectives")]
    p = subprocess.run([mpiexec, "-n", str(n), sys.executable, __file__, "--worker", which], env=env,
                       capture_output=True, text=True, timeout=900)
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    if p.returncode or not line:
        raise RuntimeError(f"{which} on {n} ranks failed:\n{p.stdout}\n{p.stderr}")
    return json.loads(line[0][7:])


def main():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        print("bench_distribute: skipped (pip install \"tapegrad[mpi]\")")
        return
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if var in os.environ:
            print(f"warning: {var} is set; it slows OpenBLAS (unset it for benchmarks)", file=sys.stderr)
    print("## distribute: weak scaling, one thread per rank\n")
    print("| workload | ranks | step (median) | samples/s | speed-up | buckets start | comm/step | overlapped | "
          "wait/step | bytes/step |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for which, label in (("mlp", "wide MLP step"), ("mlp-defer", "wide MLP step, TAPEGRAD_OVERLAP=0"),
                         ("mlp-collectives", "wide MLP step, TAPEGRAD_SHARED_MEMORY=0"),
                         ("mlp-traced", "wide MLP step, tf.function"),
                         ("mlp-fp16", "wide MLP step, Compression.fp16"),
                         ("mlp-mpi4py", "wide MLP step, mpi4py by hand after the sweep"),
                         ("mlp-local", "wide MLP step, no communication"), ("cnn", "CNN step"),
                         ("cnn-defer", "CNN step, TAPEGRAD_OVERLAP=0"),
                         ("cnn-collectives", "CNN step, TAPEGRAD_SHARED_MEMORY=0"),
                         ("cnn-traced", "CNN step, tf.function"), ("cnn-local", "CNN step, no communication")):
        # 1 and 2 ranks launched by turns, REPEATS times: this VM's speed drifts between launches by
        # more than the effect measured, and alternating puts both sides in the same moments.
        runs = {1: [], 2: []}
        for _ in range(REPEATS):
            for n in (1, 2):
                runs[n].append(launch(which, n))
        pairs = [2 * b["batch"] / b["step"] / (a["batch"] / a["step"]) for a, b in zip(runs[1], runs[2])]
        spread = f" ({min(pairs):.2f}-{max(pairs):.2f})" if len(pairs) > 1 else ""
        base = None
        for n in (1, 2):
            r = {k: statistics.median(x[k] for x in runs[n]) for k in runs[n][0]}
            rate = n * r["batch"] / r["step"]
            base = base or rate
            share = r["overlap"] / r["comm"] if r["comm"] else 0.0
            plain = n == 1 or which.endswith(("local", "mpi4py"))
            starts = "-" if plain else "in the sweep" if r["in_sweep"] else "after it"
            print(f"| {label} | {n} | {r['step'] * 1e3:.2f} ms | {rate:,.0f} | {rate / base:.2f}x{spread if n == 2 else ''} | "
                  f"{starts} | {r['comm'] * 1e3:.2f} ms | {share:.0%} | {_ms(r['wait'])} | {r['bytes'] / 1e6:.2f} MB |")
    print("\n## all-reduce (sum) of float32, 2 ranks\n")
    print("| bytes | tapegrad by | tapegrad | mpi4py | tapegrad GB/s | mpi4py GB/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    for which, by in (("allreduce", "shared window"), ("allreduce-collectives", "MPI_Allreduce")):
        r = launch(which, 2)
        for nbytes in (64 << 10, 1 << 20, 4 << 20):
            ours, raw = r[f"tapegrad {nbytes}"], r[f"mpi4py {nbytes}"]
            print(f"| {nbytes >> 10} KiB | {by} | {ours * 1e6:.0f} us | {raw * 1e6:.0f} us | {nbytes / ours / 1e9:.2f} | "
                  f"{nbytes / raw / 1e9:.2f} | {ours / raw:.2f}x |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
    else:
        main()
