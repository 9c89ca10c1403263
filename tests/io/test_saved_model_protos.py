"""tapegrad._protos's SavedModel messages (saved_model.pb, fingerprint.pb; Note [Protos as descriptor code]):
a SavedModel tree with a function library, a signature and an object graph round trips field for field,
every new message and enum is built, DataType names every value TF 2.21 writes. TF's own files and
classes against these: tests/oracle/test_tf_oracle_saved_model_protos.py."""
import pytest
from google.protobuf import descriptor_pb2, unknown_fields

from tapegrad import _protos
from tapegrad._protos import _saved_model_rows

F32, SHAPE = _protos.DataType.Value("DT_FLOAT"), {"dim": [{"size": -1}, {"size": 2}]}
SPEC = {"tensor_spec_value": {"name": "x", "shape": SHAPE, "dtype": F32}}
# ((TensorSpec x,), {}) as TF writes a canonicalized input signature: a tuple of args and a dict of kwargs
SIGNATURE = {"tuple_value": {"values": [{"tuple_value": {"values": [SPEC]}}, {"dict_value": {"fields": {}}}]}}


def _node(name, op, inputs, **attr):
    return {"name": name, "op": op, "input": inputs, "attr": attr}


FUNCTION = {
    "signature": {"name": "__inference_f_12", "input_arg": [{"name": "x", "type": F32}, {
        "name": "readvariableop_resource", "type": _protos.DataType.Value("DT_RESOURCE"),
        "handle_data": [{"dtype": F32, "shape": {"dim": [{"size": 2}]}}]}],
        "output_arg": [{"name": "identity", "type": F32}], "is_stateful": True,
        "attr": [{"name": "T", "type": "type", "allowed_values": {"list": {"type": [F32]}}}]},
    "attr": {"_input_shapes": {"list": {"shape": [SHAPE, {"unknown_rank": True}]}}},
    "arg_attr": {0: {"attr": {"_user_specified_name": {"s": b"x"}}}},
    "resource_arg_unique_id": {1: 0},
    "node_def": [
        _node("ReadVariableOp", "ReadVariableOp", ["readvariableop_resource"], dtype={"type": F32}),
        _node("mul", "Mul", ["x", "ReadVariableOp:value:0"], T={"type": F32}, _note={"func": {
            "name": "g", "attr": {"n": {"i": -3}}}}, _scale={"f": 0.5}, _flag={"b": True}),
    ],
    "ret": {"identity": "mul:z:0"}, "control_ret": {"ReadVariableOp": "ReadVariableOp"},
}
NODE = dict(_node("Const", "Const", ["^x"], value={"tensor": {"dtype": F32, "float_val": [1.0]}}),
            device="/CPU:0", experimental_debug_info={"original_node_names": ["c"]},
            experimental_type={"type_id": _protos.FullTypeId.Value("TFT_PRODUCT"),
                               "args": [{"type_id": _protos.FullTypeId.Value("TFT_TENSOR"), "s": "t"}]})
GRAPH = {"node": [NODE], "versions": {"producer": 2121, "min_consumer": 12},
         "library": {"function": [FUNCTION], "gradient": [{"function_name": "f", "gradient_func": "g"}],
                     "registered_gradients": [{"gradient_func": "g", "registered_op_type": "Op"}]},
         "debug_info": {"files": ["a.py"], "frames_by_id": {7: {"file_index": 0, "line": 0, "func": "f"}},
                        "traces_by_id": {1: {"frame_id": [7]}}, "name_to_trace_id": {"mul": 1}}}
