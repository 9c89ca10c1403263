"""Horovod's collectives on tapegrad tensors: allreduce, grouped_allreduce, allgather, broadcast.

Each is differentiable as in Horovod: the gradient of an all-reduce (Sum or Average) is the same
all-reduce of the gradient; of an all-gather, this rank's rows of the summed gradient; of a
broadcast, the summed gradient on the root rank and zeros elsewhere.
"""
import numpy as np

from tapegrad import _core
from tapegrad._autodiff.custom_gradient import custom_gradient
from tapegrad._function.control_flow import _as_tensor
from tapegrad._tensor.tensor import convert_to_tensor
from tapegrad.distribute import _runtime
from tapegrad.distribute._host import collective
from tapegrad.distribute._reduce import Average, Sum, reduce_now, resolve_op
from tapegrad.errors import InvalidArgumentError, UnimplementedError
import tapegrad as tf

__all__ = ["allreduce", "grouped_allreduce", "allgather", "broadcast", "broadcast_variables", "Compression"]


class Compression:
    """Horovod's compression choices for reductions: ``none``, or ``fp16``, which sends floating
    tensors as float16 and converts the results back (Note [Wire dtype] in _reduce.py)."""

    class none:  # noqa: N801 -- Horovod's name
        """Values travel in their own dtype."""

    class fp16:  # noqa: N801
        """Floating values travel as float16: half the bytes, float16's precision and range."""


def _wire_dtype(compression, fn):
    """The dtype floating tensors travel in for this compression: None (their own) or np.float16."""
    if compression is None or compression is Compression.none:
        return None
    if compression is Compression.fp16:
        return np.float16
    raise UnimplementedError(None, None, f"{fn}: compression={getattr(compression, '__name__', compression)!r} is not "
                             "supported; use Compression.none or Compression.fp16")


def _label(t, name, i=None):
    base = name or getattr(t, "name", None) or "tensor"
    return f"{base}" if i is None else f"{base}[{i}]"


def _checked(x, what, reduce):
    """x as a tensor MPI can carry: numbers (and bools when nothing is summed)."""
    t = _as_tensor(x, what)
    if t.dtype.name == "string" or (reduce and t.dtype.is_bool):
        raise InvalidArgumentError(None, None, f"{what}: {'reducing' if reduce else 'sending'} {t.dtype.name} tensors "
                                   "is not supported (numbers" + ("" if reduce else " and bools") + " only)")
    return t


def _node_name(kind, label):
    return kind + "_" + "".join(c if c.isalnum() or c in "_.-/" else "_" for c in label)


def _reduced(tensors, op, labels, what, prescale, postscale, node, wire=None):
    st = _runtime.state()
    return collective(lambda xs: reduce_now(st, what, op, xs, labels, prescale, postscale, wire), list(tensors),
                      node)


def allreduce(tensor, average=None, device_dense="", device_sparse="", compression=None, op=None,
              prescale_factor=1.0, postscale_factor=1.0, name=None, process_set=None, ignore_name_scope=False):
    """The tensor combined over all ranks (Average by default; op=Sum, Min, Max, Product)."""
    _runtime.state()
    op = resolve_op(op, average, "allreduce")
    wire = _wire_dtype(compression, "allreduce")
    tensor = _checked(tensor, "allreduce: tensor", True)
    label = _label(tensor, name)
    node = _node_name("HorovodAllreduce", label)

    if op not in (Sum, Average) or not tensor.dtype.is_floating:
        return _reduced([tensor], op, [label], f"allreduce {label}", prescale_factor, postscale_factor, node, wire)[0]

    @custom_gradient
    def reduce(x):
        y = _reduced([x], op, [label], f"allreduce {label}", prescale_factor, postscale_factor, node, wire)[0]

        def grad(dy):  # compressed as the values were (Horovod's casts are on both sides of the reduction)
            return _reduced([dy], op, [label + "/grad"], f"allreduce gradient {label}", prescale_factor,
                            postscale_factor, node + "_grad", wire)[0]
        return y, grad
    return reduce(tensor)


def grouped_allreduce(tensors, average=None, device_dense="", device_sparse="", compression=None, op=None,
                      prescale_factor=1.0, postscale_factor=1.0, process_set=None, name=None):
    """allreduce of a list of tensors in one group: small ones share a fusion buffer."""
    _runtime.state()
    op = resolve_op(op, average, "grouped_allreduce")
    wire = _wire_dtype(compression, "grouped_allreduce")
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"grouped_allreduce: tensors must be a list of tensors, got {type(tensors).__name__}")
    tensors = [_checked(t, f"grouped_allreduce: tensors[{i}]", True) for i, t in enumerate(tensors)]
    labels = [_label(t, name, i) for i, t in enumerate(tensors)]
    if not tensors:
        return []
    return _reduced(tensors, op, labels, "grouped_allreduce", prescale_factor, postscale_factor,
                    _node_name("HorovodGroupedAllreduce", name or "group"), wire)


