"""tf.print: prints now when eager; inside a traced function, prints at every call of the graph."""
import sys

import numpy as np

from tapegrad import _core
from tapegrad._function.trace_context import current_trace
from tapegrad._tensor.string_tensor import StringTensor
from tapegrad._tensor.tensor import Tensor

__all__ = ["print"]


def _format_tensor(t, summarize):
    a = t._numpy_unchecked()
    if a.ndim == 0:
        v = a.item()
        return f"{v:g}" if isinstance(v, float) else str(v)
    edge = a.size if summarize is None or summarize < 0 else summarize
    return np.array2string(a, separator=" ", threshold=max(2 * edge, 1), edgeitems=max(edge, 1),
                           formatter={"float_kind": lambda v: f"{v:g}"}, max_line_width=10 ** 9)


def _render(parts, values, sep, summarize):
    it = iter(values)
    return sep.join(_format_tensor(next(it), summarize) if p is _core._OUT else str(p) for p in parts)


def _write(stream, text):
    stream = sys.stderr if stream is None else stream
    if isinstance(stream, str):  # "file://path", as TF accepts
        path = stream[len("file://"):] if stream.startswith("file://") else stream
        with open(path, "a") as f:
            f.write(text)
        return
    stream.write(text)
    if hasattr(stream, "flush"):
        stream.flush()


def print(*inputs, output_stream=None, summarize=3, sep=" ", end="\n", name=None):  # noqa: A001 -- TF's name
    """Prints tensors and Python values (to ``sys.stderr`` by default, as TF does).

    Unlike Python's ``print``, inside a ``tf.function`` it prints at every call, with the
    values of that call: tracing records it in the graph as a host call.

    Args:
      *inputs: tensors and Python values, printed separated by ``sep``.
      output_stream: a file-like object (``sys.stdout``, ``sys.stderr``) or ``"file://path"``.
      summarize: elements shown at each end of every axis (``-1`` or ``None``: all).
    """
    if any(isinstance(x, StringTensor) for x in inputs):  # constants: their text now ("a", ["a" "b"])
        from tapegrad.strings import _tensor_text
        inputs = [_tensor_text(x, summarize) if isinstance(x, StringTensor) else x for x in inputs]
    parts = [_core._OUT if isinstance(x, Tensor) else x for x in inputs]
    tensors = [x for x in inputs if isinstance(x, Tensor)]

    def emit(values):
        _write(output_stream, _render(parts, values, sep, summarize) + end)

    if _core._tracing():
        label = sep.join("{}" if p is _core._OUT else str(p) for p in parts)
        _core._record_host_call(emit, tensors, label)
        trace = current_trace()
        if trace is not None and trace.dry:
            return None
    emit(tensors)
    return None
