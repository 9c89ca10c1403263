"""tf.debugging's assertions on what is known without running the graph: ranks, shapes, dtypes.

They raise ValueError (shapes, ranks) or TypeError (dtypes) at once, eagerly and while tracing, as
TF does for static shapes. A trace relaxed to unknown dimensions (an input_signature with None)
also records a host call that checks assert_shapes's sizes at every call (InvalidArgumentError).
"""
import collections.abc

import numpy as np

from tapegrad import _core
from tapegrad._function import trace_context as _trace_context
from tapegrad._ops._dispatch import dispatch
from tapegrad._ops.debugging import checks
from tapegrad._tensor.tensor import Tensor, TensorShape, convert_to_tensor
from tapegrad.dtypes import as_dtype, float32
from tapegrad.errors import InvalidArgumentError

__all__ = ["assert_rank", "assert_rank_at_least", "assert_rank_in", "assert_scalar", "assert_type",
           "assert_integer", "assert_same_float_dtype", "assert_shapes", "assert_proper_iterable",
           "is_numeric_tensor"]


def _name(t):
    """The graph name TF's rank messages give a traced tensor ("a:0"); eagerly tensors have none."""
    return checks.graph_name(t) if _core._tracing() else ""


def _lead(message):
    return f"{message}.  " if message else ""


def _rank_value(rank):
    if isinstance(rank, Tensor) or isinstance(rank, float):
        dtype = convert_to_tensor(rank).dtype
        if not dtype.is_integer:
            raise TypeError(f"tensor must be of type tf.int32; got {dtype!r}")
    if np.ndim(rank) != 0:
        raise ValueError("Rank must be a scalar.")
    return int(rank)


def _check_rank(x, message, ok, wanted):
    x = convert_to_tensor(x)
    if not ok(x.ndim):
        raise ValueError(f"{_lead(message)}Tensor {_name(x)} must have rank {wanted}.  "
                         f"Received rank {x.ndim}, shape {x.shape}")


@dispatch
def assert_rank(x, rank, message=None, name=None):
    """Raises ValueError unless ``x`` has rank ``rank``."""
    rank = _rank_value(rank)
    return _check_rank(x, message, lambda r: r == rank, rank)


def assert_rank_at_least(x, rank, message=None, name=None):
    """Raises ValueError unless ``x`` has rank ``rank`` or more."""
    rank = _rank_value(rank)
    return _check_rank(x, message, lambda r: r >= rank, f"at least {rank}")


def assert_rank_in(x, ranks, message=None, name=None):
    """Raises ValueError unless the rank of ``x`` is one of ``ranks``."""
    ranks = tuple(_rank_value(r) for r in ranks)
    return _check_rank(x, message, lambda r: r in ranks, f"in {ranks}")


def assert_scalar(tensor, message=None, name=None):
    """Raises ValueError unless ``tensor`` is a scalar; returns it inside a tf.function."""
    t = convert_to_tensor(tensor)
    if t.ndim != 0:
        where = f" for {_name(t)}" if _core._tracing() else ""
        raise ValueError(f"{_lead(message)}Expected scalar shape{where}, saw shape: {t.shape}.")
    return t if _core._tracing() else None


def assert_type(tensor, tf_type, message=None, name=None):
    """Raises TypeError unless ``tensor``'s dtype is ``tf_type``."""
    want, got = as_dtype(tf_type), convert_to_tensor(tensor).dtype
    if got != want:
        raise TypeError(f"{_lead(message)}tensor must be of type {want!r}; got {got!r}")


def assert_integer(x, message=None, name=None):
    """Raises TypeError unless ``x`` has an integer dtype."""
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        what = _name(t) if _core._tracing() else "tensor"
        raise TypeError(f'{_lead(message)}Expected "x" to be integer type.  Found: {what} of dtype {t.dtype}')


def assert_same_float_dtype(tensors=None, dtype=None):
    """Returns the floating dtype all ``tensors`` (and ``dtype``) share, float32 when none is given;
    raises ValueError when they differ or the dtype is not floating."""
    first = None
    for t in tensors or ():
        if dtype is None:
            dtype, first = t.dtype, t
        elif t.dtype != dtype:
            against = f" as {first}" if first is not None else ""
            raise ValueError(f"{t}, type={t.dtype}, must be of the same type ({dtype}){against}.")
    if dtype is None:
        return float32
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


