"""The MPI runtime: init/shutdown, the process's place in the job, and the communication thread.

Note [One communication thread]
After ``init`` every MPI call of tapegrad.distribute runs on one background thread, in the order
the calls were submitted (``submit``). The main thread never blocks inside MPI: it hands work over
and waits on a future, so a gradient sweep can go on while earlier gradients are reduced. All ranks
run the same program, so they submit the same collectives in the same order. The one exception
is a reduction through shared memory (Note [Shared-memory reduction] in _shared.py), which runs
on the training thread once this thread has finished everything submitted to it (``drain``), so
MPI is still never called from two threads at once.

Note [Rendezvous]
A collective MPI call cannot time out, and when it hangs it cannot say which rank is missing.
So before a group of collectives (one gradient step, one allreduce call) every rank sends every
other rank a small message: the group's sequence number and a hash of what it will reduce (kind,
shapes, dtypes). A rank waits for all of them with a deadline. A message that does not come names
the rank that died or stalled; a hash that differs means the ranks disagree, and they exchange their
descriptions to name the first tensor that differs. Only then do the collectives start, and they too
are waited for with the deadline. Waiting polls (MPI_Test) so that progress is made, spinning for a
short while and then sleeping a little between polls, so a stalled peer does not cost a core.
Once every rank is known to be there, the collectives themselves are MPI's blocking ones (its
tuned algorithms; a non-blocking collective only progresses when polled and ran up to 10x slower
here). A rank that dies in the middle of one would leave it waiting: the thread that waits for the
result gives up after twice the timeout (plus 5 s) with DeadlineExceededError, and the process
aborts the job at exit instead of waiting in MPI_Finalize.

Note [When to overlap]
A bucket's all-reduce starts as soon as its last gradient is final, overlapping the rest of the
backward sweep (TAPEGRAD_OVERLAP=1, the default). That pays when the communication thread has a
core of its own. With one single-threaded rank per core (2 ranks on this 2-core VM) it has none: a
0.8 MB bucket of the CNN step then took 11-15 ms beside the sweeps instead of 0.3 ms, MPI's
two-sided exchange advancing only when both communication threads happen to run. TAPEGRAD_OVERLAP=0
starts every bucket, in the same order, when the sweep ends. Two rounds of interleaved launch pairs
(6 and 8 pairs) could not tell the two apart here: the first favoured deferring (MLP step 1.66x
against 1.56x, CNN 1.81x against 1.76x), the second split (MLP 1.59x against 1.53x, CNN 1.64x
against 1.72x), within this VM's spread of 1.1x-2.2x between launches. The buckets, their contents
and order are the same both ways, and so are the results.
"""
import atexit
import concurrent.futures
import hashlib
import os
import queue
import threading
import time

import numpy as np
import sys

from tapegrad.errors import DeadlineExceededError, InvalidArgumentError, UnimplementedError

__all__ = ["init", "shutdown", "is_initialized", "rank", "size", "local_rank", "local_size", "cross_rank",
           "cross_size", "state", "mpi_threads_supported", "mpi_enabled", "mpi_built", "set_timeout",
           "fusion_threshold", "set_fusion_threshold"]

_DEFAULT_TIMEOUT = 60.0  # seconds; TAPEGRAD_MPI_TIMEOUT, or init(timeout=)
_DEFAULT_FUSION = 512 << 10  # bytes; TAPEGRAD_FUSION_THRESHOLD (or HOROVOD_FUSION_THRESHOLD)
_SPIN_SECONDS = 2e-3  # poll without sleeping this long before backing off
_TAG = 7101
_INIT_TAG = 7102  # init's meeting, on the user's communicator (before tapegrad has its own)


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:  # the optional extra is missing
        raise ImportError("tapegrad.distribute needs mpi4py and an MPI library: pip install \"tapegrad[mpi]\" "
                          f"(mpi4py with the mpich wheel), then run under mpirun/mpiexec. ({e})") from e
    return MPI


