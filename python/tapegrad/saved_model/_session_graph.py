"""The top-level graph of a SavedModel: what a TF1 session (tf.compat.v1 loader, TF Serving) runs.

Note [Session graph]: TF 2's loader calls the functions through the SavedObjectGraph, but a session
imports meta_graph.graph_def and runs tensors by name, so the graph holds what TF 2.21 writes there:
a VarHandleOp per variable of the checkpoint (shared_name its node's name, unique in the graph); per
signature (by key) a Placeholder "<key>_<input>" per input and a StatefulPartitionedCall of the
signature's FunctionDef on those and the handles of the variables it captures, whose outputs the
signature_def names ("<call>:<position of the output in the FunctionDef>"); a NoOp, the init op TF's
loaders run (signature "__saved_model_init_op", collection "saved_model_main_op"); and the saver. The
saver is two library functions called on the handles, as TF writes them: "_traced_restore" reads every
variable from the checkpoint prefix fed to the Placeholder "saver_filename" (RestoreV2) and assigns it;
"_traced_save" writes them and the checkpoint's object graph (a Const) under that prefix (SaveV2 to a
temporary shard, then MergeV2Checkpoints). meta_graph.saver_def names the three. TF's copy-on-read
switches (DisableCopyOnRead) and the "<variable>/Read" nodes no loader needs are left out.
"""
import re

from tapegrad import _protos
from tapegrad.io._tensor_proto import datatype_enum
from tapegrad.saved_model._function_def import _attr_value, _default_value, arg_name, shape_proto
from tapegrad.saved_model._tf_op_defs import OP_DEFS
from tapegrad.train._bundle import OBJECT_GRAPH_KEY

_DT = _protos.DataType.Value
STRING, RESOURCE = _DT("DT_STRING"), _DT("DT_RESOURCE")
INIT_OP_SIGNATURE_KEY, MAIN_OP_COLLECTION = "__saved_model_init_op", "saved_model_main_op"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"


class _Nodes:
    """Adds NodeDefs of TF ops to a repeated NodeDef field (a GraphDef's or a FunctionDef's), each
    with every attribute of its op: the given ones, the rest TF's defaults."""

    def __init__(self, field):
        self.field, self._names = field, set()

    def add(self, op, name, inputs=(), control=(), **attrs):
        base = re.sub(r"[^A-Za-z0-9_.\-/]", "_", name) or op
        unique, k = base, 1
        while unique in self._names:
            unique, k = f"{base}_{k}", k + 1
        self._names.add(unique)
        node = self.field.add(name=unique, op=op)
        node.input.extend(inputs)
        node.input.extend("^" + c for c in control)
        for key, (kind, default) in OP_DEFS[op][2].items():
            if key not in attrs and default is None:
                raise ValueError(f"tapegrad.saved_model: {op} node {unique!r} lacks attribute {key!r}")
            value = attrs[key] if key in attrs else _default_value(kind, default)
            if kind == "list(string)":  # only ever TF's empty default (VarHandleOp's allowed_devices)
                node.attr[key].list.s.extend(v.encode() for v in value)
                node.attr[key].list.SetInParent()
            else:
                node.attr[key].CopyFrom(_attr_value(kind, value))
        return unique


def _string_const(nodes, name, values, shape=None):
    tensor = _protos.TensorProto(dtype=STRING, string_val=[v if isinstance(v, bytes) else v.encode() for v in values])
    tensor.tensor_shape.CopyFrom(shape_proto([] if shape is None else shape))
    return nodes.add("Const", name, value=tensor, dtype=STRING)


def _int_const(nodes, name, value):
    tensor = _protos.TensorProto(dtype=_DT("DT_INT32"), int_val=[value])
    tensor.tensor_shape.SetInParent()
    return nodes.add("Const", name, value=tensor, dtype=_DT("DT_INT32"))


