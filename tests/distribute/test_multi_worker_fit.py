"""Keras fit and evaluate under tf.distribute.MultiWorkerMirroredStrategy with 2 and 3 MPI ranks
(tests/distribute/fit_worker.py runs each case and checks itself: each rank steps on its slice of every
global batch, the ranks end with equal weights, equal to one process fitting the global batches, and
the history and evaluate logs are the global ones; Note [Sharded Keras steps] in
distribute/_keras_steps.py). Skipped without the mpi extra."""
import os
import shutil
import subprocess
import sys

import pytest

WORKER = os.path.join(os.path.dirname(__file__), "fit_worker.py")


def _mpiexec():
    pytest.importorskip("mpi4py")
    found = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec")
    return found


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("case", ["fit", "fit_eager", "fit_batch_norm"])
def test_fit_under_mpiexec(case, n):
    env = dict(os.environ, TAPEGRAD_MPI_TIMEOUT="60", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    p = subprocess.run([_mpiexec(), "-n", str(n), sys.executable, WORKER, case], env=env, capture_output=True,
                       text=True, timeout=300)
    out = p.stdout + p.stderr
    assert p.returncode == 0 and f"{case} ok" in out, out
