"""The functions a SavedModel holds: each traced tf.function written as a FunctionDef with its signature.

Note [Exported shapes]: a FunctionDef must serve every shape its signature admits. tapegrad traces on
values (a None dimension is traced at one size), so a traced attribute may hold that size (a slice's end,
a reshape's shape). The export traces the function twice, with each None dimension at 2 and at 3, and
writes the graph only when both traces are the same (same ops, edges, attributes and constants): then
nothing in it depends on those sizes. Otherwise it raises, naming the first node that differs, rather
than write a graph that is right for one batch size only.
"""
import numpy as np

from tapegrad import errors
from tapegrad._tensor.tensor import TensorSpec
from tapegrad.io._tensor_proto import datatype_enum
from tapegrad.saved_model._function_def import FunctionWriter


def _at_size(specs, size):
    return [TensorSpec([size if d is None else d for d in s.shape.as_list()], s.dtype, name=s.name) for s in specs]


def _node_key(n):
    value = n.get("value")
    if value is not None and n["type"] == "Const":
        value = np.asarray(value).tobytes()
    elif value is not None:
        value = id(value)
    return (n["type"], tuple(n["inputs"]), repr(sorted(n.get("attrs", {}).items())), value)


def _size_independent(function, specs, name, first):
    """The second trace of function for specs (None if no dimension is None), checked the same graph as
    the first (Note [Exported shapes])."""
    if all(s.shape.is_fully_defined() for s in specs):
        return None
    second = function.get_concrete_function(*_at_size(specs, 3))
    a, b = first._traced_graph.export_nodes(), second._traced_graph.export_nodes()
    for n, m in zip(a, b):
        if _node_key(n) != _node_key(m):
            raise errors.UnimplementedError(
                None, None, f"tf.saved_model.save: function {name!r}: node {n['name']!r} ({n['type']}) depends on the "
                            f"size of a None dimension of its input_signature; give the signature fixed sizes")
    if len(a) != len(b):
        raise errors.UnimplementedError(None, None, f"tf.saved_model.save: function {name!r}: its graph differs "
                                                    f"with the size of a None dimension of its input_signature")
    return second


def _output_specs(cf, other):
    """The results' structure as TensorSpecs; a dimension that differs between the two traces is None."""
    def spec(t, u):
        shape = [a if u is None or a == b else None for a, b in zip(t.shape.as_list(), (u or t).shape.as_list())]
        return TensorSpec(shape, t.dtype)
    outs = cf.structured_outputs
    flat = cf.graph.outputs
    flat_other = other.graph.outputs if other is not None else [None] * len(flat)
    specs = iter([spec(t, u) for t, u in zip(flat, flat_other)])
    return _replace_leaves(outs, specs), [spec(t, u) for t, u in zip(flat, flat_other)]


def _replace_leaves(structure, specs):
    if isinstance(structure, (list, tuple)) and not hasattr(structure, "shape"):
        items = [_replace_leaves(x, specs) for x in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else type(structure)(items)
    if isinstance(structure, dict):
        return {k: _replace_leaves(structure[k], specs) for k in sorted(structure)}  # flat order: sorted keys
    if structure is None or isinstance(structure, (bool, int, float, str)):
        return structure
    return next(specs)


class ExportedFunction:
    """One FunctionDef, its captured variables and the structures TF's loader rebuilds calls with."""

    def __init__(self, fdef, captured, input_signature, output_signature, arg_names, flat_outputs):
        self.fdef, self.captured = fdef, captured
        self.input_signature, self.output_signature = input_signature, output_signature
        self.arg_names, self.flat_outputs = arg_names, flat_outputs

    @property
    def name(self):
        return self.fdef.signature.name


def export(function, specs, fdef_name, signature=False):
    """function (a tapegrad Function) traced for specs (TensorSpecs, one per positional argument) as an
    ExportedFunction. A signature function takes its arguments by keyword and returns a dict (TF's
    serving signatures: one result is "output_0", a list or tuple "output_<i>")."""
    name = function.__name__
    cf = function.get_concrete_function(*_at_size(specs, 2))
    params = list(function._signature.parameters) if function._signature is not None else []
    arg_names = [s.name or (params[i] if i < len(params) else f"arg_{i}") for i, s in enumerate(specs)]
    writer = FunctionWriter(fdef_name, name)
    names = [writer.add_argument(a, datatype_enum(s.dtype), s.shape.as_list()) for a, s in zip(arg_names, specs)]
    graph = cf._traced_graph
    captured = writer.write_graph(graph.export_nodes(), graph.outputs, names)  # refuses an op TF lacks first
    structured, flat = _output_specs(cf, _size_independent(function, specs, name, cf))
    named = [TensorSpec(s.shape, s.dtype, name=n) for s, n in zip(specs, names)]
    if signature:
        if isinstance(structured, dict):
            keys = sorted(structured)
        elif isinstance(structured, (list, tuple)):
            keys = [f"output_{i}" for i in range(len(flat))]
        else:
            keys = ["output_0"]
        for out, key in zip(writer.fdef.signature.output_arg, keys):
            ref = writer.fdef.ret.pop(out.name)
            out.name = key
            writer.fdef.ret[key] = ref
        structured = dict(zip(keys, flat))
        inputs = ((), {n: s for n, s in zip(names, named)})
    else:  # a Keras export's serve takes its flat specs as one structure (Note [Keras export])
        grouped = getattr(function, "_export_arguments", None)
        inputs = (grouped[1](named) if grouped else tuple(named), {})
    return ExportedFunction(writer.fdef, captured, inputs, structured, names, flat)