def assert_proper_iterable(values):
    """Raises TypeError unless ``values`` is an iterable other than a tensor, array or string."""
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}')
    if not isinstance(values, collections.abc.Iterable):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def is_numeric_tensor(tensor):
    """True for a tensor of a number dtype (not bool, not string)."""
    return isinstance(tensor, Tensor) and not tensor._is_variable and tensor.dtype.name != "bool"


# -- assert_shapes -------------------------------------------------------------------------------------
def _static_shape(t):
    """t's shape as the graph being traced knows it: None for a dimension a relaxed trace leaves open."""
    trace = _trace_context.relaxed_trace()
    shape = trace.relaxed_shapes.get(t._id) if trace is not None else None
    return list(t.shape) if shape is None else shape.as_list()


def _check_shapes(pairs, labels, shapes, message, error):
    """One pass over the (tensor, spec) pairs; a None size is not checked; raises error(text).

    As TF: a scalar counts as shape (1,), an empty spec as (1,), a 0- or 1-entry spec fits ranks 0
    and 1, and behind a leading '*' (or ...) dimensions count from the end (-1 is the last)."""
    sizes = {}  # symbol -> (size, label of the tensor that fixed it, its dimension)
    for (t, spec), label, shape in zip(pairs, labels, shapes):
        shape_text = TensorShape(shape)
        ellipsis = bool(spec) and (spec[0] is Ellipsis or spec[0] == "*")
        body = spec[1:] if ellipsis else (spec or (1,))
        sized = list(shape) or [1]
        rank, ok, wanted = len(shape), True, len(body)
        if ellipsis:
            rank, ok, wanted = len(sized), len(sized) >= len(body), f"at least {len(body)}"
        elif len(spec) <= 1:
            ok, wanted = rank <= 1, "in (0, 1)"
        else:
            ok = rank == len(body)
        if not ok:
            raise error(f"{_lead(message)}Tensor {_name(t)} must have rank {wanted}.  "
                        f"Received rank {rank}, shape {shape_text}")
        first = len(sized) - len(body)
        for dim, s in zip(range(first, len(sized)), body):
            size, shown = sized[dim], dim - len(sized) if ellipsis else dim
            if s == "." or size is None:
                continue
            if isinstance(s, str) and s not in sizes:
                sizes[s] = (size, label, shown)
                continue
            want, why = (sizes[s][0], f"Specified by tensor {sizes[s][1]} dimension {sizes[s][2]}") \
                if isinstance(s, str) else (int(s), "Specified explicitly")
            if size != want:
                raise error(f"{_lead(message)}{why}.  Tensor {label} dimension {shown} must have size {want}.  "
                            f"Received size {size}, shape {shape_text}")


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Raises ValueError unless every tensor has its spec's shape and equal symbols name equal sizes.

    ``shapes``: (tensor, spec) pairs or a dict; a spec is a sequence of ints, symbol strings, '.'
    (any size) and a leading '*' or ``...`` (any leading dimensions); a string spec 'N' means ('N',).

    >>> tf.debugging.assert_shapes([(x, ('N', 'D')), (y, ('D',))])
    """
    items = shapes.items() if isinstance(shapes, dict) else shapes
    pairs = [(convert_to_tensor(t), (s,) if isinstance(s, str) else tuple(s)) for t, s in items]
    labels = [checks.label(t) for t, _ in pairs]
    _check_shapes(pairs, labels, [_static_shape(t) for t, _ in pairs], message, ValueError)
    trace = _trace_context.relaxed_trace()
    if trace is not None:  # sizes the graph leaves open are checked at every call

        def run(values):
            _check_shapes(pairs, labels, [list(v.shape) for v in values], message, InvalidArgumentError)

        _core._record_host_call(run, [t for t, _ in pairs], "Assert")
        if not trace.dry:  # the trace is the first call
            run([t for t, _ in pairs])
    return None
