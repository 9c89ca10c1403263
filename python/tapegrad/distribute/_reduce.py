"""All-reduce of a group of tensors: fusion buffers, zero-copy sends, results as new tensors.

Note [Fusion plan]
A group (the gradients of one step, or one grouped_allreduce) is split into buckets before any
value exists, from what every rank knows alike: the order in which the sweep will finish the
gradients (Note [Final gradients] in cpp/engine/tape.h), their shapes and dtypes, and the fusion
threshold. Walking that order, a tensor larger than the threshold is a bucket of its own, reduced
from its own memory into a new tensor's memory (no copy either way); smaller ones are packed, per
dtype, into a fusion buffer until the next would overflow it. A bucket is handed to the
communication thread as soon as its last tensor is final, so the reduction of late layers runs
while the sweep computes the gradients of early ones (unless TAPEGRAD_OVERLAP=0: Note [When to
overlap] in _runtime.py; then every bucket starts, in the same order, when the sweep ends). Bucket
contents and their order depend on nothing that differs between ranks or runs, so results are the
same whatever the timing.

Note [Wire dtype]
With Horovod's ``Compression.fp16`` a floating bucket travels as float16: its values are rounded to
float16 (round to nearest even, as NumPy's astype, by cpp/kernels/half.h: NumPy's own conversion
was 25x slower on gradient-sized values) when they are packed, the ranks combine them
(_allreduce_wire: each rank's float16 values are summed in float32 and rounded to float16 once),
and the result is converted back to the tensor's dtype before it is scaled. Half the bytes cross
between the ranks; the price is float16's precision and range (values beyond 65504 become inf),
as in Horovod. Integer tensors are not compressed. One rank rounds too, so a
script gives the same numbers at every size.
"""
import time

import numpy as np

from tapegrad import _core
from tapegrad.errors import InvalidArgumentError, UnimplementedError

__all__ = ["ReduceOp", "Average", "Sum", "Min", "Max", "Product", "Adasum", "Reduction", "new_reduction", "reduce_now"]


class ReduceOp:
    """How values of the ranks combine (Horovod's hvd.Average, hvd.Sum, ...)."""

    def __init__(self, name, mpi_name, average=False):
        self.name, self.mpi_name, self.average = name, mpi_name, average

    def __repr__(self):
        return f"tapegrad.distribute.{self.name}"


Average = ReduceOp("Average", "SUM", average=True)
Sum = ReduceOp("Sum", "SUM")
Min = ReduceOp("Min", "MIN")
Max = ReduceOp("Max", "MAX")
Product = ReduceOp("Product", "PROD")
Adasum = ReduceOp("Adasum", None)


def resolve_op(op, average, fn):
    """The ReduceOp of Horovod's (op=, average=) pair; Average by default."""
    if average is not None and op is not None:
        raise ValueError(f"{fn}: give op= or the deprecated average=, not both")
    if op is None:
        op = Average if average is None or average else Sum
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{fn}: op must be tapegrad.distribute.Average, Sum, Min, Max or Product, got {op!r}")
    if op.mpi_name is None:
        raise UnimplementedError(None, None, f"{fn}: op={op!r} is not supported")
    return op


class _Slot:
    """One tensor of a group: where its gradient goes and what the ranks must agree on."""
    __slots__ = ("index", "shape", "dtype", "label", "value", "nbytes")

    def __init__(self, index, shape, dtype, label):
        self.index, self.shape, self.dtype, self.label = index, tuple(shape), dtype, label
        self.nbytes = int(np.prod(self.shape, dtype=np.int64)) * dtype.size
        self.value = None

    def key(self):
        return f"{list(self.shape)} {self.dtype.name}"


class _Bucket:
    __slots__ = ("slots", "waiting", "direct", "future", "outputs", "nbytes")

    def __init__(self, direct=False):
        self.slots, self.waiting, self.direct, self.future, self.outputs, self.nbytes = [], 0, direct, None, None, 0


def plan(slots, threshold):
    """Buckets of slots in finishing order (Note [Fusion plan]); slot index -> its bucket."""
    buckets, open_by_dtype, where = [], {}, {}
    for s in slots:
        if s.nbytes > threshold:
            b = _Bucket(direct=True)
            buckets.append(b)
        else:
            b = open_by_dtype.get(s.dtype)
            if b is None or b.nbytes + s.nbytes > threshold:
                b = open_by_dtype[s.dtype] = _Bucket()
                buckets.append(b)
        b.slots.append(s)
        b.nbytes += s.nbytes
        b.waiting += 1
        where[s.index] = b
    return buckets, where


