"""tf.distribute.MultiWorkerMirroredStrategy: one replica per MPI rank under mpiexec with 2 and 3 ranks
(tests/distribute/mwms_worker.py runs each case and checks itself; skipped without the mpi extra), and
one replica without an MPI launch (Note [Ranks as workers] in distribute/_multi_worker.py)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tapegrad as tf
from tapegrad.distribute._multi_worker import slice_bounds

WORKER = os.path.join(os.path.dirname(__file__), "mwms_worker.py")


def _mpiexec():
    pytest.importorskip("mpi4py")
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec")
    return found


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("case", ["strategy_basics", "custom_loop"])
def test_under_mpiexec(case, n):
    env = dict(os.environ, TAPEGRAD_MPI_TIMEOUT="60", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    p = subprocess.run([_mpiexec(), "-n", str(n), sys.executable, WORKER, case], env=env, capture_output=True,
                       text=True, timeout=300)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and f"{case} ok" in out, out


def test_one_replica_without_mpi(monkeypatch):
    for name in ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "TF_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    from tapegrad.distribute import _runtime
    if _runtime.is_initialized():
        pytest.skip("this process is in an MPI job")
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.extended.worker_devices == ("/job:localhost/replica:0/task:0/device:CPU:0",)
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy
        out = strategy.run(lambda x: tf.distribute.get_replica_context().all_reduce("SUM", x * 2.0),
                           args=(tf.constant([1.0, 3.0]),))
    np.testing.assert_allclose(out.numpy(), [2.0, 6.0])
    np.testing.assert_allclose(strategy.reduce("MEAN", out, axis=0).numpy(), 4.0)
    ds = tf.data.Dataset.range(5).batch(2)
    assert strategy.experimental_distribute_dataset(ds) is ds
    with pytest.raises(ValueError, match="reduce_op"):
        strategy.reduce("MAX", out, axis=None)


def test_refusals(monkeypatch):
    from tapegrad.distribute import _runtime
    if _runtime.is_initialized():
        pytest.skip("this process is in an MPI job")
    for name in ("PMI_SIZE", "PMI_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 0}}')
    with pytest.raises(tf.errors.UnimplementedError, match="mpiexec"):
        tf.distribute.MultiWorkerMirroredStrategy()
    monkeypatch.delenv("TF_CONFIG")
    with pytest.raises(tf.errors.UnimplementedError, match="cluster_resolver"):
        tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=object())


@pytest.mark.parametrize("global_size, batch, size, expected", [
    (7, 7, 2, [(0, 4), (4, 7)]), (8, 8, 3, [(0, 3), (3, 6), (6, 8)]), (8, 5, 2, [(0, 4), (4, 5)]),
    (8, 1, 3, [(0, 1), (1, 1), (1, 1)]), (12, 12, 3, [(0, 4), (4, 8), (8, 12)])])
def test_slices_of_a_global_batch(global_size, batch, size, expected):
    assert [slice_bounds(global_size, batch, r, size) for r in range(size)] == expected
