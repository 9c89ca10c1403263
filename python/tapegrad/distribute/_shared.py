"""All-reduce through a shared-memory window when every rank runs on one machine.

Note [Shared-memory reduction]
When all ranks share one machine (local_size == size, 2 to 4 ranks), a group is reduced through an
MPI-3 shared-memory window (MPI_Win_allocate_shared) instead of MPI's all-reduce, on the training
thread: each rank copies its tensors into its own segment of the window as they become final (during
the backward sweep, for a gradient step), the ranks meet, and then every rank combines all the
segments itself, in rank order, straight into its result tensors. Nothing is handed to the
communication thread and nothing is copied out again. Each rank reads the others' values once:
(size - 1) x bytes per step, which for 2 ranks is what a reduce-scatter plus all-gather moves too,
in one pass and without MPI's intermediate copies (a 2.7 MB group took 0.45 ms against 0.75 ms for
MPI_Allreduce here). It grows with the ranks, hence the limit of 4; beyond it, or across machines,
MPI's own algorithms are used (Reduction in _reduce.py). TAPEGRAD_SHARED_MEMORY=0 turns it off.

The ranks meet once per group, after writing: a rendezvous of Note [Rendezvous] (polled, with the
deadline) that checks they agree on the group and is the barrier before reading (one meeting instead
of two took the MLP step from 1.65x to 1.74x of one rank). Since every rank combines the same values
in the same order, every rank gets the same bits, whatever the timing. The window has two halves,
used by turns (group k writes half k mod 2), and the half is part of what the ranks must agree on: a
rank may be writing group k+1 while a slower one still reads group k, but never group k-1's half,
since it passed the meeting the slower rank reaches only after reading it. Before a group starts
here, everything submitted to the communication thread has finished, so MPI calls never run on two
threads at once and the collectives keep their order on every rank. A group that does not fit grows
the window: the ranks first meet (so they agree on its size, the growing being a collective call
that cannot time out), then replace it. The window lives in /dev/shm, where a page without room kills
the process (SIGBUS), so it is never sized beyond half of /dev/shm's free space: a group that would
need more warns and goes, with every later one, to MPI's collectives.
"""
import os
import time

import numpy as np
import warnings

from tapegrad import _core
from tapegrad.distribute._reduce import Reduction, _COMBINE, _scale

__all__ = ["SharedReduction", "shared_arena"]

_MAX_RANKS = 4  # each rank reads (size - 1) x the bytes: beyond this MPI's algorithms scale better
_ALIGN = 64  # bytes: every tensor starts on a cache line
_SHM_DIR = "/dev/shm"


