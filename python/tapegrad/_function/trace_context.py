"""The traces running on this thread, and the errors that name what a trace cannot do.

A trace (tapegrad._function.function) runs the Python function with real tensors while the C++ tracer
records its ops; these helpers let the tensor and variable code ask whether it is being traced.
"""
import threading
import linecache
import os
import sys

from tapegrad import _core, errors as _errors
from tapegrad._tensor import tensor as _tensor

__all__ = ["current_trace", "traced_value_error", "inside_function", "is_symbolic_tensor", "symbolic_text",
           "relaxed_trace", "leaked_error", "leaked_text"]

_local = threading.local()  # .stack: the traces running on this thread, innermost last

# True when a trace left a leaked tensor alive (Note [Leaked tensors] in cpp/graph/trace.h):
# only then do numpy(), float() and repr() ask whether their tensor is one. Updated after traces.
leaks_possible = False


class _Trace:
    def __init__(self, function, dry, relaxed_shapes=None):
        self.function, self.dry = function, dry
        self.first_id = _next_tensor_id()  # see Note [Symbolic tensors]
        # A trace relaxed up front (an input_signature with None dimensions): each placeholder's
        # TensorShape by tensor id; tf.shape of a traced tensor is then a run-time value.
        self.relaxed_shapes = relaxed_shapes
        self.frozen_size = None  # why the graph holds a traced size no comparison can see (note_frozen_size)
        self.created_variables = False  # Note [Variables on the first trace]


def _next_tensor_id():
    """A lower bound of the id of every tensor created from now on (ids only grow)."""
    return _core.fill([0], 0.0, 0)._id


def _trace_stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current_trace():
    """The innermost trace on this thread, or None."""
    stack = _trace_stack()
    return stack[-1] if stack else None


# Note [Variables on the first trace]: as TF, a function whose first trace creates variables is traced
# a second time, and a variable created by that second trace (or any later one) is TF's ValueError
# ("only supports singleton tf.Variables"): a function that creates a variable on every call fails on
# its first call, one that creates them once (`if self.v is None`) runs. The first trace ran with the
# call's values and gave its result; the second is dry (what it assigns and draws is undone), so the
# call's updates happen once, and its graph, which reads the variables the first one made, serves
# the later calls. The Python body runs twice and experimental_get_tracing_count() says 2, as TF's.
def _on_variable_created():
    """Called by Variable() while tracing: only a Function's first trace may create variables."""
    trace = current_trace()
    if trace is not None and trace.function._num_traces == 0:
        trace.created_variables = True
    elif trace is not None:
        f = trace.function
        raise ValueError(
            "tf.function only supports singleton tf.Variables created on the first call. Make sure the "
            "tf.Variable is only created once or created outside tf.function. "
            f"(tf.function {f.__name__!r} created one on trace #{f._num_traces + 1}; create it only once, "
            "e.g. `if self.v is None: ...`.)")


def traced_value_error(t, what):
    """The error for Python asking a traced tensor for a value: names the condition and its line."""


    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tapegrad/, this file is in _function/
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
    where = ""
    if frame is not None:
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
        where = f" at {frame.f_code.co_filename}:{frame.f_lineno}" + (f" (`{line}`)" if line else "")
    trace = current_trace()
    fname = trace.function.__name__ if trace is not None else "a tf.function"
    return _errors.OperatorNotAllowedInGraphError(
        f"{what} of a traced tensor{where} while tracing tf.function {fname!r}: the value "
        f"`{t.name if t._is_variable else _core._describe_traced(t)}` depends on the function's arguments or "
        "variables, so Python code that needs its value (an `if`/`while` condition, int(), .numpy()) would "
        "see it once, at tracing time, and the graph would replay that choice at every call. "
        "Compute with tensor ops instead (tf.where, tf.maximum, masks), or pass the deciding value "
        "as a Python argument (each distinct value traces again).")


