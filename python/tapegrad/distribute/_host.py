"""Collectives inside tf.function: a graph node that calls back into Python at every call.

A trace runs the function with real values, so a collective met while tracing runs now, and is
also recorded as a HostCall node whose results later ops read (Note [Host calls with results] in
cpp/graph/trace.h): every call of the graph communicates again, in program order.
"""
from tapegrad import _core
from tapegrad._trace_context import current_trace
from tapegrad.errors import UnimplementedError

__all__ = ["collective"]


def collective(fn, inputs, label):
    """fn(list of tensors) -> list of tensors, run now; while tracing also recorded in the graph.
    fn must not run tensor ops (the tracer would record them beside the node)."""
    trace = current_trace()
    if trace is None:
        return fn(inputs)
    if trace.dry:
        raise UnimplementedError(None, None, f"tf.function {trace.function.__name__!r}: {label} needs the other "
                                 "ranks' values, which a dry trace (get_concrete_function) does not have; call the "
                                 "function instead")
    outs = fn(inputs)
    _core._record_host_call(fn, inputs, label, outs)
    return outs