OBJECTS = {
    "nodes": [
        {"children": [{"node_id": 1, "local_name": "v"}, {"node_id": 2, "local_name": "f"}],
         "user_object": {"identifier": "_generic_user_object", "version": {"producer": 1, "min_consumer": 1}}},
        {"variable": {"dtype": F32, "shape": {"dim": [{"size": 2}]}, "trainable": True, "name": "v",
                      "synchronization": _protos.VariableSynchronization.Value("VARIABLE_SYNCHRONIZATION_AUTO"),
                      "aggregation": _protos.VariableAggregation.Value("VARIABLE_AGGREGATION_SUM")}},
        {"function": {"concrete_functions": ["__inference_f_12"], "function_spec": {
            "fullargspec": {"named_tuple_value": {"name": "FullArgSpec", "values": [
                {"key": "args", "value": {"list_value": {"values": [{"string_value": "x"}]}}},
                {"key": "defaults", "value": {"none_value": {}}}]}},
            "input_signature": {"tuple_value": {"values": [SPEC]}},
            "jit_compile": _protos.FunctionSpec.JitCompile.Value("OFF")}}},
        {"bare_concrete_function": {"concrete_function_name": "__inference_f_12", "argument_keywords": ["x"],
                                    "allowed_positional_arguments": 1}},
        {"resource": {"device": "/CPU:0"}, "saveable_objects": {"s": {"save_function": 3, "restore_function": 4}},
         "serialized_user_proto": {"type_url": "type.googleapis.com/x.Y", "value": b"\x08\x01"}},
    ],
    "concrete_functions": {"__inference_f_12": {"bound_inputs": [1], "canonicalized_input_signature": SIGNATURE,
                                                "output_signature": SPEC}},
}
META_GRAPH = {
    "meta_info_def": {"tags": ["serve"], "tensorflow_version": "2.21.0", "stripped_default_attrs": True,
                      "stripped_op_list": {"op": [{"name": "Mul", "deprecation": {"version": 1}}]},
                      "any_info": {"type_url": "t", "value": b"v"}, "function_aliases": {"f": "g"}},
    "graph_def": GRAPH,
    "saver_def": {"filename_tensor_name": "saver_filename:0", "sharded": True,
                  "version": _protos.SaverDef.CheckpointFormatVersion.Value("V2")},
    "collection_def": {"a": {"node_list": {"value": ["n"]}}, "b": {"float_list": {"value": [1.5]}}},
    "signature_def": {"serving_default": {
        "inputs": {"x": {"name": "serving_default_x:0", "dtype": F32, "tensor_shape": SHAPE}},
        "outputs": {"y": {"coo_sparse": {"values_tensor_name": "v:0"}}, "z": {"composite_tensor": {
            "type_spec": {"type_spec_class": _protos.TypeSpecProto.TypeSpecClass.Value("RAGGED_TENSOR_SPEC"),
                          "num_flat_components": 1}, "components": [{"name": "c:0"}]}}},
        "method_name": "tensorflow/serving/predict"}},
    "asset_file_def": [{"tensor_info": {"name": "asset:0"}, "filename": "vocab.txt"}],
    "object_graph_def": OBJECTS,
}
SAVED_MODEL = {"saved_model_schema_version": 1, "meta_graphs": [META_GRAPH]}
FINGERPRINT = {"saved_model_checksum": 2 ** 64 - 1, "graph_def_program_hash": 1, "signature_def_hash": 2,
               "saved_object_graph_hash": 3, "checkpoint_hash": 4, "uuid": "u", "version": {"producer": 2}}
HANDLE = {"device": "/CPU:0", "container": "c", "name": "v", "hash_code": 2 ** 64 - 1, "maybe_type_name": "t",
          "dtypes_and_shapes": [{"dtype": F32, "shape": SHAPE}]}
SIGNATURE_DEF = META_GRAPH["signature_def"]["serving_default"]

