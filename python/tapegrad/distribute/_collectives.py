"""Horovod's collectives on tapegrad tensors: allreduce, grouped_allreduce, allgather, broadcast.

Each is differentiable as in Horovod: the gradient of an all-reduce (Sum or Average) is the same
all-reduce of the gradient; of an all-gather, this rank's rows of the summed gradient; of a
broadcast, the summed gradient on the root rank and zeros elsewhere.
"""
import numpy as np

from tapegrad import _core
from tapegrad._custom_gradient import custom_gradient
from tapegrad._tensor import Tensor, convert_to_tensor
from tapegrad.distribute import _runtime
from tapegrad.distribute._reduce import Average, Sum, reduce_now, resolve_op
from tapegrad.distribute._traced import run_eagerly_if_traced
from tapegrad.errors import InvalidArgumentError

__all__ = ["allreduce", "grouped_allreduce", "allgather", "broadcast", "broadcast_variables", "Compression"]


class Compression:
    """Horovod's gradient compression choices; only ``none`` is supported (fp16 raises)."""

    class none:  # noqa: N801 -- Horovod's name
        pass

    class fp16:  # noqa: N801
        pass


def _check_compression(compression, fn):
    if compression is not None and compression is not Compression.none:
        from tapegrad.errors import UnimplementedError
        raise UnimplementedError(None, None, f"{fn}: compression={getattr(compression, '__name__', compression)!r} "
                                 "is not supported; use Compression.none")


def _label(t, name, i=None):
    base = name or getattr(t, "name", None) or "tensor"
    return f"{base}" if i is None else f"{base}[{i}]"


def _as_tensor(x, fn, arg="tensor"):
    if isinstance(x, Tensor):
        return x
    try:
        return convert_to_tensor(x)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{fn}: {arg} must be a Tensor or convertible to one, got {type(x).__name__}") from e


def _reduced(tensors, op, labels, what, prescale, postscale):
    st = _runtime.state()
    return reduce_now(st, what, op, tensors, labels, prescale, postscale)


def allreduce(tensor, average=None, device_dense="", device_sparse="", compression=None, op=None,
              prescale_factor=1.0, postscale_factor=1.0, name=None, process_set=None, ignore_name_scope=False):
    """The tensor combined over all ranks (Average by default; op=Sum, Min, Max, Product)."""
    _runtime.state()
    op = resolve_op(op, average, "allreduce")
    _check_compression(compression, "allreduce")
    run_eagerly_if_traced("allreduce")
    tensor = _as_tensor(tensor, "allreduce")
    label = _label(tensor, name)

    if op not in (Sum, Average) or not tensor.dtype.is_floating:
        return _reduced([tensor], op, [label], f"allreduce {label}", prescale_factor, postscale_factor)[0]

    @custom_gradient
    def reduce(x):
        y = _reduced([x], op, [label], f"allreduce {label}", prescale_factor, postscale_factor)[0]

        def grad(dy):
            return _reduced([dy], op, [label + "/grad"], f"allreduce gradient {label}", prescale_factor,
                            postscale_factor)[0]
        return y, grad
    return reduce(tensor)


def grouped_allreduce(tensors, average=None, device_dense="", device_sparse="", compression=None, op=None,
                      prescale_factor=1.0, postscale_factor=1.0, process_set=None, name=None):
    """allreduce of a list of tensors in one group: small ones share a fusion buffer."""
    _runtime.state()
    op = resolve_op(op, average, "grouped_allreduce")
    _check_compression(compression, "grouped_allreduce")
    run_eagerly_if_traced("grouped_allreduce")
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"grouped_allreduce: tensors must be a list of tensors, got {type(tensors).__name__}")
    tensors = [_as_tensor(t, "grouped_allreduce", f"tensors[{i}]") for i, t in enumerate(tensors)]
    labels = [_label(t, name, i) for i, t in enumerate(tensors)]
    if not tensors:
        return []
    return _reduced(tensors, op, labels, "grouped_allreduce", prescale_factor, postscale_factor)


def _allgather_values(x, label):
    st = _runtime.state()
    return st.call(_gather_on_thread, st, x, label)


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
    return result, rows


def allgather(tensor, name=None, ignore_name_scope=False, process_set=None):
    """The ranks' tensors concatenated along axis 0, in rank order; their first dimensions may differ."""
    _runtime.state()
    run_eagerly_if_traced("allgather")
    tensor = _as_tensor(tensor, "allgather")
    if tensor.shape.rank == 0:
        raise InvalidArgumentError(None, None, f"allgather: tensor must have at least one dimension, got a scalar "
                                   f"({tensor.dtype.name})")
    label = _label(tensor, name)
    if not tensor.dtype.is_floating:
        return _allgather_values(tensor, label)[0]

    @custom_gradient
    def gather(x):
        y, rows = _allgather_values(x, label)

        def grad(dy):
            st = _runtime.state()
            summed = reduce_now(st, f"allgather gradient {label}", Sum, [dy], [label + "/grad"])[0]
            start = int(rows[:st.rank].sum())
            return summed[start:start + int(rows[st.rank])]
        return y, grad
    return gather(tensor)


def _broadcast_value(x, root_rank, label):
    st = _runtime.state()
    return st.call(_broadcast_on_thread, st, [x], root_rank, [label], f"broadcast {label}")[0]


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
    run_eagerly_if_traced("broadcast")
    tensor = _as_tensor(tensor, "broadcast")
    label = _label(tensor, name)
    if not tensor.dtype.is_floating:
        return _broadcast_value(tensor, root_rank, label)

    @custom_gradient
    def bcast(x):
        y = _broadcast_value(x, root_rank, label)

        def grad(dy):
            st = _runtime.state()
            summed = reduce_now(st, f"broadcast gradient {label}", Sum, [dy], [label + "/grad"])[0]
            return summed if st.rank == root_rank else summed * 0
        return y, grad
    return bcast(tensor)


def broadcast_variables(variables, root_rank, process_set=None, inplace=False):
    """Assigns root_rank's values to these variables on every rank (start of training, restores)."""
    root_rank = _check_root(root_rank, "broadcast_variables")
    run_eagerly_if_traced("broadcast_variables")
    variables = list(variables)
    st = _runtime.state()
    labels = [getattr(v, "name", f"variable {i}") for i, v in enumerate(variables)]
    values = [convert_to_tensor(v) for v in variables]
    out = st.call(_broadcast_on_thread, st, values, root_rank, labels, "broadcast_variables")
    for v, value in zip(variables, out):
        v.assign(value)