class Reduction:
    """One group: plan it, rendezvous, then reduce each bucket as soon as its tensors are final."""

    def __init__(self, st, what, op, slots, prescale=1.0, postscale=1.0, threshold=None, wire=None):
        self.st, self.what, self.op = st, what, op
        self.wire = wire  # np.float16 for Compression.fp16 (Note [Wire dtype]), else None
        self.slots = slots
        self.prescale = prescale  # applied before the reduction, the scale after it
        self.scale = postscale / (st.size if op.average else 1)
        self.divisor = st.size if op.average else 1  # an integer average: floor division by the ranks
        self.buckets, self.where = plan(slots, st.fusion_threshold if threshold is None else threshold)
        self.intervals = []  # (start, end) of each bucket's communication, perf_counter seconds
        self.error = None  # the rendezvous failed: no bucket of this group may run a collective
        self.started = st.submit(self._rendezvous)

    def final(self, index, tensor):
        """Tensor `index` of the group is final (None: zeros); starts its bucket when complete."""
        b = self.where.get(index)
        if b is None:
            return
        slot = next(s for s in b.slots if s.index == index)
        slot.value = tensor
        b.waiting -= 1
        if b.waiting == 0 and self.st.overlap:  # else results() starts it (Note [When to overlap])
            self._start(b)

    def _start(self, b):
        # The results' memory comes from this (the training) thread's buffer cache, where it returns.
        b.outputs = [_core._empty_with_view(list(s.shape), s.dtype.code) for s in b.slots]
        b.future = self.st.submit(self._reduce_bucket, b)

    def results(self):
        """{index: reduced tensor}, waiting for every bucket (any not started yet starts now)."""
        for b in self.buckets:
            if b.future is None:
                self._start(b)
        self.st.result(self.started)
        out = {}
        for b in self.buckets:
            out.update(self.st.result(b.future))
        return out

    # -- on the communication thread ----------------------------------------------------------
    def _rendezvous(self):
        try:
            wire = "" if self.wire is None else f" as {np.dtype(self.wire).name}"  # ranks must agree on it too
            self.st.rendezvous(self.what, [s.key() + wire for s in self.slots], [s.label for s in self.slots])
        except BaseException as e:
            self.error = e
            raise

    def _reduce_bucket(self, b):
        if self.error is not None:
            raise self.error
        st, MPI = self.st, self.st.MPI
        t0 = time.perf_counter()
        mpi_op = getattr(MPI, self.op.mpi_name)
        floating = b.slots[0].dtype.is_floating
        wire = self.wire if floating else None
        out = {}
        if st.size == 1 and self.scale == 1 and self.prescale == 1 and wire is None:
            for s, (result, view) in zip(b.slots, b.outputs):
                if s.value is None:
                    view[...] = 0
                out[s.index] = s.value if s.value is not None else result
            return out
        if wire is not None:
            self._reduce_wire(b, out)
        elif b.direct:
            s = b.slots[0]
            send = _send_view(s, self.prescale)
            result, view = b.outputs[0]
            if st.size > 1:
                st.comm.Allreduce(send, view, op=mpi_op)
            else:
                np.copyto(view, send)
            _scale(view, self.scale, floating, self.divisor)
            out[s.index] = result
        else:
            total = b.nbytes // b.slots[0].dtype.size
            buf = _fusion_buffer(st, b.slots[0].dtype.as_numpy_dtype, total)
            for s, span in _spans(b.slots):
                if s.value is None:
                    buf[span] = 0
                else:
                    np.copyto(buf[span], np.asarray(s.value).reshape(-1))
            if self.prescale != 1:
                _scale(buf, self.prescale, floating, 1)
            if st.size > 1:
                st.comm.Allreduce(MPI.IN_PLACE, buf, op=mpi_op)
            for (s, span), (result, view) in zip(_spans(b.slots), b.outputs):
                part = buf[span].reshape(s.shape)
                if self.scale != 1 and floating:
                    np.multiply(part, self.scale, out=view)
                else:
                    np.copyto(view, part)
                    _scale(view, self.scale, floating, self.divisor)
                out[s.index] = result
        b.outputs = None
        t1 = time.perf_counter()
        self.intervals.append((t0, t1))
        st.stats["collectives"] += 1
        st.stats["bytes"] += b.nbytes
        st.stats["comm_seconds"] += t1 - t0
        return out

    def _reduce_wire(self, b, out):
        """A floating bucket sent as float16 bits (Note [Wire dtype]), one tensor or packed alike."""
        st = self.st
        bits = _fusion_buffer(st, np.uint16, b.nbytes // b.slots[0].dtype.size)
        for s, span in _spans(b.slots):
            if s.value is None:
                bits[span] = 0
            else:
                v = np.asarray(s.value).reshape(-1)
                _core._float16(v * v.dtype.type(self.prescale) if self.prescale != 1 else v, bits[span])
        if st.size > 1:
            _allreduce_wire(st, bits, self.op.mpi_name)
        for (s, span), (result, view) in zip(_spans(b.slots), b.outputs):
            _core._float16(bits[span], view.reshape(-1))
            _scale(view, self.scale, True, self.divisor)
            out[s.index] = result


def _spans(slots):
    """(slot, its slice of the bucket's buffer), in packing order."""
    offset = 0
    for s in slots:
        n = s.nbytes // s.dtype.size
        yield s, slice(offset, offset + n)
        offset += n


_COMBINE = {"SUM": np.add, "MIN": np.minimum, "MAX": np.maximum, "PROD": np.multiply}


def _allreduce_wire(st, bits, mpi_name):
    """All-reduce, in place, of float16 values held as uint16 bits (Note [Wire dtype]) as a
    reduce-scatter and an all-gather of the bits: rank k receives everyone's k-th chunk, combines
    them in float32 in rank order and rounds once; then every rank gathers the chunks. MPI's own
    float16 reduction was 5x slower than its float32 one here, so MPI only moves the bits."""
    MPI, n = st.MPI, st.size
    total = bits.size
    chunk = -(-total // n)
    starts = [min(total, k * chunk) for k in range(n)]
    counts = [min(total, (k + 1) * chunk) - starts[k] for k in range(n)]
    mine = counts[st.rank]
    parts = np.empty((n, mine), np.uint16)
    st.comm.Alltoallv([bits, counts, starts, MPI.UINT16_T],
                      [parts, [mine] * n, [mine * k for k in range(n)], MPI.UINT16_T])
    combined, other = np.empty(mine, np.float32), np.empty(mine, np.float32)
    _core._float16(parts[0], combined)
    for k in range(1, n):
        _core._float16(parts[k], other)
        _COMBINE[mpi_name](combined, other, out=combined)
    reduced = np.empty(mine, np.uint16)
    _core._float16(combined, reduced)
    st.comm.Allgatherv([reduced, mine, MPI.UINT16_T], [bits, counts, starts, MPI.UINT16_T])


def _send_view(s, prescale):
    if s.value is None:
        return np.zeros(s.shape, s.dtype.as_numpy_dtype)
    v = np.asarray(s.value)  # zero-copy, read-only: MPI only reads it
    if prescale != 1:
        v = v * np.asarray(prescale, v.dtype)
    return v


def _scale(view, scale, floating, divisor):
    if floating:
        if scale != 1:
            np.multiply(view, np.asarray(scale, view.dtype), out=view)
    elif divisor != 1:  # an integer average: floor division by the number of ranks, as an integer tensor must
        np.floor_divide(view, divisor, out=view)


def _fusion_buffer(st, np_dtype, n):
    """The reused fusion buffer for a NumPy dtype, at least n elements (a view of exactly n)."""
    np_dtype = np.dtype(np_dtype)
    buf = st.fusion_buffers.get(np_dtype)
    if buf is None or buf.size < n:
        buf = st.fusion_buffers[np_dtype] = np.empty(max(n, 1024), np_dtype)
    return buf[:n]


def new_reduction(st, what, op, slots, prescale=1.0, postscale=1.0, threshold=None, wire=None):
    """The group's reduction: through shared memory when the ranks share a machine (Note
    [Shared-memory reduction] in _shared.py), else by MPI's collectives in buckets."""
    if (prescale != 1 or postscale != 1) and any(not s.dtype.is_floating for s in slots):
        raise InvalidArgumentError(None, None, f"{what}: prescale_factor and postscale_factor need float tensors, "
                                   f"got {', '.join(f'{s.label} ({s.dtype.name})' for s in slots)}")
    arena = _shared.shared_arena(st) if wire is None else None
    if arena is not None:
        return _shared.SharedReduction(st, arena, what, op, slots, prescale, postscale, threshold)
    return Reduction(st, what, op, slots, prescale, postscale, threshold, wire)


def reduce_now(st, what, op, tensors, labels, prescale=1.0, postscale=1.0, wire=None):
    """All-reduces a list of tensors at once (allreduce, grouped_allreduce); returns new tensors."""
    slots = [_Slot(i, t.shape, t.dtype, labels[i]) for i, t in enumerate(tensors)]
    r = new_reduction(st, what, op, slots, prescale, postscale, wire=wire)
    for i, t in enumerate(tensors):
        r.final(i, t)
    got = r.results()
    return [got[i] for i in range(len(tensors))]


# Imported after the definitions above: _shared imports this module (its names are read at call time).
from tapegrad.distribute import _shared  # noqa: E402
