"""tapegrad.distribute under mpiexec: 2 and 3 ranks (tests/distribute/mpi_worker.py runs each case and checks
itself). Skipped without the mpi extra (mpi4py and an MPI with mpiexec)."""
import os
import shutil
import subprocess
import sys
import time

import pytest

pytest.importorskip("mpi4py")
MPIEXEC = shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")
if MPIEXEC is None:
    pytest.skip("no mpiexec", allow_module_level=True)

WORKER = os.path.join(os.path.dirname(__file__), "mpi_worker.py")


def run(case, n, timeout=2.0, extra=(), **env_vars):
    env = dict(os.environ, WORKER_TIMEOUT=str(timeout), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", **env_vars)
    for attempt in range(2):
        t0 = time.monotonic()
        p = subprocess.run([MPIEXEC, *extra, "-n", str(n), sys.executable, WORKER, case], env=env,
                           capture_output=True, text=True, timeout=120)
        out = p.stdout + p.stderr
        if out.strip():
            break
        # Nothing at all from any process: the launcher failed before the program ran (seen once
        # on a loaded machine); one more try tells that apart from a failure of the program.
    return p.returncode, out + f"\n[mpiexec exit code {p.returncode}]", time.monotonic() - t0


@pytest.mark.parametrize("shared", ["1", "0"], ids=["shared-memory", "mpi-collectives"])
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("case", ["collectives", "equivalence", "traced", "mismatch"])
def test_case(case, n, shared):
    # Both ways of reducing: through the shared window (Note [Shared-memory reduction]) and MPI's own.
    rc, out, _ = run(case, n, timeout=60, TAPEGRAD_SHARED_MEMORY=shared)
    assert rc == 0 and f"{case} ok" in out, out


@pytest.mark.parametrize("n", [1, 2, 3])
def test_python_objects_barrier_and_load_model(n):
    rc, out, _ = run("objects", n, timeout=60)
    assert rc == 0 and "objects ok" in out, out


@pytest.mark.parametrize("n", [1, 2, 3])
def test_fp16_compression(n):
    rc, out, _ = run("compressed", n, timeout=60)
    assert rc == 0 and "compressed ok" in out, out


def test_one_rank_returns_the_tapes_gradients():
    rc, out, _ = run("one_rank", 1, timeout=60)
    assert rc == 0 and "one_rank ok" in out, out


@pytest.mark.parametrize("setting", [None, "1", "0"])
def test_overlap_policy(setting):
    rc, out, _ = run("overlap_policy", 2, timeout=60, **({} if setting is None else {"TAPEGRAD_OVERLAP": setting}))
    assert rc == 0 and "overlap_policy ok" in out, out


@pytest.mark.parametrize("setting", [None, "1", "0"])
def test_shared_memory_policy(setting):
    rc, out, _ = run("shared_policy", 2, timeout=60, **({} if setting is None else {"TAPEGRAD_SHARED_MEMORY": setting}))
    assert rc == 0 and "shared_policy ok" in out, out


def test_a_bad_shared_memory_setting_is_refused():
    rc, out, _ = run("collectives", 2, timeout=60, TAPEGRAD_SHARED_MEMORY="maybe")
    assert rc != 0 and "TAPEGRAD_SHARED_MEMORY must be 1 or 0, got 'maybe'" in out, out


@pytest.mark.parametrize("n", [2, 3])
def test_a_window_without_room_falls_back_to_mpi(n):
    rc, out, _ = run("shared_fallback", n, timeout=60, TAPEGRAD_SHARED_MEMORY_LIMIT=str(200_000 * n))
    assert rc == 0 and "shared_fallback ok" in out, out


def test_a_bad_shared_memory_limit_is_refused():
    rc, out, _ = run("collectives", 2, timeout=60, TAPEGRAD_SHARED_MEMORY_LIMIT="lots")
    assert rc != 0 and "TAPEGRAD_SHARED_MEMORY_LIMIT must be a number of bytes >= 0, got 'lots'" in out, out


def test_a_bad_overlap_setting_is_refused():
    rc, out, _ = run("overlap_policy", 2, timeout=60, TAPEGRAD_OVERLAP="sometimes")
    assert rc != 0 and "TAPEGRAD_OVERLAP must be 1 or 0, got 'sometimes'" in out, out


@pytest.mark.parametrize("case", ["stall", "exit"])
def test_a_missing_rank_fails_the_others_in_time_naming_it(case):
    # The last rank sleeps (stall) or dies without finalising MPI (exit) at step 2; the others must
    # fail within the 2 s timeout, naming it, and not hang.
    rc, out, seconds = run(case, 3, timeout=2.0, extra=["-disable-auto-cleanup"])
    assert rc != 0, out
    assert "DeadlineExceededError" in out and "rank 2 did not reach it" in out, out
    assert seconds < 30, seconds


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("case", ["init_stall", "init_exit", "init_raise", "first_stall", "first_exit", "first_raise"])
def test_a_rank_missing_from_init_or_the_first_collective_fails_the_others_in_time(case, n):
    # Before, the others waited for ever in MPI's set-up (init's Dup / Split_type, or the shared window's
    # Split_type at the first reduction): init's own meeting now has the deadline too.
    rc, out, seconds = run(case, n, timeout=2.0, extra=["-disable-auto-cleanup"])
    assert rc != 0, out
    assert "DeadlineExceededError" in out and f"rank {n - 1} did not reach it" in out, out
    assert ("init (the ranks meeting" in out) == case.startswith("init"), out
    assert seconds < 30, seconds


def test_a_killed_rank_ends_the_job():
    rc, out, seconds = run("kill", 2, timeout=2.0)
    assert rc != 0 and "kill ok" not in out, out
    assert seconds < 30, seconds


def test_the_horovod_style_example_runs_on_two_ranks():
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "horovod_style_training.py")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    p = subprocess.run([MPIEXEC, "-n", "2", sys.executable, example], env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    accuracy = float(p.stdout.strip().splitlines()[-1].rsplit(" ", 1)[1])
    assert "ranks: 2" in p.stdout and accuracy > 0.9, p.stdout
