"""A concrete function's graph as TF's protocol-buffer messages: ``function_def`` and ``as_graph_def()``.

tf.function sits below saved_model, so this module registers itself with _function/graph_protos.py,
where ConcreteFunction and FuncGraph find it.

``function_def`` is the FunctionDef tf.saved_model.save writes for the same trace (the writer of
saved_model/_function_def.py, Note [FunctionDef form]): TF's ops and attributes, one argument per
placeholder named after its parameter ("xs", "xs_1" for the items of a list), then one DT_RESOURCE
argument per captured variable; outputs "identity", "identity_1", ... A signature that leaves dimensions
unknown is written as Note [Exported shapes] says (traced at three sizes, the sizes read with tf.shape);
those traces are not counted as traces of the function, as TF makes none to give its FunctionDef.

``as_graph_def()`` is the inspected graph (the nodes of ``graph.get_operations()``, same names, op types
and inputs) as a GraphDef message, with TF's attributes on placeholders and constants.
"""
import itertools

from tapegrad import _protos, dtypes, errors
from tapegrad._function import graph_protos
from tapegrad.io._tensor_proto import datatype_enum, tensor_proto
from tapegrad.saved_model._function_def import SPECIAL_OPS, FunctionWriter, shape_proto
from tapegrad.saved_model._save import GRAPH_DEF_MIN_CONSUMER, GRAPH_DEF_VERSION
from tapegrad.saved_model._symbolic_dims import Plan, at_sizes, groupings, none_dims
from tapegrad.saved_model._tf_nodes import RULES

__all__ = ["function_def", "graph_def"]

_ids = itertools.count(1)


def _sized_traces(cf, specs, dims):
    """(groups, concrete functions of cf's Function at the three sizes of each None dimension)."""
    function = cf._function
    count, history = function._num_traces, len(function._history)
    tried = groupings(dims)
    try:
        for n, groups in enumerate(tried):
            try:
                return groups, [function.get_concrete_function(*args, **kwargs) for args, kwargs in
                                (cf._arguments_with(at_sizes(specs, groups, w)) for w in range(3))]
            except (errors.OpError, ValueError):
                if n == len(tried) - 1:
                    raise
    finally:  # TF gives a FunctionDef without tracing again: these runs are not traces of the function
        function._num_traces = count
        del function._history[history:]


def function_def(cf):
    """The FunctionDef message of ConcreteFunction cf, named as TF names a trace's: "__inference_<name>_<n>"."""
    name = f"__inference_{cf._function.__name__}_{next(_ids)}"
    specs = cf._shown_specs()
    function_name = cf._function.__name__
    dims = none_dims(specs)
    groups, traces = _sized_traces(cf, specs, dims) if dims else ([], [cf])
    nodes = traces[0]._traced_graph.export_nodes()
    for n in nodes:
        if n["type"] not in RULES and n["type"] not in SPECIAL_OPS:
            raise errors.UnimplementedError(None, None, f"function_def of {function_name!r}: op {n['type']!r} "
                                                        f"(node {n['name']!r}) has no TensorFlow op to write it as")
    writer = FunctionWriter(name, function_name)
    names = [writer.add_argument(path.split("[")[0], datatype_enum(s.dtype), s.shape.as_list())
             for path, s in zip(cf._paths, specs)]
    writer.dim_sources = [(names[dims[group[0]][0]], dims[group[0]][1]) for group in groups]
    if dims:
        writer.plan = Plan([nodes] + [t._traced_graph.export_nodes() for t in traces[1:]], len(groups), function_name)
    if writer.write_graph(nodes, traces[0]._traced_graph.outputs, names):
        writer.fdef.signature.is_stateful = True
    return writer.fdef


def _attr(node, key, **field):
    node.attr[key].CopyFrom(_protos.AttrValue(**field))


def graph_def(func_graph):
    """The GraphDef message of a FuncGraph; the traced graph's export_nodes() give the constants' values."""
    exported_nodes = func_graph._traced.export_nodes()
    gd = _protos.GraphDef()
    gd.versions.producer, gd.versions.min_consumer = GRAPH_DEF_VERSION, GRAPH_DEF_MIN_CONSUMER
    for op in func_graph.get_operations():
        node = gd.node.add(name=op.name, op=op.type)
        node.input.extend(t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}" for t in op.inputs)
        out = op.outputs[0] if op.outputs else None
        if op.type == "Placeholder":
            _attr(node, "dtype", type=datatype_enum(out.dtype))
            _attr(node, "shape", shape=shape_proto(None if out.shape.rank is None else out.shape.as_list()))
            _attr(node, "_user_specified_name", s=op.name.encode())
        elif op.type == "Const" and op._row is not None and "value" in exported_nodes[op._row]:
            value = exported_nodes[op._row]["value"]
            dtype = dtypes.as_dtype(value.dtype)
            _attr(node, "dtype", type=datatype_enum(dtype))
            _attr(node, "value", tensor=tensor_proto(value.numpy().reshape(value.shape), dtype))
    return gd


graph_protos.register(function_def, graph_def)
