"""The functions a SavedModel holds: each traced tf.function written as a FunctionDef with its signature.

The sizes of None dimensions: Note [Exported shapes] in _symbolic_dims.py.
"""
from tapegrad import errors
from tapegrad._tensor.tensor import TensorSpec
from tapegrad.io._tensor_proto import datatype_enum
from tapegrad.saved_model._function_def import SPECIAL_OPS, FunctionWriter
from tapegrad.saved_model._symbolic_dims import Plan, at_sizes, groupings, none_dims
from tapegrad.saved_model._tf_nodes import RULES


def _traces(function, specs, dims):
    """(groups, the function's concrete functions at the three sizes; Note [Exported shapes])."""
    if not dims:
        return [], [function.get_concrete_function(*specs)]
    tried = groupings(dims)
    for n, groups in enumerate(tried):
        try:
            return groups, [function.get_concrete_function(*at_sizes(specs, groups, w)) for w in range(3)]
        except (errors.OpError, ValueError):
            if n == len(tried) - 1:
                raise


def _refuse_ops_tf_lacks(nodes, name):
    for n in nodes:
        if n["type"] not in RULES and n["type"] not in SPECIAL_OPS:
            raise errors.UnimplementedError(None, None, f"tf.saved_model.save: function {name!r}: op {n['type']!r} "
                                                        f"(node {n['name']!r}); TensorFlow has no such op to export it as")


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
    dims = none_dims(specs)
    groups, traces = _traces(function, specs, dims)
    cf = traces[0]
    nodes = cf._traced_graph.export_nodes()
    _refuse_ops_tf_lacks(nodes, name)
    params = list(function._signature.parameters) if function._signature is not None else []
    arg_names = [s.name or (params[i] if i < len(params) else f"arg_{i}") for i, s in enumerate(specs)]
    writer = FunctionWriter(fdef_name, name)
    names = [writer.add_argument(a, datatype_enum(s.dtype), s.shape.as_list()) for a, s in zip(arg_names, specs)]
    writer.dim_sources = [(names[dims[group[0]][0]], dims[group[0]][1]) for group in groups]
    if dims:
        writer.plan = Plan([nodes] + [t._traced_graph.export_nodes() for t in traces[1:]], len(groups), name)
    captured = writer.write_graph(nodes, cf._traced_graph.outputs, names)
    structured, flat = _output_specs(cf, traces[1] if dims else None)
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

