"""DistributedGradientTape: a GradientTape whose gradients come back all-reduced over the ranks.

The sweep announces each gradient as soon as it is final (Note [Final gradients] in
cpp/engine/tape.h): with every rank on one machine it is written into the shared window at once
(Note [Shared-memory reduction] in _shared.py), otherwise the buckets of Note [Fusion plan] start
reducing on the communication thread while the sweep goes on; either way the communication
overlaps the backward pass.

Note [One rank]
A job of one process combines each gradient with itself: every reduction op gives the value back
(an average divides by 1). So with one rank and no predivide factor (whose scaling there and back
could round) or compression (which rounds at every size), DistributedGradientTape and DistributedOptimizer return the tape's gradients as they
are, without the streamed sweep, the buffers and the hand-offs to the communication thread, which
cost a single-threaded MLP step about 6%. The same script's one-rank run is then as fast as the
plain script, and the speed-up of more ranks is measured against that.
"""
import time

from tapegrad import _core, _nest
from tapegrad._function.trace_context import current_trace
from tapegrad.distribute import _runtime
from tapegrad.distribute._collectives import _wire_dtype, grouped_allreduce
from tapegrad.distribute._reduce import Average, _Slot, new_reduction, plan, resolve_op

__all__ = ["DistributedGradientTape"]


class DistributedGradientTape:
    """Wraps a ``GradientTape`` (Horovod's ``hvd.DistributedGradientTape``): ``gradient`` returns the
    gradients combined over all ranks (averaged unless ``op=Sum``). Everything else is the tape's.

    >>> with tf.GradientTape() as tape:
    ...     loss = compute_loss()
    >>> tape = hvd.DistributedGradientTape(tape)
    >>> grads = tape.gradient(loss, model.trainable_variables)
    """

    def __init__(self, gradtape, device_dense="", device_sparse="", compression=None, sparse_as_dense=False,
                 op=Average, gradient_predivide_factor=1.0, num_groups=0, groups=None, process_set=None):
        _runtime.state()
        self._compression = compression
        self._wire = _wire_dtype(compression, "DistributedGradientTape")
        self._op = resolve_op(op, None, "DistributedGradientTape")
        if gradient_predivide_factor != 1.0 and self._op is not Average:
            raise ValueError("DistributedGradientTape: gradient_predivide_factor needs op=Average")
        if not gradient_predivide_factor > 0:
            raise ValueError(f"DistributedGradientTape: gradient_predivide_factor must be > 0, got "
                             f"{gradient_predivide_factor}")
        inner = getattr(gradtape, "_tape_wrapped", gradtape)
        self._tape_wrapped = inner
        self._predivide = float(gradient_predivide_factor)

    def __enter__(self):
        self._tape_wrapped.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape_wrapped.__exit__(*exc)

    def __getattr__(self, name):  # watch, jacobian, stop_recording, reset, ...
        return getattr(self.__dict__["_tape_wrapped"], name)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=None):
        st = _runtime.state()
        tape = self._tape_wrapped
        if st.size == 1 and self._predivide == 1.0 and self._wire is None:  # Note [One rank]
            st.stats["steps"] += 1
            return tape.gradient(target, sources, output_gradients, unconnected_gradients)
        if output_gradients is not None or unconnected_gradients is not None:
            grads = tape.gradient(target, sources, output_gradients, unconnected_gradients)
            return self._reduce_after(grads)
        flat = _nest.flatten(sources)
        slots = [_Slot(i, s.shape, s.dtype, getattr(s, "name", None) or f"source {i}") for i, s in enumerate(flat)]
        scale = 1.0 / self._predivide
        if current_trace() is not None:
            return _nest.pack_sequence_as(sources, _TracedStep(st, self._op, scale, self._predivide, self._wire).gradient(
                tape, target, flat, slots))
        group = []

        def on_order(order):
            wanted = [slots[i] for i in order if slots[i].dtype.is_floating]
            group.append(new_reduction(st, "DistributedGradientTape.gradient", self._op, wanted, scale,
                                       self._predivide, wire=self._wire))

        def on_final(i, g):
            group[0].final(i, g)

        t0 = time.perf_counter()
        grads = tape._gradient_streamed(target, flat, on_order, on_final)
        t1 = time.perf_counter()
        reduced = group[0].results()
        _note_step(st, t0, t1, group[0].intervals)
        out = [reduced.get(i, g) if g is not None else None for i, g in enumerate(grads)]
        return _nest.pack_sequence_as(sources, out)

    def _reduce_after(self, grads):
        flat = _nest.flatten(grads)
        present = [i for i, g in enumerate(flat) if g is not None]
        reduced = grouped_allreduce([flat[i] for i in present], op=self._op,
                                    prescale_factor=1.0 / self._predivide, postscale_factor=self._predivide,
                                    compression=self._compression)
        for i, r in zip(present, reduced):
            flat[i] = r
        return _nest.pack_sequence_as(grads, flat)


