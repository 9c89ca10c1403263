"""The traces running on this thread, and the errors that name what a trace cannot do.

A trace (tapegrad._function) runs the Python function with real tensors while the C++ tracer
records its ops; these helpers let the tensor and variable code ask whether it is being traced.
"""
import threading

from tapegrad import _core

__all__ = ["current_trace", "traced_value_error"]

_local = threading.local()  # .stack: the traces running on this thread, innermost last


class _Trace:
    def __init__(self, function, dry):
        self.function, self.dry = function, dry


def _trace_stack():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def current_trace():
    """The innermost trace on this thread, or None."""
    stack = _trace_stack()
    return stack[-1] if stack else None


def _on_variable_created():
    """Called by Variable() while tracing: only a Function's first trace may create variables."""
    trace = current_trace()
    if trace is not None and trace.function._num_traces > 0:
        f = trace.function
        raise ValueError(
            f"tf.function {f.__name__!r} tried to create a Variable on trace #{f._num_traces + 1}; "
            "a Function may create variables only on its first trace (the graph keeps them). "
            "Create the variable outside the function, or only once (e.g. `if self.v is None: ...`).")


def traced_value_error(t, what):
    """The error for Python asking a traced tensor for a value: names the condition and its line."""
    import linecache
    import os
    import sys

    from tapegrad.errors import OperatorNotAllowedInGraphError

    package = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
    where = ""
    if frame is not None:
        line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
        where = f" at {frame.f_code.co_filename}:{frame.f_lineno}" + (f" (`{line}`)" if line else "")
    trace = current_trace()
    fname = trace.function.__name__ if trace is not None else "a tf.function"
    return OperatorNotAllowedInGraphError(
        f"{what} of a traced tensor{where} while tracing tf.function {fname!r}: the value "
        f"`{t.name if t._is_variable else _core._describe_traced(t)}` depends on the function's arguments or "
        "variables, so Python code that needs its value (an `if`/`while` condition, int(), .numpy()) would "
        "see it once, at tracing time, and the graph would replay that choice at every call. "
        "Compute with tensor ops instead (tf.where, tf.maximum, masks), or pass the deciding value "
        "as a Python argument (each distinct value traces again).")