class _State:
    """Everything init() sets up; ``state()`` returns it or raises when init() has not run."""

    def __init__(self, comm, timeout):
        MPI = _mpi()
        self.MPI, self.timeout, self.failed = MPI, timeout, None
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        # MPI's set-up below is collective and cannot time out: the ranks first meet with a deadline,
        # so a rank that stalls, raises or exits before init names itself instead of hanging the rest.
        self.exchange(comm, np.zeros(1, np.int64), _INIT_TAG, "init (the ranks meeting before MPI's set-up)")
        self.comm = comm.Dup()  # ours alone: no tag or collective of the user's can mix with ours
        # The node's communicator is made here, bounded by that meeting, and kept for the shared
        # window (Note [Shared-memory reduction]): made at the first reduction, it could wait for ever.
        self.node = self.comm.Split_type(MPI.COMM_TYPE_SHARED, key=self.rank)
        self.local_rank, self.local_size = self.node.Get_rank(), self.node.Get_size()
        cross = self.comm.Split(self.local_rank, self.rank)
        self.cross_rank, self.cross_size = cross.Get_rank(), cross.Get_size()
        cross.Free()
        self.overlap = _overlap_policy()
        self.fusion_threshold = int(os.environ.get("TAPEGRAD_FUSION_THRESHOLD",
                                                   os.environ.get("HOROVOD_FUSION_THRESHOLD", _DEFAULT_FUSION)))
        self.seq = 0  # rendezvous groups submitted so far (same on every rank)
        self.fusion_buffers = {}  # dtype -> the reused NumPy fusion buffer (communication thread only)
        self.arena = None  # the shared-memory window, False where unusable (Note [Shared-memory reduction])
        self._last = None  # the future submitted last: when it is done, all are
        self.stats = {"steps": 0, "collectives": 0, "bytes": 0, "comm_seconds": 0.0, "overlap_seconds": 0.0,
                      "sweep_seconds": 0.0, "wait_seconds": 0.0}
        self._queue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name="tapegrad-mpi", daemon=True)
        self._thread.start()

    # -- the communication thread ------------------------------------------------------------
    def _serve(self):
        while True:
            item = self._queue.get()
            if item is None:
                return
            future, fn, args = item
            if not future.set_running_or_notify_cancel():
                continue
            if self.failed is not None:  # after a fault no collective may start: peers are gone
                future.set_exception(self.failed)
                continue
            try:
                result, error = fn(*args), None
            except BaseException as e:  # handed to the waiting thread
                result, error = None, e
            # Drop this thread's references before the waiting thread can drop its own: tensors freed
            # here would return their buffers to this thread's cache (core/allocator.cpp), not the
            # training thread's, which would then page-fault fresh memory at every step.
            item = fn = args = None
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)
            result = error = None

    def submit(self, fn, *args):
        """Runs fn(*args) on the communication thread after everything submitted before; a Future."""
        if self.failed is not None:
            raise self.failed
        future = self._last = concurrent.futures.Future()
        self._queue.put((future, fn, args))
        return future

    def drain(self):
        """Waits until the communication thread has run everything submitted to it. A call that failed
        was reported to its own caller; only a fault (Note [Rendezvous]) is raised again."""
        last, self._last = self._last, None
        if last is not None and not last.done():
            try:
                self.result(last)
            except Exception:
                pass
        if self.failed is not None:
            raise self.failed

    def call(self, fn, *args):
        """submit() and wait for the result."""
        return self.result(self.submit(fn, *args))

    def result(self, future):
        t0 = time.perf_counter()
        try:
            return future.result(timeout=2 * self.timeout + 5)
        except concurrent.futures.TimeoutError:
            raise self.fault(DeadlineExceededError(
                None, None, f"tapegrad.distribute: a collective that every rank had started did not complete within "
                f"{2 * self.timeout + 5:g} s on rank {self.rank}: a rank probably died during it")) from None
        finally:
            self.stats["wait_seconds"] += time.perf_counter() - t0

    def stop(self):
        self._queue.put(None)
        self._thread.join()

    # -- on the communication thread ----------------------------------------------------------
    def fault(self, error):
        self.failed = error
        return error

    def wait(self, requests, what, missing=None):
        """Waits for MPI requests until the deadline (Note [Rendezvous]). missing(done flags) names
        who is late when the deadline passes."""
        MPI = self.MPI
        start = time.monotonic()
        deadline, spin_until = start + self.timeout, start + _SPIN_SECONDS
        pause = 2e-5
        while True:
            if MPI.Request.Testall(requests):
                return
            now = time.monotonic()
            if now > deadline:
                late = missing() if missing is not None else ""
                raise self.fault(DeadlineExceededError(
                    None, None, f"tapegrad.distribute: {what} did not complete within {self.timeout:g} s on rank "
                    f"{self.rank}{late}. A rank that died, stalled or runs a different program stops the others; "
                    "the timeout is set by init(timeout=) or TAPEGRAD_MPI_TIMEOUT."))
            if now > spin_until:
                time.sleep(pause)
                pause = min(pause * 2, 1e-3)

    def rendezvous(self, what, keys, labels):
        """Every rank reaches the same group with the same keys, or an error naming who did not.
        keys: one string per tensor that all ranks must agree on (shape, dtype); labels: names for
        messages (variable names may differ across ranks); what: the group's name."""
        self.seq += 1
        digest = hashlib.blake2b("\n".join([what] + keys).encode(), digest_size=8).digest()
        mine = np.array([self.seq, int.from_bytes(digest, "little", signed=True)], np.int64)
        if self.size == 1:
            return
        got = self.exchange(self.comm, mine, _TAG, f"{what} (collective group #{self.seq})")
        if all(np.array_equal(g, mine) for g in got.values()):
            return
        descriptions = self.comm.allgather((what, keys, labels))  # everyone is here: safe to block
        raise InvalidArgumentError(None, None, _mismatch(descriptions, self.seq))

    def exchange(self, comm, mine, tag, what):
        """Sends `mine` to every other rank of comm and receives theirs, within the deadline; {rank: array}.
        A rank whose message does not come is named."""
        others = [r for r in range(comm.Get_size()) if r != self.rank]
        got = {r: np.zeros_like(mine) for r in others}
        recvs = [comm.Irecv(got[r], source=r, tag=tag) for r in others]
        sends = [comm.Isend(mine, dest=r, tag=tag) for r in others]

        def missing():
            late = [r for r, q in zip(others, recvs) if not q.Test()]
            return (f": rank{'s' if len(late) > 1 else ''} {', '.join(map(str, late))} did not reach it"
                    if late else "")
        self.wait(recvs, what, missing)
        self.wait(sends, what)
        return got