def _allgather_values(x, label):
    st = _runtime.state()
    return collective(lambda xs: [st.call(_gather_on_thread, st, xs[0], label)], [x],
                      _node_name("HorovodAllgather", label), shape_preserving=False)[0]


def _gather_on_thread(st, x, label):
    MPI = st.MPI
    rest = list(x.shape[1:])
    st.rendezvous(f"allgather {label}", [f"[?, {str(rest)[1:]} {x.dtype.name}"], [label])
    rows = np.zeros(st.size, np.int64)
    st.comm.Allgather(np.array([x.shape[0]], np.int64), rows)
    per_row = int(np.prod(rest, dtype=np.int64))
    counts = [int(r) * per_row for r in rows]
    displs = list(np.cumsum([0] + counts[:-1]))
    result, view = _core._empty_with_view([int(rows.sum())] + rest, x.dtype.code)
    send = np.asarray(x).reshape(-1)
    st.comm.Allgatherv(send, [view.reshape(-1), counts, displs, MPI._typedict[view.dtype.char]])
    return result


def allgather(tensor, name=None, ignore_name_scope=False, process_set=None):
    """The ranks' tensors concatenated along axis 0, in rank order; their first dimensions may differ."""
    _runtime.state()
    tensor = _checked(tensor, "allgather: tensor", False)
    if tensor.shape.rank == 0:
        raise InvalidArgumentError(None, None, f"allgather: tensor must have at least one dimension, got a scalar "
                                   f"({tensor.dtype.name})")
    label = _label(tensor, name)
    if not tensor.dtype.is_floating:
        return _allgather_values(tensor, label)

    @custom_gradient
    def gather(x):
        y = _allgather_values(x, label)

        def grad(dy):
            # This rank's rows of the summed gradient; the row counts are gathered again (ops, so
            # that a traced gradient follows each call's sizes).
            st = _runtime.state()
            summed = _reduced([dy], Sum, [label + "/grad"], f"allgather gradient {label}", 1.0, 1.0,
                              _node_name("HorovodAllgather", label) + "_grad")[0]
            mine = tf.shape(x, out_type="int64")[:1]
            rows = _allgather_values(mine, label + "/rows")
            start = tf.reduce_sum(rows[:st.rank])
            # A gather, not tf.slice: where the row offset is a traced value it is read at every call
            # (an attribute such as slice's begin would keep the trace's value).
            count = x.shape[0] if x.shape[0] is not None else tf.shape(x, out_type="int64")[0]
            return tf.gather(summed, start + tf.range(count, dtype="int64"))
        return y, grad
    return gather(tensor)


def _broadcast_values(xs, root_rank, labels, what, node):
    st = _runtime.state()
    return collective(lambda vs: st.call(_broadcast_on_thread, st, vs, root_rank, labels, what), list(xs), node)


def _broadcast_on_thread(st, tensors, root_rank, labels, what):
    st.rendezvous(f"{what} from rank {root_rank}", [f"{list(t.shape)} {t.dtype.name}" for t in tensors], labels)
    out = []
    for t, label in zip(tensors, labels):
        result, view = _core._empty_with_view(list(t.shape), t.dtype.code)
        if st.rank == root_rank:
            np.copyto(view, np.asarray(t))
        if st.size > 1:
            st.comm.Bcast(view, root=root_rank)
        out.append(result)
    return out


def _check_root(root_rank, fn):
    size = _runtime.size()
    if not isinstance(root_rank, (int, np.integer)) or isinstance(root_rank, bool) or not 0 <= root_rank < size:
        raise InvalidArgumentError(None, None, f"{fn}: root_rank must be an int in [0, {size}), got {root_rank!r}")
    return int(root_rank)


def broadcast(tensor, root_rank, name=None, ignore_name_scope=False, process_set=None):
    """root_rank's tensor, on every rank."""
    root_rank = _check_root(root_rank, "broadcast")
    tensor = _checked(tensor, "broadcast: tensor", False)
    label = _label(tensor, name)
    node = _node_name("HorovodBroadcast", label)
    if not tensor.dtype.is_floating:
        return _broadcast_values([tensor], root_rank, [label], f"broadcast {label}", node)[0]

    @custom_gradient
    def bcast(x):
        y = _broadcast_values([x], root_rank, [label], f"broadcast {label}", node)[0]

        def grad(dy):
            st = _runtime.state()
            summed = _reduced([dy], Sum, [label + "/grad"], f"broadcast gradient {label}", 1.0, 1.0, node + "_grad")[0]
            return summed if st.rank == root_rank else summed * 0
        return y, grad
    return bcast(tensor)


def broadcast_variables(variables, root_rank, process_set=None, inplace=False):
    """Assigns root_rank's values to these variables on every rank (start of training, restores)."""
    root_rank = _check_root(root_rank, "broadcast_variables")
    variables = list(variables)
    labels = [getattr(v, "name", f"variable {i}") for i, v in enumerate(variables)]
    values = [convert_to_tensor(v) for v in variables]
    out = _broadcast_values(values, root_rank, labels, "broadcast_variables", "HorovodBroadcastVariables")
    for v, value in zip(variables, out):
        v.assign(value)