class _Arena:
    """The job's shared window: segment k is rank k's, two halves of `capacity` bytes each."""

    def __init__(self, st):
        self.st = st
        self.node = st.node  # made by init (node rank == job rank here: every rank shares the machine)
        self.win, self.capacity, self.segments, self.turn = None, 0, None, 0
        self.usable = True  # until /dev/shm has no room for a group: then every later group goes to MPI

    def fit(self, nbytes):
        """Every rank, in the same group: a window with halves of at least nbytes. False (on every
        rank alike) when /dev/shm cannot hold it: the window is given up for good."""
        if nbytes <= self.capacity:
            return True
        MPI, ranks = self.st.MPI, self.st.size
        capacity = max(nbytes, 2 * self.capacity, 1 << 16)
        budget = _window_budget()
        if budget is not None and 2 * capacity * ranks > budget:
            capacity = nbytes  # no room to grow ahead
        capacity = -(-capacity // _ALIGN) * _ALIGN
        fits = budget is None or 2 * capacity * ranks <= budget
        self.free()
        if not self.node.allreduce(fits, op=MPI.LAND):  # one rank short of room: all give up
            warnings.warn(f"tapegrad.distribute: the shared-memory window needs {2 * capacity * ranks / 1e6:.1f} MB for "
                          f"{ranks} ranks, more than {_SHM_DIR} can spare ({(budget or 0) / 1e6:.1f} MB: half its free "
                          "space, or TAPEGRAD_SHARED_MEMORY_LIMIT); reducing with MPI's collectives instead. A larger "
                          f"{_SHM_DIR} (docker run --shm-size) brings the window back.", RuntimeWarning, stacklevel=2)
            self.usable = False
            return False
        self.win = MPI.Win.Allocate_shared(2 * capacity, 1, comm=self.node)
        self.win.Lock_all(MPI.MODE_NOCHECK)  # one passive epoch for the window's life; Sync orders memory
        self.segments = [np.frombuffer(self.win.Shared_query(k)[0], np.uint8) for k in range(ranks)]
        self.capacity = capacity
        return True

    def half(self, k, turn):
        return self.segments[k][turn * self.capacity:(turn + 1) * self.capacity]

    def free(self):
        if self.win is not None:
            self.segments = None
            self.win.Unlock_all()
            self.win.Free()
            self.win, self.capacity = None, 0


def _window_budget():
    """Bytes the job's windows may take, None for no limit known: half of /dev/shm's free space (MPICH
    backs a window with a file there, and a process touching a page it has no room for dies of
    SIGBUS; MPI needs the other half), or TAPEGRAD_SHARED_MEMORY_LIMIT if smaller."""
    try:
        v = os.statvfs(_SHM_DIR)
        budget = v.f_bavail * v.f_frsize // 2
    except OSError:
        budget = None
    limit = os.environ.get("TAPEGRAD_SHARED_MEMORY_LIMIT")
    if limit is not None:
        try:
            limit = int(limit)
        except ValueError:
            limit = -1
        if limit < 0:
            raise ValueError("tapegrad.distribute: TAPEGRAD_SHARED_MEMORY_LIMIT must be a number of bytes >= 0, got "
                             f"{os.environ['TAPEGRAD_SHARED_MEMORY_LIMIT']!r}")
        budget = limit if budget is None else min(budget, limit)
    return budget


def shared_arena(st):
    """The arena when groups may be reduced through shared memory (Note [Shared-memory reduction]),
    else None. The answer is the same on every rank."""
    if st.arena is None:
        setting = os.environ.get("TAPEGRAD_SHARED_MEMORY", "1").strip().lower()
        if setting not in ("0", "1", "true", "false", "yes", "no", "on", "off"):
            raise ValueError(f"tapegrad.distribute: TAPEGRAD_SHARED_MEMORY must be 1 or 0, got {setting!r}")
        usable = setting in ("1", "true", "yes", "on") and 2 <= st.size <= _MAX_RANKS and st.local_size == st.size
        if usable:
            _window_budget()  # a bad TAPEGRAD_SHARED_MEMORY_LIMIT is refused now
        st.arena = _Arena(st) if usable else False
    return st.arena if st.arena and st.arena.usable else None


class SharedReduction:
    """One group reduced through the arena (Note [Shared-memory reduction]); Reduction's interface:
    final(index, tensor) as each tensor is final, then results()."""

    def __init__(self, st, arena, what, op, slots, prescale=1.0, postscale=1.0, threshold=None):
        self.st, self.arena, self.what, self.op, self.slots = st, arena, what, op, slots
        self.fallback = None  # MPI's Reduction, once /dev/shm has no room for the window
        self.prescale = prescale
        self.scale = postscale / (st.size if op.average else 1)
        self.divisor = st.size if op.average else 1
        self.by_index, offset = {}, 0
        for s in slots:
            self.by_index[s.index] = (s, offset)
            offset += -(-s.nbytes // _ALIGN) * _ALIGN
        self.nbytes = offset
        self.intervals = []  # (start, end) of each copy into the window and of the combining
        self.error = None
        self.own = {}  # index -> this rank's values, as written to the window
        self.pending = []  # tensors final before the window may be written (TAPEGRAD_OVERLAP=0)
        # Every rank turns in every group it starts, failed ones included, so the halves stay in step.
        self.turn, arena.turn = arena.turn, arena.turn ^ 1
        try:
            st.drain()
            if self.nbytes > arena.capacity:  # growing is collective: first make sure all agree on the size
                self._meet()
                if not arena.fit(self.nbytes):
                    self.fallback = Reduction(st, what, op, slots, prescale, postscale, threshold)
                    return
            self.mine = arena.half(st.rank, self.turn)
        except BaseException as e:  # raised by results(): the sweep calling final() goes on
            self.error = e

    def _meet(self):
        """A rendezvous on the group's tensors and the window half (ranks out of step disagree, loudly)."""
        self.st.rendezvous(self.what, [s.key() for s in self.slots] + [f"half {self.turn}"],
                           [s.label for s in self.slots] + ["the shared window"])

    def _view(self, half, s, offset):
        return half[offset:offset + s.nbytes].view(s.dtype.as_numpy_dtype).reshape(s.shape)

    def final(self, index, tensor):
        """Tensor `index` of the group is final (None: zeros): into the window now, or after the sweep
        with TAPEGRAD_OVERLAP=0 (Note [When to overlap] in _runtime.py)."""
        if self.fallback is not None:
            return self.fallback.final(index, tensor)
        if index not in self.by_index or self.error is not None:
            return
        if self.st.overlap:
            self._write(index, tensor)
        else:
            self.pending.append((index, tensor))

    def _write(self, index, tensor):
        t0 = time.perf_counter()
        s, offset = self.by_index[index]
        view = self._view(self.mine, s, offset)
        value = None if tensor is None else tensor._numpy_unchecked()  # zero-copy; while tracing too
        if value is None:
            view[...] = 0
        elif self.prescale != 1:
            np.multiply(value, np.asarray(self.prescale, view.dtype), out=view)
        else:
            np.copyto(view, value)
            self.own[index] = value  # combined from here: cheaper to read than the window's copy
        self.intervals.append((t0, time.perf_counter()))

    def results(self):
        """{index: reduced tensor}, once every rank has written its values."""
        if self.fallback is not None:
            out = self.fallback.results()
            self.intervals = self.fallback.intervals
            return out
        if self.error is not None:
            raise self.error
        st, arena = self.st, self.arena
        for index, tensor in self.pending:
            self._write(index, tensor)
        arena.win.Sync()
        t_meet = time.perf_counter()
        self._meet()  # every rank agrees on the group and has written its values
        arena.win.Sync()
        t0 = time.perf_counter()
        st.stats["wait_seconds"] += t0 - t_meet
        halves = [arena.half(k, self.turn) for k in range(st.size)]
        combine = _COMBINE[self.op.mpi_name]
        out = {}
        for index, (s, offset) in self.by_index.items():
            parts = [self._view(half, s, offset) for half in halves]
            if index in self.own:
                parts[st.rank] = self.own[index].reshape(s.shape)
            result, view = _core._empty_with_view(list(s.shape), s.dtype.code)
            combine(parts[0], parts[1], out=view)
            for part in parts[2:]:
                combine(view, part, out=view)
            _scale(view, self.scale, s.dtype.is_floating, self.divisor)
            out[s.index] = result
        t1 = time.perf_counter()
        self.intervals.append((t0, t1))
        stats = st.stats
        stats["collectives"] += 1
        stats["bytes"] += self.nbytes
        stats["comm_seconds"] += sum(b - a for a, b in self.intervals)
        return out
