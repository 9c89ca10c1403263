"""Values for graph nodes that call back into Python (Note [Host calls with results] in cpp/graph/trace.h)."""
from tapegrad import _core

__all__ = ["fresh"]


def fresh(shape, dtype_code, fill=0):
    """A new tensor filled with `fill`, made by no op: recorded as a host call's result, the call's
    Output node stands for it (a dry trace's made-up result)."""
    value, view = _core._empty_with_view(list(shape), dtype_code)
    view[...] = fill
    return value
