"""The elementwise kernels' worker pool (Note [Dynamic chunks] in cpp/kernels/work_pool.cpp): right results
from concurrent callers, nested and one-thread runs, after fork, and reductions independent of load."""
import os
import threading

import numpy as np
import pytest

import tapegrad as tf

N = 1 << 20  # far above the parallel threshold: every op below is split into chunks


def _data(seed):
    return np.random.default_rng(seed).standard_normal(N).astype(np.float32)


def test_concurrent_callers_each_get_their_own_result():
    inputs = [_data(s) for s in range(6)]
    want = [np.exp(x) * 2 + 1 for x in inputs]
    got, errors = [None] * len(inputs), []

    def work(i):
        try:
            for _ in range(20):
                got[i] = (tf.exp(tf.constant(inputs[i])) * 2 + 1).numpy()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_reduction_does_not_depend_on_the_caller_or_contention():
    x = tf.constant(_data(7))
    alone = float(tf.reduce_sum(x * x))
    results = []

    def work():
        for _ in range(10):
            results.append(float(tf.reduce_sum(x * x)))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(results) == {alone}  # bitwise: one partial per chunk, summed in chunk order


def test_one_thread_gives_the_same_values():
    x = tf.constant(_data(3))
    both = (tf.tanh(x) + x).numpy()
    try:
        tf.config.threading.set_intra_op_parallelism_threads(1)
        one = (tf.tanh(x) + x).numpy()
    finally:
        tf.config.threading.set_intra_op_parallelism_threads(0)
    np.testing.assert_array_equal(one, both)


def test_broadcast_rows_split_into_chunks():
    a = np.random.default_rng(1).standard_normal((4096, 96)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((1, 96)).astype(np.float32)
    np.testing.assert_allclose((tf.constant(a) * tf.constant(b)).numpy(), a * b, rtol=1e-6)
    c = np.random.default_rng(3).standard_normal((4096, 1)).astype(np.float32)
    np.testing.assert_allclose(tf.where(tf.constant(a) > 0, tf.constant(a), tf.constant(c)).numpy(),
                               np.where(a > 0, a, c), rtol=1e-6)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # Python 3.12+: fork of a threaded process
def test_child_of_fork_runs_parallel_kernels():
    x = tf.constant(_data(5))
    want = float(tf.reduce_sum(tf.exp(x)))  # the pool's workers exist now
    pid = os.fork()
    if pid == 0:  # child: its pool starts again with no workers
        code = 0
        try:
            code = 0 if float(tf.reduce_sum(tf.exp(x))) == want else 1
        except BaseException:
            code = 2
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) != 2
                    or not os.path.exists("/proc/stat"), reason="needs Linux with 2 usable CPUs")
def test_gemms_use_the_cpus_other_processes_leave_free():
    # Note [Free CPUs]: beside a process that keeps one of the 2 CPUs busy, GEMMs drop to one thread.
    import subprocess
    import sys
    import time
    code = "import os; os.sched_setaffinity(0, {%d})\nwhile True: pass" % max(os.sched_getaffinity(0))
    busy = subprocess.Popen([sys.executable, "-c", code])
    try:
        a = tf.ones([64, 64])
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline and tf._core._usable_threads() != 1:
            tf.matmul(a, a)
            time.sleep(0.05)
        assert tf._core._usable_threads() == 1
    finally:
        busy.kill()
        busy.wait()