class _TracedStep:
    """DistributedGradientTape.gradient inside a traced function (Note [Fusion plan] in graphs): the
    sweep's ops are recorded with, after the ops that finish each bucket, a HostCall node that hands
    the bucket to the communication thread, and after the sweep one HostCall node that waits for all
    results and returns them. So in the graph too, communication runs while the rest of the
    backward pass computes. Each call of the graph starts a new Reduction at its first bucket."""

    def __init__(self, st, op, prescale, postscale, wire):
        self.st, self.op, self.prescale, self.postscale, self.wire = st, op, prescale, postscale, wire
        self.threshold = st.fusion_threshold  # frozen: the graph's nodes follow this trace's buckets
        self.current = None

    def _begin(self):
        fresh = [_Slot(s.index, s.shape, s.dtype, s.label) for s in self.slots]
        self.current = new_reduction(self.st, "DistributedGradientTape.gradient", self.op, fresh, self.prescale,
                                     self.postscale, self.threshold, self.wire)
        return self.current

    def _start(self, indices):
        def start(values):
            r = self.current or self._begin()
            for i, v in zip(indices, values):
                r.final(i, v)
        return start

    def _wait(self, values=()):
        r = self.current or self._begin()
        self.current = None
        t_wait = time.perf_counter()
        got = r.results()
        s = self.st.stats
        s["steps"] += 1
        s["overlap_seconds"] += sum(max(0.0, min(b, t_wait) - a) for a, b in r.intervals)
        return [got[i] for i in self.order]

    def gradient(self, tape, target, flat, slots):
        pending = {}  # bucket -> [(index, value)] while tracing

        def on_order(order):
            self.slots = [slots[i] for i in order if slots[i].dtype.is_floating]
            self.order = [s.index for s in self.slots]
            _, self.where = plan(self.slots, self.threshold)  # the trace's own buckets: where nodes go
            self._begin()

        def on_final(i, g):
            b = self.where.get(i)
            if b is None:
                return
            got = pending.setdefault(id(b), [])
            if g is not None:
                got.append((i, g))
            b.waiting -= 1
            if b.waiting == 0:
                indices, values = [k for k, _ in got], [v for _, v in got]
                start = self._start(indices)
                start(values)
                _core._record_host_call(start, values, "HorovodAllreduceStart")

        grads = tape._gradient_streamed(target, flat, on_order, on_final)
        reduced = self._wait()
        _core._record_host_call(self._wait, [], "HorovodAllreduceWait", reduced)
        by_index = dict(zip(self.order, reduced))
        return [by_index.get(i, g) if g is not None else None for i, g in enumerate(grads)]


def _note_step(st, t0, t1, intervals):
    """Per step: the sweep's time and how much of the communication ran while it did."""
    s = st.stats
    s["steps"] += 1
    s["sweep_seconds"] += t1 - t0
    s["overlap_seconds"] += sum(max(0.0, min(b, t1) - max(a, t0)) for a, b in intervals)