# Note [Symbolic tensors]
# TF's ``is_symbolic_tensor`` is True for every tensor a tf.function's code makes while it is traced
# (arguments, constants, op results), False for eager tensors captured from outside and for
# Variables. A trace here runs the code with real tensors, so a tensor's kind is not in its type:
# ``_core._is_traced`` (the tracer sees it depend on an argument or a variable) covers the
# placeholders and what is computed from them, but not a constant made inside the function. Every
# tensor gets a fresh, increasing id, so the rest is "created after the outermost trace on this
# thread began" (``_Trace.first_id``). Ids are shared by all threads: a tensor another thread makes
# during the trace counts as symbolic too, which matters only if it is handed into the trace.


def inside_function():
    """True while a ``tf.function`` is being traced on this thread (its Python code runs to build
    the graph), False in eager code."""
    return _core._tracing()


def is_symbolic_tensor(tensor):
    """True if ``tensor`` is a tensor of the ``tf.function`` being traced: an argument, or any tensor
    made inside the function. False for eager tensors, Variables and non-tensors.
    See Note [Symbolic tensors]."""
    if not isinstance(tensor, _core.Tensor) or not _core._tracing() or tensor._is_variable:
        return False
    stack = _trace_stack()
    return _core._is_traced(tensor) or (bool(stack) and tensor._id >= stack[0].first_id)


def note_frozen_size(why):
    """Called where the traced code turns a size into something that looks the same at other
    sizes (a slice bound clamped to the dimension): the graph must not be relaxed."""
    for trace in _trace_stack():
        trace.frozen_size = trace.frozen_size or why


def relaxed_trace():
    """The innermost trace if it is relaxed up front (its graph serves unknown dimensions), else None."""
    trace = current_trace()
    return trace if trace is not None and trace.relaxed_shapes is not None else None


def graph_name(name):
    """A TF-style node name for an argument path: ``args[0]`` -> ``args_0``, ``d['k']`` -> ``d_k``."""
    out = "".join(c if c.isalnum() or c in "_.-/" else "_" for c in name.replace("'", ""))
    while "__" in out:
        out = out.replace("__", "_")
    return out.strip("_") or "arg"


def symbolic_text(t, as_repr):
    """TF's text for a tensor of the trace (Note [Symbolic tensors]), or None for other tensors:
    ``<tf.Tensor 'add:0' shape=(None,) dtype=float32>`` (repr) or ``Tensor("add:0", ...)`` (str)."""

    if not is_symbolic_tensor(t):
        return None
    name = _core._traced_name(t)
    name = graph_name(name[:-2]) + ":0" if name else "Const:0"
    trace = current_trace()
    shape = None if trace is None or trace.relaxed_shapes is None else trace.relaxed_shapes.get(t._id)
    shape = _tensor.TensorShape(t._shape) if shape is None else shape
    if as_repr:
        return f"<tf.Tensor '{name}' shape={shape} dtype={t.dtype.name}>"
    return f'Tensor("{name}", shape={shape}, dtype={t.dtype.name})'


def note_leaks():
    """After a trace: whether leaked tensors are alive (see leaks_possible)."""
    global leaks_possible
    leaks_possible = _core._num_leaked() > 0


def leaked_error(text, where=""):
    """TF's TypeError for a tensor a trace computed and Python kept, used after the trace."""
    return TypeError(
        f"{text} is out of scope and cannot be used here. Use return values, explicit Python locals or "
        f"TensorFlow collections to access it.{where} (A value a tf.function computed while tracing stands for "
        "a different value at every call; this one holds the first call's.)")


def leaked_text(t, as_repr):
    """TF's text for a leaked tensor (repr ``<tf.Tensor 'mul:0' shape=(2,) dtype=float32>`` or str), or None."""
    if not leaks_possible:
        return None
    text = _core._leaked_name(t)
    if text is None or as_repr:
        return text
    from tapegrad._tensor.tensor import TensorShape
    return f'Tensor("{text.split(chr(39))[1]}", shape={TensorShape(t._shape)}, dtype={t.dtype.name})'


def check_not_leaked(t):
    if leaks_possible:
        text = _core._leaked_name(t)
        if text is not None:
            raise leaked_error(text)