def _overlap_policy():
    """Whether buckets start while the sweep still runs (Note [When to overlap])."""
    setting = os.environ.get("TAPEGRAD_OVERLAP", "1").strip().lower()
    if setting in ("1", "true", "yes", "on"):
        return True
    if setting in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"tapegrad.distribute: TAPEGRAD_OVERLAP must be 1 or 0, got {setting!r}")


def _mismatch(descriptions, seq):
    """The first difference between the ranks' descriptions of collective group #seq."""
    what0, keys0, labels0 = descriptions[0]
    for r, (what, keys, labels) in enumerate(descriptions[1:], 1):
        if what != what0:
            return (f"tapegrad.distribute: the ranks disagree on collective group #{seq}: rank 0 runs {what0}, "
                    f"rank {r} runs {what}")
        if len(keys) != len(keys0):
            return (f"tapegrad.distribute: {what0}: rank 0 reduces {len(keys0)} tensors ({', '.join(labels0)}), "
                    f"rank {r} {len(keys)} ({', '.join(labels)})")
        for i, (a, b) in enumerate(zip(keys0, keys)):
            if a != b:
                return (f"tapegrad.distribute: {what0}: tensor {i} differs across ranks: on rank 0 {labels0[i]} is "
                        f"{a}, on rank {r} {labels[i]} is {b}")
    return f"tapegrad.distribute: the ranks disagree on collective group #{seq}"


_state = None
_init_fault = None  # (MPI, rank, error) when init itself timed out
_exit_hook = False
_ABORT_GRACE_SECONDS = 1.0


