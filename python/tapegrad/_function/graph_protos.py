"""Where ConcreteFunction.function_def and FuncGraph.as_graph_def() get their protocol-buffer messages.

The messages are written by saved_model's FunctionDef writer (saved_model/_concrete_protos.py), a unit
above tf.function; it registers its two writers here when tapegrad loads.
"""
from tapegrad import errors

__all__ = ["register", "function_def", "graph_def"]

_writers = {}


def register(function_def_writer, graph_def_writer):
    _writers["function_def"], _writers["graph_def"] = function_def_writer, graph_def_writer


def _writer(kind):
    if kind not in _writers:
        raise errors.UnimplementedError(None, None, f"{kind}: the writer of TF's messages (tapegrad.saved_model) "
                                                    "is not loaded")
    return _writers[kind]


def function_def(concrete_function):
    """The FunctionDef message of a ConcreteFunction."""
    return _writer("function_def")(concrete_function)


def graph_def(func_graph):
    """The GraphDef message of a FuncGraph (its operations, with TF's attributes on placeholders and constants)."""
    return _writer("graph_def")(func_graph)