def _saver_function(name, variables):
    """An empty stateful FunctionDef taking "file_prefix" and one resource per variable; returns it,
    its _Nodes and the resource arguments' names."""
    fdef = _protos.FunctionDef()
    fdef.signature.name, fdef.signature.is_stateful = name, True
    taken = set()
    fdef.signature.input_arg.add(name=arg_name("file_prefix", taken), type=STRING)
    handles = [fdef.signature.input_arg.add(name=arg_name(var.name.split(":")[0] + "_resource", taken),
                                            type=RESOURCE).name for var, _ in variables]
    return fdef, _Nodes(fdef.node_def), handles


def _finish(fdef, nodes, control):
    """The function's one result: file_prefix, once every node of control has run (as TF's do)."""
    done = nodes.add("Identity", "Identity", ["file_prefix"], control=control, T=STRING)
    fdef.signature.output_arg.add(name="identity", type=STRING)
    fdef.ret["identity"] = f"{done}:output:0"
    for name in control:
        fdef.control_ret[name] = name
        fdef.signature.control_output.append(name)
    return fdef


def restore_function(name, variables):
    """_traced_restore: RestoreV2 of every variable's key (and the object graph, as TF reads it),
    each value assigned to its variable."""
    keys = [key for _, key in variables] + [OBJECT_GRAPH_KEY]
    dtypes = [datatype_enum(var.dtype) for var, _ in variables] + [STRING]
    fdef, nodes, handles = _saver_function(name, variables)
    names = _string_const(nodes, "RestoreV2/tensor_names", keys, [len(keys)])
    slices = _string_const(nodes, "RestoreV2/shape_and_slices", [""] * len(keys), [len(keys)])
    restore = nodes.add("RestoreV2", "RestoreV2", ["file_prefix", f"{names}:output:0", f"{slices}:output:0"],
                        dtypes=dtypes)
    assigns = []
    for i, ((var, _), handle) in enumerate(zip(variables, handles)):
        value = nodes.add("Identity", "Identity", [f"{restore}:tensors:{i}"], T=dtypes[i])
        assigns.append(nodes.add("AssignVariableOp", "AssignVariableOp", [handle, f"{value}:output:0"],
                                 dtype=dtypes[i]))
    return _finish(fdef, nodes, assigns)


def save_function(name, variables):
    """_traced_save: every variable's value and the object graph (the last argument) written with SaveV2
    to a temporary shard beside the prefix ("<prefix>_temp/part", or "<prefix>.part" on s3), then merged
    into the prefix's checkpoint files."""
    keys = [key for _, key in variables] + [OBJECT_GRAPH_KEY]
    dtypes = [datatype_enum(var.dtype) for var, _ in variables] + [STRING]
    fdef, nodes, handles = _saver_function(name, variables)
    fdef.signature.input_arg.add(name="savev2_const", type=STRING)
    s3 = nodes.add("StaticRegexFullMatch", "StaticRegexFullMatch", ["file_prefix"], pattern="^s3://.*")
    part, temp = _string_const(nodes, "Const", [".part"]), _string_const(nodes, "Const", ["_temp/part"])
    suffix = nodes.add("Select", "Select", [f"{s3}:output:0", f"{part}:output:0", f"{temp}:output:0"], T=STRING)
    temp_prefix = nodes.add("StringJoin", "StringJoin", ["file_prefix", f"{suffix}:output:0"], N=2)
    reads = []
    for i, ((var, _), handle) in enumerate(zip(variables, handles)):
        reads.append(nodes.add("ReadVariableOp", f"Read_{i}/ReadVariableOp" if i else "Read/ReadVariableOp",
                               [handle], dtype=dtypes[i]))
    count, shard = _int_const(nodes, "num_shards", 1), _int_const(nodes, "ShardedFilename/shard", 0)
    shard_file = nodes.add("ShardedFilename", "ShardedFilename",
                           [f"{temp_prefix}:output:0", f"{shard}:output:0", f"{count}:output:0"])
    names = _string_const(nodes, "SaveV2/tensor_names", keys, [len(keys)])
    slices = _string_const(nodes, "SaveV2/shape_and_slices", [""] * len(keys), [len(keys)])
    save = nodes.add("SaveV2", "SaveV2", [f"{shard_file}:filename:0", f"{names}:output:0", f"{slices}:output:0"]
                     + [f"{r}:value:0" for r in reads] + ["savev2_const"], dtypes=dtypes)
    shards = nodes.add("Pack", "MergeV2Checkpoints/checkpoint_prefixes", [f"{shard_file}:filename:0"],
                       control=[save], N=1, T=STRING)
    merge = nodes.add("MergeV2Checkpoints", "MergeV2Checkpoints", [f"{shards}:output:0", "file_prefix"])
    return _finish(fdef, nodes, [merge] + reads)