# One filled-in value of every top-level message these rows add, as tests/io/test_protos.py's SAMPLES
# (which can take these in, so that its checks against TF's classes cover them too).
SAMPLES = {
    "Any": {"type_url": "type.googleapis.com/tensorflow.VersionDef", "value": b"\x08\x01"},
    "ResourceHandleProto": HANDLE,
    "FullTypeDef": NODE["experimental_type"],
    "AttrValue": {"list": {"s": [b"a"], "i": [-1], "f": [0.5], "b": [True], "type": [F32], "shape": [SHAPE],
                           "tensor": [{"dtype": F32}], "func": [{"name": "f"}]}},
    "NameAttrList": {"name": "f", "attr": {"T": {"type": F32}, "p": {"placeholder": "T"}}},
    "GraphDebugInfo": GRAPH["debug_info"] | {"traces": {"n": {"file_line_cols": [{"line": 3, "code": "x"}]}}},
    "NodeDef": NODE,
    "OpDef": FUNCTION["signature"] | {"control_output": ["c"], "summary": "s", "is_commutative": True,
                                      "is_distributed_communication": True},
    "OpDeprecation": {"version": 8, "explanation": "gone"},
    "OpList": {"op": [{"name": "Mul", "attr": [{"name": "T", "has_minimum": True, "minimum": -1,
                                                "default_value": {"type": F32}}]}]},
    "FunctionDefLibrary": GRAPH["library"],
    "FunctionDef": FUNCTION,
    "GradientDef": {"function_name": "f", "gradient_func": "g"},
    "RegisteredGradient": {"gradient_func": "g", "registered_op_type": "Op"},
    "GraphDef": GRAPH | {"version": 1},
    "VariableDef": {"variable_name": "v:0", "initial_value_name": "i:0", "is_resource": True, "trainable": True,
                    "save_slice_info_def": {"full_name": "v", "full_shape": [4], "var_offset": [2], "var_shape": [2]},
                    "synchronization": 3, "aggregation": 2},
    "SaveSliceInfoDef": {"full_name": "v", "full_shape": [4, 1], "var_offset": [0, 0], "var_shape": [2, 1]},
    "StructuredValue": SIGNATURE,
    "NoneValue": {},
    "ListValue": {"values": [{"float64_value": 0.5}, {"int64_value": -(2 ** 63)}, {"bool_value": False}]},
    "TupleValue": {"values": [{"tensor_shape_value": SHAPE}, {"tensor_dtype_value": F32}]},
    "DictValue": {"fields": {"a": {"tensor_value": {"dtype": F32, "float_val": [1.0]}}, "b": {"none_value": {}}}},
    "PairValue": {"key": "k", "value": {"numpy_value": {"dtype": 9, "int64_val": [3]}}},
    "NamedTupleValue": OBJECTS["nodes"][2]["function"]["function_spec"]["fullargspec"]["named_tuple_value"],
    "TensorSpecProto": SPEC["tensor_spec_value"],
    "BoundedTensorSpecProto": {"name": "b", "shape": SHAPE, "dtype": F32, "minimum": {"dtype": F32, "float_val": [0]},
                               "maximum": {"dtype": F32, "float_val": [1]}},
    "TypeSpecProto": {"type_spec_class": 13, "type_state": SIGNATURE, "type_spec_class_name": "Spec",
                      "num_flat_components": 2},
    "SavedObjectGraph": OBJECTS,
    "SavedObject": {"dependencies": [{"node_id": 3}], "slot_variables": [{"original_variable_node_id": 1}],
                    "captured_tensor": {"name": "t", "concrete_function": "f"}, "registered_name": "r",
                    "registered_saver": "s"},
    "SavedUserObject": {"identifier": "i", "version": {"producer": 1}, "metadata": "{}"},
    "SavedAsset": {"asset_file_def_index": 2},
    "SavedFunction": OBJECTS["nodes"][2]["function"],
    "CapturedTensor": {"name": "t", "concrete_function": "f"},
    "SavedConcreteFunction": OBJECTS["concrete_functions"]["__inference_f_12"],
    "SavedBareConcreteFunction": OBJECTS["nodes"][3]["bare_concrete_function"] | {"function_spec": {"is_method": True}},
    "SavedConstant": {"operation": "Const"},
    "SavedVariable": OBJECTS["nodes"][1]["variable"] | {
        "device": "/CPU:0", "experimental_distributed_variable_components": [{"name": "v/replica_1", "dtype": F32}]},
    "FunctionSpec": OBJECTS["nodes"][2]["function"]["function_spec"],
    "SavedResource": {"device": "/CPU:0"},
    "SaveableObject": {"save_function": 3, "restore_function": 4},
    "SaverDef": META_GRAPH["saver_def"] | {"save_tensor_name": "s", "restore_op_name": "r", "max_to_keep": 5,
                                           "keep_checkpoint_every_n_hours": 1.5},
    "MetaGraphDef": META_GRAPH,
    "CollectionDef": {"any_list": {"value": [{"type_url": "t", "value": b"v"}]}},
    "TensorInfo": SIGNATURE_DEF["outputs"]["z"],
    "SignatureDef": SIGNATURE_DEF | {"defaults": {"x": {"dtype": F32, "float_val": [0.0]}}},
    "AssetFileDef": META_GRAPH["asset_file_def"][0],
    "SavedModel": SAVED_MODEL,
    "FingerprintDef": FINGERPRINT,
}


def _unknown(message, path="message"):
    """The paths of the messages in message's tree holding fields its class does not know."""
    found = [path] if len(unknown_fields.UnknownFieldSet(message)) else []
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].message_type is not None:
                found += [p for k, v in value.items() for p in _unknown(v, f"{path}.{field.name}[{k!r}]")]
        elif field.is_repeated:
            found += [p for i, v in enumerate(value) for p in _unknown(v, f"{path}.{field.name}[{i}]")]
        else:
            found += _unknown(value, f"{path}.{field.name}")
    return found


