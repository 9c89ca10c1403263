"""Small top-level names of TF 2 that are not ops: the dtype alias tf.double, get_logger, the graph
helpers control_dependencies, group, no_op and init_scope, and the tf.*_initializer classes.

Note [Control dependencies]: TF 2 runs eager ops in program order, and a traced graph here keeps
its side effects (assignments, prints, host calls) in the order the Python code ran them, so a
control dependency never changes what runs: control_dependencies only checks its argument and calls
the callables in it, group and no_op return None (TF returns an Operation in a graph, which a
tf.function cannot return as a value anyway).

Note [init_scope]: a trace runs the Python code with real tensors while the C++ tracers of the
thread record the ops. init_scope lifts its body out of every trace by pausing those tracers (the
ones the tf.function traces on this thread own), so the body runs eagerly: executing_eagerly() is
True, variables made there are ordinary eager variables the graph then reads, .numpy() works.
A cond/while_loop branch's subgraph tracer cannot be paused from here: init_scope in a branch is an
UnimplementedError.
"""
import contextlib
import logging
import numbers

import numpy as np

from tapegrad import _core, nest, random
from tapegrad._function.trace_context import _trace_stack
from tapegrad._ops.array.creation import ones, zeros
from tapegrad._tensor.tensor import Tensor, constant, convert_to_tensor
from tapegrad.dtypes import as_dtype, double, float32  # noqa: F401
from tapegrad.errors import UnimplementedError

__all__ = ["double", "get_logger", "control_dependencies", "group", "no_op", "init_scope",
           "constant_initializer", "ones_initializer", "zeros_initializer", "random_normal_initializer",
           "random_uniform_initializer"]


def get_logger():
    """The ``logging.Logger`` named "tensorflow", as TF's (tapegrad logs there too)."""
    return logging.getLogger("tensorflow")


def control_dependencies(control_inputs):
    """A context manager; see Note [Control dependencies]. ``control_inputs``: None or an iterable of
    tensors, operations or callables (callables are called, as TF calls them)."""
    if control_inputs is not None:
        if isinstance(control_inputs, Tensor) and control_inputs.ndim == 0:
            raise TypeError("control_dependencies: control_inputs must be None or a list, got a scalar tensor "
                            "(cannot iterate over a scalar tensor)")
        try:
            items = list(control_inputs)
        except TypeError:
            raise TypeError(f"control_dependencies: control_inputs must be None or a list of tensors, operations "
                            f"or callables, got {type(control_inputs).__name__}") from None
        for c in items:
            if callable(c) and not isinstance(c, Tensor):
                c()
    return contextlib.nullcontext()


def group(*inputs, **kwargs):
    """Groups ops for their side effects; returns None (Note [Control dependencies]). In a trace the
    inputs must be (nested) tensors and ``name`` the only keyword, as TF checks there."""
    if not _core._tracing():
        return None
    kwargs.pop("name", None)
    if kwargs:
        raise ValueError(f"group: unknown keyword arguments: {', '.join(sorted(kwargs))}")
    for x in nest.flatten(list(inputs)):
        if x is not None and not isinstance(x, Tensor):
            raise TypeError(f"group: 'inputs' should be zero or more (nested) Tensors. Received {x!r} with type "
                            f"{type(x)}.")
    return None


def no_op(name=None):
    """Does nothing; returns None (Note [Control dependencies])."""
    return None


@contextlib.contextmanager
def init_scope():
    """Runs its body outside any tf.function being traced, eagerly (Note [init_scope]).

    >>> with tf.init_scope():
    ...     v = tf.Variable(1.0)   # an eager variable even inside a tf.function's trace
    """
    if not _core._tracing():
        yield
        return
    tracers = [getattr(t, "tracer", None) for t in _trace_stack()]
    if not tracers or None in tracers:
        raise UnimplementedError("init_scope: cannot lift code out of a tf.cond / tf.while_loop branch (or a "
                                 "loop autograph converted) of a tf.function; move the init_scope block out of it")
    for tracer in reversed(tracers):
        tracer.__exit__(None, None, None)
    try:
        yield
    finally:
        for tracer in tracers:
            tracer.__enter__()


# ---- tf.*_initializer: TF 2's initializer classes (init_ops_v2), called as init(shape, dtype) ----

