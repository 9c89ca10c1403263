"""``for x in dataset`` inside a tf.function: a While node that pulls elements through host calls.

Note [Dataset loops in graphs]
AutoGraph hands the loop to ``Dataset._autograph_for_stmt`` (the iteration protocol of
tapegrad.autograph). In a trace it becomes: a HostCall that starts a new iterator over the
dataset (in the function's graph, so each call of the graph iterates the dataset afresh), then a
tf.while_loop whose condition is a HostCall that fetches the next element into a one-element
buffer and returns whether there was one, and whose body is a HostCall that returns the buffered
element's tensors followed by the loop's body. Condition and body are traced dry (as every
subgraph), so their host calls are only recorded there, never run: the elements flow when the
While node runs, at the trace's own call and at every later one. Element shapes come from the
dataset's element_spec and must be fully known: code in the body may read a shape as a Python
number (x.shape[0]) while it is traced, and nothing could then tell that a later, smaller batch
needs another graph. So an element spec with unknown dimensions (batch() without
drop_remainder=True) makes the loop trace its body twice, with made-up elements of size 2 and
then 3 in those dimensions: when the two subgraphs are the same but for those sizes, the body's
differing dimensions are relaxed (Note [Relaxed graphs]: shape rules run at every iteration) and
one graph serves every batch, the last smaller one included; when the body used a size as a
Python number, the two differ and the loop is refused with an error that says so, as is a spec
of unknown rank.
"""
import contextlib

from tapegrad import _core
from tapegrad._host_call import fresh
from tapegrad._trace_context import current_trace
from tapegrad.data import _structure as st

__all__ = ["dataset_for_stmt"]


class _GraphIterator:
    """The Python side of one loop in one graph: the iterator of the current call and its buffer."""

    def __init__(self, dataset):
        self.dataset = dataset
        self.specs = st.flatten(dataset.element_spec)
        self.it = None
        self.buffered = None
        self.unknown_size = 2  # of made-up elements in unknown dimensions
        self.where = None

    def restart(self, _values):
        from tapegrad.data._dataset import Iterator
        if self.it is not None:
            self.it.close()
        self.it, self.buffered = Iterator(self.dataset), None

    def fetch(self, _values):
        try:
            self.buffered = st.flatten(next(self.it))
        except StopIteration:
            self.buffered = None
        return [fresh([], 4, self.buffered is not None)]

    def take(self, _values):
        out, self.buffered = self.buffered, None
        if out is None:
            from tapegrad.errors import OutOfRangeError
            raise OutOfRangeError(None, None, "tf.data: the loop asked for an element past the end")
        return out

    def dummies(self):
        """Made-up element values for the dry trace of the loop body."""
        return [fresh([self.unknown_size if d is None else d for d in spec.shape], spec.dtype.code, 0)
                for spec in self.specs]

    @contextlib.contextmanager
    def other_sizes(self):
        self.unknown_size = 3
        try:
            yield
        finally:
            self.unknown_size = 2

    def refuse(self, why):
        from tapegrad.autograph._undefined import located
        from tapegrad.errors import UnimplementedError
        raise UnimplementedError(None, None, located(
            self.where, f"`for ... in dataset` inside tf.function: the loop body differs between batches of "
            f"different sizes ({why}); this dataset's element_spec is {self.dataset.element_spec}. Read sizes with "
            "tf.shape(x) instead of x.shape, batch with drop_remainder=True, or iterate outside the tf.function."))


def dataset_for_stmt(dataset, extra_test, body, get_state, set_state, names, opts, where):
    """The loop of Note [Dataset loops in graphs], or a Python loop outside traces."""
    if current_trace() is None:
        for item in dataset:
            body(item)
            if extra_test is not None and not extra_test():
                break
        return
    import tapegrad as tf
    from tapegrad.autograph import _loops
    from tapegrad.autograph._undefined import located
    loop = _GraphIterator(dataset)
    loop.where = where
    if any(s.shape.rank is None for s in loop.specs):
        from tapegrad.errors import UnimplementedError
        raise UnimplementedError(None, None, located(
            where, f"`for ... in dataset` inside tf.function needs elements of known rank; this dataset's "
            f"element_spec is {dataset.element_spec}. Iterate outside the tf.function and call it once per batch."))
    _core._record_host_call(loop.restart, [], "MakeIterator")
    if not current_trace().dry:
        loop.restart([])

    def test():
        more = _host(loop.fetch, "IteratorHasNext", [fresh([], 4, True)])[0]
        return more if extra_test is None else tf.logical_and(more, extra_test())

    def step():
        flat = _host(loop.take, "IteratorGetNext", loop.dummies())
        body(st.structure_of(dataset.element_spec, flat))

    from tapegrad import _control_flow
    varying = any(None in s.shape for s in loop.specs)
    with _control_flow.varying_elements(loop) if varying else contextlib.nullcontext():
        _loops._graph_loop(test, step, get_state, set_state, names, dict(opts or {}), where)


def _host(fn, label, dummies):
    """A host call recorded in the (dry) subgraph being traced, with made-up results."""
    _core._record_host_call(fn, [], label, dummies)
    return dummies