def test_a_saved_model_round_trips():
    model = _protos.SavedModel(**SAVED_MODEL)
    data = model.SerializeToString(deterministic=True)
    back = _protos.SavedModel.FromString(data)
    assert back == model and back.SerializeToString(deterministic=True) == data and not _unknown(back)
    graph = back.meta_graphs[0]
    mul = graph.graph_def.library.function[0].node_def[1]
    assert mul.attr["_note"].func.attr["n"].i == -3 and mul.attr["T"].WhichOneof("value") == "type"
    assert graph.graph_def.library.function[0].arg_attr[0].attr["_user_specified_name"].s == b"x"
    nodes = graph.object_graph_def.nodes
    assert [n.WhichOneof("kind") for n in nodes] == ["user_object", "variable", "function",
                                                     "bare_concrete_function", "resource"]
    inputs = graph.object_graph_def.concrete_functions["__inference_f_12"].canonicalized_input_signature
    assert inputs.tuple_value.values[0].tuple_value.values[0].tensor_spec_value.shape.dim[0].size == -1
    assert inputs.tuple_value.values[1].WhichOneof("kind") == "dict_value"
    assert nodes[2].function.function_spec.fullargspec.named_tuple_value.values[1].value.HasField("none_value")


def test_every_new_top_level_message_has_a_sample():
    tops = {name for _, name, _ in _saved_model_rows.MESSAGES if "." not in name} | {"Any", "ResourceHandleProto"}
    assert tops == set(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_sample_round_trips(name):
    cls = getattr(_protos, name)
    value = cls(**SAMPLES[name])
    data = value.SerializeToString(deterministic=True)  # (a map's entries otherwise come in any order)
    back = cls.FromString(data)
    assert back == value and back.SerializeToString(deterministic=True) == data and not _unknown(back)
    assert data or name == "NoneValue"


def test_every_saved_model_message_builds_and_reads_empty_bytes():
    for short, name, _ in _saved_model_rows.MESSAGES:
        cls = _protos
        for part in name.split("."):
            cls = getattr(cls, part)
        assert cls.DESCRIPTOR.file.name == _saved_model_rows.FILES[short][0], name
        assert cls.FromString(b"") == cls() and cls().SerializeToString() == b"", name


def test_the_graph_debug_info_file_is_proto2():
    # an explicit 0 is kept (presence); frame_id is packed as its [packed = true] says (0x12: field 2, bytes)
    frame = _protos.GraphDebugInfo.FileLineCol(line=0)
    assert frame.HasField("line") and frame.SerializeToString() == b"\x10\x00"
    frame_ids = _protos.GraphDebugInfo.StackTrace(frame_id=[1]).SerializeToString()
    assert frame_ids == b"\x12\x08" + (1).to_bytes(8, "little")
    # a proto2 repeated scalar without it is not packed (0x08: field 1, varint)
    row = descriptor_pb2.DescriptorProto(name="M")
    _protos._add_field(row, "repeated int32 x = 1", "tensorflow.M", {})
    _protos._add_field(row, "repeated int32 y = 2 [packed = true]", "tensorflow.M", {})
    assert not row.field[0].options.packed and row.field[1].options.packed
    assert not _protos.TensorShapeProto.Dim(size=0).SerializeToString()  # proto3 as before


@pytest.mark.parametrize("number, name", [(23, "DT_UINT64"), (24, "DT_FLOAT8_E5M2"), (29, "DT_INT4"),
                                          (33, "DT_FLOAT4_E2M1FN"), (101, "DT_FLOAT_REF"), (120, "DT_RESOURCE_REF"),
                                          (133, "DT_FLOAT4_E2M1FN_REF")])
def test_datatype_names_every_value_tf_writes(number, name):
    assert _protos.DataType.Name(number) == name and _protos.DataType.Value(name) == number


def test_enums_with_jumps_have_tfs_numbers():
    assert _protos.FullTypeId.Value("TFT_SHAPE_TENSOR") == 1005 and _protos.FullTypeId.Value("TFT_STRING") == 214
    assert _protos.FullTypeId.Value("TFT_BFLOAT16") == 215 and _protos.FullTypeId.Value("TFT_LEGACY_VARIANT") == 10203
    assert _protos.TypeSpecProto.TypeSpecClass.Value("EXTENSION_TYPE_SPEC") == 13
    assert _protos.SaverDef.V2 == 2 and _protos.FunctionSpec.OFF == 2


def test_a_tensor_proto_holds_resource_handles():
    tensor = _protos.TensorProto(dtype=_protos.DataType.Value("DT_RESOURCE"), resource_handle_val=[HANDLE])
    assert _protos.TensorProto.FromString(tensor.SerializeToString()) == tensor