def _abort_after_fault():
    # A fault leaves peers that died or stalled: MPI_Finalize at exit would wait for them for ever.
    # MPI_Abort makes the launcher kill every process at once, and output still in its pipes can be
    # lost (a traceback cut short was seen): the fault is repeated in one line and given a moment to
    # reach the launcher first.
    s = _state
    fault = (s.MPI, s.rank, s.failed) if s is not None and s.failed is not None else _init_fault
    if fault is not None:
        MPI, rank, e = fault
        sys.stdout.flush()
        sys.stderr.write(f"tapegrad.distribute: rank {rank} aborts the job after "
                         f"{type(e).__name__}: {getattr(e, 'message', None) or e}\n")
        sys.stderr.flush()
        time.sleep(_ABORT_GRACE_SECONDS)
        MPI.COMM_WORLD.Abort(1)


def init(comm=None, process_sets=None, timeout=None):
    """Starts tapegrad.distribute (Horovod's ``hvd.init``): MPI is initialized if it is not yet,
    and ``comm`` (default: every process, MPI.COMM_WORLD) is the job. ``timeout`` (seconds) bounds
    every wait for the other ranks (default TAPEGRAD_MPI_TIMEOUT or 60)."""
    global _state, _exit_hook
    if process_sets is not None:
        raise UnimplementedError(None, None, "tapegrad.distribute.init: process_sets are not supported")
    if _state is not None:
        return
    MPI = _mpi()
    if isinstance(comm, (list, tuple)):  # Horovod: a list of ranks forms the job
        comm = MPI.COMM_WORLD.Create_group(MPI.COMM_WORLD.Get_group().Incl(list(comm)))
    if timeout is None:
        timeout = float(os.environ.get("TAPEGRAD_MPI_TIMEOUT", _DEFAULT_TIMEOUT))
    if not timeout > 0:
        raise ValueError(f"tapegrad.distribute.init: timeout must be a positive number of seconds, got {timeout}")
    if not _exit_hook:
        atexit.register(_abort_after_fault)
        _exit_hook = True
    try:
        _state = _State(comm if comm is not None else MPI.COMM_WORLD, float(timeout))
    except DeadlineExceededError as e:  # peers missing: MPI_Finalize at exit would wait for them
        global _init_fault
        _init_fault = (MPI, MPI.COMM_WORLD.Get_rank(), e)
        raise


def shutdown():
    """Stops the communication thread (Horovod's ``hvd.shutdown``); init() may be called again."""
    global _state
    if _state is None:
        return
    s, _state = _state, None
    s.stop()
    if s.failed is None:
        if s.arena:
            s.arena.free()
        s.node.Free()
        s.comm.Free()


def is_initialized():
    return _state is not None


def state():
    if _state is None:
        raise ValueError("tapegrad.distribute has not been initialized; use tapegrad.distribute.init().")
    return _state


def rank():
    """This process's rank in the job, 0 .. size()-1."""
    return state().rank


def size():
    """The number of processes in the job."""
    return state().size


def local_rank():
    """This process's rank among the processes on its machine."""
    return state().local_rank


def local_size():
    """The number of processes on this machine."""
    return state().local_size


def cross_rank():
    """The rank of this machine among the machines (for processes of the same local rank)."""
    return state().cross_rank


def cross_size():
    """The number of machines (processes sharing this local rank)."""
    return state().cross_size


def mpi_threads_supported():
    MPI = _mpi()
    state()
    return MPI.Query_thread() == MPI.THREAD_MULTIPLE


def mpi_enabled():
    return True


def mpi_built():
    return True


def set_timeout(seconds):
    """How long (seconds) any rank waits for the others before failing with DeadlineExceededError."""
    if not seconds > 0:
        raise ValueError(f"tapegrad.distribute.set_timeout: seconds must be positive, got {seconds}")
    state().timeout = float(seconds)


def fusion_threshold():
    return state().fusion_threshold


def set_fusion_threshold(nbytes):
    """The largest fusion buffer (bytes): gradients are packed, in the order the sweep finishes them,
    into buffers up to this size; a gradient larger than it is reduced alone from its own memory."""
    nbytes = int(nbytes)
    if nbytes < 0:
        raise ValueError(f"tapegrad.distribute.set_fusion_threshold: nbytes must be >= 0, got {nbytes}")
    state().fusion_threshold = nbytes
