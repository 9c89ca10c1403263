"""``for x in dataset`` inside a tf.function: a While node that pulls elements through host calls.

Note [Dataset loops in graphs]
AutoGraph hands the loop to ``Dataset._autograph_for_stmt`` (the iteration protocol of
tapegrad.autograph). In a trace it becomes: a HostCall that starts a new iterator over the
dataset (in the function's graph, so each call of the graph iterates the dataset afresh), then a
tf.while_loop whose condition is a HostCall that fetches the next element into a one-element
buffer and returns whether there was one, and whose body is a HostCall that returns the buffered
element's tensors followed by the loop's body. A TensorArray the loop writes without an element_shape takes the shape of what the
body writes to it, learnt from a throwaway trace of one iteration. Condition and body are traced dry (as every
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
from tapegrad._function import control_flow as _control_flow
from tapegrad._ops import _raw
from tapegrad._ops.composite.ragged_tensor import RaggedTensorSpec
from tapegrad._ops.composite.sparse_tensor import SparseTensorSpec
from tapegrad._function.host_call import fresh
from tapegrad._function.tensor_array import TensorArray
from tapegrad._function.trace_context import current_trace
from tapegrad.autograph import _loops
from tapegrad.autograph._undefined import located
from tapegrad.data import _structure as st
from tapegrad.data._dataset import Iterator
from tapegrad.errors import OutOfRangeError, UnimplementedError

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
        if self.it is not None:
            self.it.close()
        self.it, self.buffered = Iterator(self.dataset), None

    def fetch(self, _values):
        # A dry trace (a branch, the peeled iteration) runs the While nodes it records on made-up
        # values: there the loop has no elements, and the iterator is left to the real run.
        trace = current_trace()
        if self.it is None or trace is not None and trace.dry:
            return [fresh([], 4, False)]
        try:
            self.buffered = st.flatten(next(self.it))
        except StopIteration:
            self.buffered = None
        return [fresh([], 4, self.buffered is not None)]

    def take(self, _values):
        trace = current_trace()
        if trace is not None and trace.dry:  # as in fetch: a made-up element
            return self.dummies()
        out, self.buffered = self.buffered, None
        if out is None:
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
    loop = _GraphIterator(dataset)
    loop.where = where
    if any(s.shape.rank is None for s in loop.specs):
        raise UnimplementedError(None, None, located(
            where, f"`for ... in dataset` inside tf.function needs elements of known rank; this dataset's "
            f"element_spec is {dataset.element_spec}. Iterate outside the tf.function and call it once per batch."))
    if any(isinstance(s, SparseTensorSpec) or isinstance(s, RaggedTensorSpec) and s.ragged_rank > 0
           for s in loop.specs):  # (rows of ragged rank 0 or -1 are dense tensors, which a graph holds)
        raise UnimplementedError(None, None, located(
            where, f"`for ... in dataset` inside tf.function over RaggedTensor or SparseTensor elements is not "
            f"supported ({dataset.element_spec}). Iterate outside the tf.function and call it once per batch."))
    _core._record_host_call(loop.restart, [], "MakeIterator")
    if not current_trace().dry:
        loop.restart([])

    def test():
        more = _host(loop.fetch, "IteratorHasNext", [fresh([], 4, True)])[0]
        return more if extra_test is None else _raw.LogicalAnd(more, extra_test())

    def step():
        flat = _host(loop.take, "IteratorGetNext", loop.dummies())
        body(st.structure_of(dataset.element_spec, flat))

    varying = any(None in s.shape for s in loop.specs)
    opts = dict(opts or {})
    with _control_flow.varying_elements(loop) if varying else contextlib.nullcontext():
        if not _loops._arrays_ready(get_state()):
            _learn_element_shapes(loop, step, get_state, set_state, varying)
        _loops._graph_loop(test, step, get_state, set_state, names, opts, where)


def _learn_element_shapes(loop, step, get_state, set_state, varying):
    """Gives each TensorArray the loop carries without an element shape the shape of what one
    iteration writes to it, learnt from a throwaway dry trace of the body (twice, with elements of
    two sizes, when the element spec has unknown dimensions: a shape that follows the batch size
    cannot be carried and is refused)."""
    init = list(get_state())
    arrays = [k for k, v in enumerate(init) if isinstance(v, TensorArray) and not v._loop_ready()]

    def one_iteration():  # on copies of every array: the throwaway trace's writes stay there
        set_state([v._detached() if isinstance(v, TensorArray) else v for v in init])
        step()
        state = get_state()
        return [state[k]._to_loop_value()[0] for k in arrays]  # each buffer after its first write

    learnt = []
    try:
        for sizes in (contextlib.nullcontext(), loop.other_sizes()) if varying else (contextlib.nullcontext(),):
            with sizes:
                _, _, buffers, _ = _control_flow._trace_subgraph(one_iteration, [], [], [], "for ... in dataset")
            learnt.append([tuple(b._shape[1:]) for b in buffers])
    except Exception as error:  # noqa: BLE001 (e.g. a write inside a traced if: the shape is not learnt)
        raise ValueError("TensorArray: an array carried by a loop over a dataset inside tf.function needs its "
                         "element_shape here (its first write could not be traced on its own: "
                         f"{type(error).__name__}: {error})") from None
    finally:
        set_state(init)
    if any(shapes != learnt[0] for shapes in learnt):
        loop.refuse(f"a TensorArray the loop carries is written elements whose shape follows the batch size: "
                    f"{learnt[0]} and {learnt[1]}")
    for k, shape in zip(arrays, learnt[0]):
        init[k]._elements.element_shape = shape


def _host(fn, label, dummies):
    """A host call recorded in the (dry) subgraph being traced, with made-up results."""
    _core._record_host_call(fn, [], label, dummies)
    return dummies