def _call(nodes, name, function, inputs, in_types, out_types):
    return nodes.add("StatefulPartitionedCall", name, inputs, f=function, Tin=in_types, Tout=out_types)


def _signature(nodes, key, exported, handles):
    """The Placeholders and the call of one signature's FunctionDef; its SignatureDef."""
    sig = _protos.SignatureDef(method_name=PREDICT_METHOD_NAME)
    args = list(exported.fdef.signature.input_arg)[:len(exported.arg_names)]
    placeholders = []
    for arg in args:
        spec = exported.input_signature[1][arg.name]
        shape = spec.shape.as_list()
        placeholders.append(nodes.add("Placeholder", f"{key}_{arg.name}", dtype=arg.type, shape=shape))
        info = sig.inputs[arg.name]
        info.name, info.dtype = f"{placeholders[-1]}:0", arg.type
        info.tensor_shape.CopyFrom(shape_proto(shape))
    outputs = list(exported.fdef.signature.output_arg)
    call = _call(nodes, "StatefulPartitionedCall", exported.name,
                 placeholders + [handles[id(v)] for v in exported.captured],
                 [a.type for a in args] + [RESOURCE] * len(exported.captured), [o.type for o in outputs])
    for i, out in enumerate(outputs):
        spec = exported.output_signature[out.name]
        info = sig.outputs[out.name]
        info.name, info.dtype = f"{call}:{i}", out.type
        info.tensor_shape.CopyFrom(shape_proto(spec.shape.as_list()))
    return sig


def write(meta, graph, object_graph_bytes):
    """Fills meta (a MetaGraphDef whose library holds graph's functions) with the session graph of
    graph (an ObjectGraph), its signature_defs and saver_def (Note [Session graph])."""
    nodes = _Nodes(meta.graph_def.node)
    handles = {}
    for var, _ in graph.variables:
        shape = list(var.shape)
        name = nodes.add("VarHandleOp", var.name.split(":")[0], dtype=datatype_enum(var.dtype), shape=shape)
        meta.graph_def.node[-1].attr["shared_name"].s = name.encode()
        handles[id(var)] = name
    for key, exported in sorted(graph.signatures.items()):
        meta.signature_def[key].CopyFrom(_signature(nodes, key, exported, handles))
    init = nodes.add("NoOp", "NoOp")
    meta.collection_def[MAIN_OP_COLLECTION].node_list.value.append(init)
    init_info = meta.signature_def[INIT_OP_SIGNATURE_KEY].outputs[INIT_OP_SIGNATURE_KEY]
    init_info.name = init
    init_info.tensor_shape.unknown_rank = True
    object_graph = _string_const(nodes, "Const", [object_graph_bytes])
    filename = nodes.add("Placeholder", "saver_filename", dtype=STRING, shape=[])
    save_fn = save_function(graph.fdef_name("_traced_save"), graph.variables)
    restore_fn = restore_function(graph.fdef_name("_traced_restore"), graph.variables)
    meta.graph_def.library.function.extend([save_fn, restore_fn])
    var_handles = [handles[id(v)] for v, _ in graph.variables]
    resources = [RESOURCE] * len(var_handles)
    save = _call(nodes, "StatefulPartitionedCall", save_fn.signature.name, [filename] + var_handles + [object_graph],
                 [STRING] + resources + [STRING], [STRING])
    restore = _call(nodes, "StatefulPartitionedCall", restore_fn.signature.name, [filename] + var_handles,
                    [STRING] + resources, [STRING])
    meta.saver_def.CopyFrom(_protos.SaverDef(filename_tensor_name=f"{filename}:0", save_tensor_name=f"{save}:0",
                                             restore_op_name=restore, version=_protos.SaverDef.V2))
