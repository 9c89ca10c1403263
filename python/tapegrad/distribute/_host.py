"""Collectives inside tf.function: a graph node that calls back into Python at every call.

A trace runs the function with real values, so a collective met while tracing runs now, and is
also recorded as a HostCall node whose results later ops read (Note [Host calls with results] in
cpp/graph/trace.h): every call of the graph communicates again, in program order. A dry trace (the
branches and loop bodies of control flow, get_concrete_function) only records the node, its
results made up with the inputs' shapes: it runs when the graph does.
"""
from tapegrad import _core
from tapegrad._function.host_call import fresh
from tapegrad._function.trace_context import current_trace
from tapegrad.errors import UnimplementedError

__all__ = ["collective"]


def collective(fn, inputs, label, shape_preserving=True):
    """fn(list of tensors) -> list of tensors, run now; while tracing also recorded in the graph.
    fn must not run tensor ops (the tracer would record them beside the node). Its results have
    the inputs' shapes and dtypes unless shape_preserving is False (allgather)."""
    trace = current_trace()
    if trace is None:
        return fn(inputs)
    if trace.dry:
        if not shape_preserving:
            raise UnimplementedError(None, None, f"tf.function {trace.function.__name__!r}: {label} inside a "
                                     "conditional or loop body, or in get_concrete_function, is not supported (its "
                                     "result's shape depends on the other ranks)")
        outs = [fresh(x.shape, x.dtype.code) for x in inputs]
        _core._record_host_call(fn, inputs, label, outs)
        return outs
    outs = fn(inputs)
    _core._record_host_call(fn, inputs, label, outs)
    return outs