_PARTITION_ARGS = ("partition_shape", "partition_offset")


def _shape(shape):
    if isinstance(shape, Tensor):
        return [int(d) for d in np.asarray(shape).reshape(-1)]
    if hasattr(shape, "as_list"):
        return shape.as_list()
    if isinstance(shape, numbers.Integral):
        return [int(shape)]
    return [int(d) for d in shape]


def _check_kwargs(kwargs):
    for k in kwargs:
        if k not in _PARTITION_ARGS:
            raise TypeError(f"Keyword argument should be one of {list(_PARTITION_ARGS)}. Received: {k}")


def _seeded(seed):
    """TF's seeded initializers give the same values at every call: a fresh generator per call."""
    return np.random.default_rng(int(seed) & 0x7FFFFFFFFFFFFFFF)


class _Initializer:
    """An initializer: ``init(shape, dtype)`` returns a tensor; ``get_config`` / ``from_config``."""

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("dtype", None)
        return cls(**config)


class Constant(_Initializer):
    """Tensors filled with ``value`` (a Python scalar, a list or tuple of values or a NumPy array);
    a list must have as many entries as the shape (reshaped), a scalar is repeated. ``dtype=None``
    takes the value's dtype."""

    def __init__(self, value=0, support_partition=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. Expected Python scalar, "
                            "list or tuple of values, or numpy.ndarray.")
        self.value, self.support_partition = value, support_partition

    def __call__(self, shape, dtype=None, **kwargs):
        _check_kwargs(kwargs)
        return constant(self.value, dtype=None if dtype is None else as_dtype(dtype), shape=_shape(shape))

    def get_config(self):
        return {"value": self.value}


def _numeric_or_bool(dtype):
    dtype = as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer or dtype.is_bool):
        raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype}.")
    return dtype


class Zeros(_Initializer):
    """Tensors of zeros (False for bool)."""

    def __call__(self, shape, dtype=float32, **kwargs):
        _check_kwargs(kwargs)
        return zeros(_shape(shape), _numeric_or_bool(dtype))


class Ones(_Initializer):
    """Tensors of ones (True for bool)."""

    def __call__(self, shape, dtype=float32, **kwargs):
        _check_kwargs(kwargs)
        return ones(_shape(shape), _numeric_or_bool(dtype))


class RandomNormal(_Initializer):
    """Normal samples of ``mean`` and ``stddev``, floats only. With a ``seed`` every call gives the
    same values; without, each call draws new ones (tf.random.normal)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=float32, **kwargs):
        _check_kwargs(kwargs)
        dtype, shape = as_dtype(dtype), _shape(shape)
        if not dtype.is_floating:
            raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
        if self.seed is None:
            return random.normal(shape, self.mean, self.stddev, dtype=dtype)
        values = _seeded(self.seed).normal(self.mean, self.stddev, size=shape)
        return constant(values.astype(dtype.as_numpy_dtype), dtype=dtype)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_Initializer):
    """Uniform samples in [minval, maxval), floats or integers (then the bounds must be integers).
    With a ``seed`` every call gives the same values; without, each call draws new ones."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=float32, **kwargs):
        _check_kwargs(kwargs)
        dtype, shape = as_dtype(dtype), _shape(shape)
        if not (dtype.is_floating or dtype.is_integer):
            raise ValueError(f"Argument `dtype` expected to be numeric or boolean. Received {dtype}.")
        # TF converts the bounds to dtype first: a fractional bound for an integer dtype is a TypeError
        lo = convert_to_tensor(self.minval, dtype=dtype).numpy()
        hi = convert_to_tensor(self.maxval, dtype=dtype).numpy()
        if self.seed is None:
            return random.uniform(shape, lo, hi, dtype=dtype)
        rng = _seeded(self.seed)
        values = rng.integers(lo, hi, size=shape) if dtype.is_integer else rng.uniform(lo, hi, size=shape)
        return constant(np.asarray(values).astype(dtype.as_numpy_dtype), dtype=dtype)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


# TF's public names of these classes
constant_initializer, zeros_initializer, ones_initializer = Constant, Zeros, Ones
random_normal_initializer, random_uniform_initializer = RandomNormal, RandomUniform
