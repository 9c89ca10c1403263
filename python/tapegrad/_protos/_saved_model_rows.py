"""The rows of SavedModel's messages (saved_model.pb, fingerprint.pb) and of the graph, function and object
graph messages it holds: rows of tapegrad._protos's table (Note [Protos as descriptor code]), kept here so the
table's machinery stays one short module. Every field of TF 2.21's .proto files is a row, the deprecated
ones too (SavedUserObject.metadata, GraphDef.version): TF still reads and writes them."""
_FW, _PB = "tensorflow/core/framework/", "tensorflow/core/protobuf/"

# short name -> (the .proto file, its package, the short names of the files it imports[, its syntax])
FILES = {
    "full_type": (_FW + "full_type.proto", "tensorflow", ()),
    "attr_value": (_FW + "attr_value.proto", "tensorflow", ("tensor", "tensor_shape", "types")),
    "graph_debug_info": (_FW + "graph_debug_info.proto", "tensorflow", (), "proto2"),  # TF's one proto2 file here
    "node_def": (_FW + "node_def.proto", "tensorflow", ("attr_value", "full_type")),
    "op_def": (_FW + "op_def.proto", "tensorflow", ("attr_value", "full_type", "resource_handle", "types")),
    "function": (_FW + "function.proto", "tensorflow", ("attr_value", "node_def", "op_def")),
    "graph": (_FW + "graph.proto", "tensorflow", ("function", "graph_debug_info", "node_def", "versions")),
    "variable": (_FW + "variable.proto", "tensorflow", ()),
    "struct": (_PB + "struct.proto", "tensorflow", ("tensor", "tensor_shape", "types")),
    "saved_object_graph": (_PB + "saved_object_graph.proto", "tensorflow", (
        "any", "tensor_shape", "types", "variable", "versions", "struct", "trackable_object_graph")),
    "saver": (_PB + "saver.proto", "tensorflow", ()),
    "meta_graph": (_PB + "meta_graph.proto", "tensorflow", (
        "any", "graph", "op_def", "tensor", "tensor_shape", "types", "saved_object_graph", "saver", "struct")),
    "saved_model": (_PB + "saved_model.proto", "tensorflow", ("meta_graph",)),
    "fingerprint": (_PB + "fingerprint.proto", "tensorflow", ("versions",)),
}

MESSAGES = [
    ("full_type", "FullTypeDef", "FullTypeId type_id = 1; repeated FullTypeDef args = 2; oneof attr string s = 3; "
                                 "oneof attr int64 i = 4"),
    ("attr_value", "AttrValue", "oneof value bytes s = 2; oneof value int64 i = 3; oneof value float f = 4; "
                                "oneof value bool b = 5; oneof value DataType type = 6; "
                                "oneof value TensorShapeProto shape = 7; oneof value TensorProto tensor = 8; "
                                "oneof value ListValue list = 1; oneof value NameAttrList func = 10; "
                                "oneof value string placeholder = 9"),
    ("attr_value", "AttrValue.ListValue", "repeated bytes s = 2; repeated int64 i = 3; repeated float f = 4; "
                                          "repeated bool b = 5; repeated DataType type = 6; "
                                          "repeated TensorShapeProto shape = 7; repeated TensorProto tensor = 8; "
                                          "repeated NameAttrList func = 9"),
    ("attr_value", "NameAttrList", "string name = 1; map<string, AttrValue> attr = 2"),
    ("graph_debug_info", "GraphDebugInfo", "repeated string files = 1; map<fixed64, FileLineCol> frames_by_id = 4; "
                                           "map<fixed64, StackTrace> traces_by_id = 6; "
                                           "map<string, StackTrace> traces = 2; "
                                           "map<string, fixed64> name_to_trace_id = 5"),
    ("graph_debug_info", "GraphDebugInfo.FileLineCol", "int32 file_index = 1; int32 line = 2; int32 col = 3; "
                                                       "string func = 4; string code = 5"),
    ("graph_debug_info", "GraphDebugInfo.StackTrace", "repeated FileLineCol file_line_cols = 1; "
                                                      "repeated fixed64 frame_id = 2 [packed = true]"),
    ("node_def", "NodeDef", "string name = 1; string op = 2; repeated string input = 3; string device = 4; "
                            "map<string, AttrValue> attr = 5; ExperimentalDebugInfo experimental_debug_info = 6; "
                            "FullTypeDef experimental_type = 7"),
    ("node_def", "NodeDef.ExperimentalDebugInfo", "repeated string original_node_names = 1; "
                                                  "repeated string original_func_names = 2"),
    ("op_def", "OpDef", "string name = 1; repeated ArgDef input_arg = 2; repeated ArgDef output_arg = 3; "
                        "repeated string control_output = 20; repeated AttrDef attr = 4; "
                        "OpDeprecation deprecation = 8; string summary = 5; string description = 6; "
                        "bool is_commutative = 18; bool is_aggregate = 16; bool is_stateful = 17; "
                        "bool allows_uninitialized_input = 19; bool is_distributed_communication = 21"),
    ("op_def", "OpDef.ArgDef", "string name = 1; string description = 2; DataType type = 3; string type_attr = 4; "
                               "string number_attr = 5; string type_list_attr = 6; "
                               "repeated ResourceHandleProto.DtypeAndShape handle_data = 7; bool is_ref = 16; "
                               "FullTypeDef experimental_full_type = 17"),
    ("op_def", "OpDef.AttrDef", "string name = 1; string type = 2; AttrValue default_value = 3; "
                                "string description = 4; bool has_minimum = 5; int64 minimum = 6; "
                                "AttrValue allowed_values = 7"),
    ("op_def", "OpDeprecation", "int32 version = 1; string explanation = 2"),
    ("op_def", "OpList", "repeated OpDef op = 1"),
    ("function", "FunctionDefLibrary", "repeated FunctionDef function = 1; repeated GradientDef gradient = 2; "
                                       "repeated RegisteredGradient registered_gradients = 3"),
    ("function", "FunctionDef", "OpDef signature = 1; map<string, AttrValue> attr = 5; "
                                "map<uint32, ArgAttrs> arg_attr = 7; map<uint32, uint32> resource_arg_unique_id = 8; "
                                "repeated NodeDef node_def = 3; map<string, string> ret = 4; "
                                "map<string, string> control_ret = 6"),
    ("function", "FunctionDef.ArgAttrs", "map<string, AttrValue> attr = 1"),
    ("function", "GradientDef", "string function_name = 1; string gradient_func = 2"),
    ("function", "RegisteredGradient", "string gradient_func = 1; string registered_op_type = 2"),
    ("graph", "GraphDef", "repeated NodeDef node = 1; VersionDef versions = 4; int32 version = 3; "
                          "FunctionDefLibrary library = 2; GraphDebugInfo debug_info = 5"),
    ("variable", "VariableDef", "string variable_name = 1; string initial_value_name = 6; "
                                "string initializer_name = 2; string snapshot_name = 3; "
                                "SaveSliceInfoDef save_slice_info_def = 4; bool is_resource = 5; bool trainable = 7; "
                                "VariableSynchronization synchronization = 8; VariableAggregation aggregation = 9"),
    ("variable", "SaveSliceInfoDef", "string full_name = 1; repeated int64 full_shape = 2; "
                                     "repeated int64 var_offset = 3; repeated int64 var_shape = 4"),
    ("struct", "StructuredValue", "oneof kind NoneValue none_value = 1; oneof kind double float64_value = 11; "
                                  "oneof kind sint64 int64_value = 12; oneof kind string string_value = 13; "
                                  "oneof kind bool bool_value = 14; "
                                  "oneof kind TensorShapeProto tensor_shape_value = 31; "
                                  "oneof kind DataType tensor_dtype_value = 32; "
                                  "oneof kind TensorSpecProto tensor_spec_value = 33; "
                                  "oneof kind TypeSpecProto type_spec_value = 34; "
                                  "oneof kind BoundedTensorSpecProto bounded_tensor_spec_value = 35; "
                                  "oneof kind ListValue list_value = 51; oneof kind TupleValue tuple_value = 52; "
                                  "oneof kind DictValue dict_value = 53; "
                                  "oneof kind NamedTupleValue named_tuple_value = 54; "
                                  "oneof kind TensorProto tensor_value = 55; oneof kind TensorProto numpy_value = 56"),
    ("struct", "NoneValue", ""),
    ("struct", "ListValue", "repeated StructuredValue values = 1"),
    ("struct", "TupleValue", "repeated StructuredValue values = 1"),
    ("struct", "DictValue", "map<string, StructuredValue> fields = 1"),
    ("struct", "PairValue", "string key = 1; StructuredValue value = 2"),
    ("struct", "NamedTupleValue", "string name = 1; repeated PairValue values = 2"),
    ("struct", "TensorSpecProto", "string name = 1; TensorShapeProto shape = 2; DataType dtype = 3"),
    ("struct", "BoundedTensorSpecProto", "string name = 1; TensorShapeProto shape = 2; DataType dtype = 3; "
                                         "TensorProto minimum = 4; TensorProto maximum = 5"),
    ("struct", "TypeSpecProto", "TypeSpecClass type_spec_class = 1; StructuredValue type_state = 2; "
                                "string type_spec_class_name = 3; int32 num_flat_components = 4"),
    ("saved_object_graph", "SavedObjectGraph", "repeated SavedObject nodes = 1; "
                                               "map<string, SavedConcreteFunction> concrete_functions = 2"),
    ("saved_object_graph", "SavedObject",
     "repeated TrackableObjectGraph.TrackableObject.ObjectReference children = 1; "
     "repeated TrackableObjectGraph.TrackableObject.ObjectReference dependencies = 15; "
     "repeated TrackableObjectGraph.TrackableObject.SlotVariableReference slot_variables = 3; "
     "oneof kind SavedUserObject user_object = 4; oneof kind SavedAsset asset = 5; "
     "oneof kind SavedFunction function = 6; oneof kind SavedVariable variable = 7; "
     "oneof kind SavedBareConcreteFunction bare_concrete_function = 8; oneof kind SavedConstant constant = 9; "
     "oneof kind SavedResource resource = 10; oneof kind CapturedTensor captured_tensor = 12; "
     "map<string, SaveableObject> saveable_objects = 11; string registered_name = 13; "
     "google.protobuf.Any serialized_user_proto = 14; string registered_saver = 16"),
    ("saved_object_graph", "SavedUserObject", "string identifier = 1; VersionDef version = 2; string metadata = 3"),
    ("saved_object_graph", "SavedAsset", "int32 asset_file_def_index = 1"),
    ("saved_object_graph", "SavedFunction", "repeated string concrete_functions = 1; FunctionSpec function_spec = 2"),
    ("saved_object_graph", "CapturedTensor", "string name = 1; string concrete_function = 2"),
    ("saved_object_graph", "SavedConcreteFunction", "repeated int32 bound_inputs = 2; "
                                                    "StructuredValue canonicalized_input_signature = 3; "
                                                    "StructuredValue output_signature = 4"),
    ("saved_object_graph", "SavedBareConcreteFunction", "string concrete_function_name = 1; "
                                                        "repeated string argument_keywords = 2; "
                                                        "int64 allowed_positional_arguments = 3; "
                                                        "FunctionSpec function_spec = 4"),
    ("saved_object_graph", "SavedConstant", "string operation = 1"),
    ("saved_object_graph", "SavedVariable", "DataType dtype = 1; TensorShapeProto shape = 2; bool trainable = 3; "
                                            "VariableSynchronization synchronization = 4; "
                                            "VariableAggregation aggregation = 5; string name = 6; string device = 7; "
                                            "repeated SavedVariable experimental_distributed_variable_components = 8"),
    ("saved_object_graph", "FunctionSpec", "StructuredValue fullargspec = 1; bool is_method = 2; "
                                           "StructuredValue input_signature = 5; JitCompile jit_compile = 6"),
    ("saved_object_graph", "SavedResource", "string device = 1"),
    ("saved_object_graph", "SaveableObject", "int32 save_function = 2; int32 restore_function = 3"),
    ("saver", "SaverDef", "string filename_tensor_name = 1; string save_tensor_name = 2; string restore_op_name = 3; "
                          "int32 max_to_keep = 4; bool sharded = 5; float keep_checkpoint_every_n_hours = 6; "
                          "CheckpointFormatVersion version = 7"),
    ("meta_graph", "MetaGraphDef", "MetaInfoDef meta_info_def = 1; GraphDef graph_def = 2; SaverDef saver_def = 3; "
                                   "map<string, CollectionDef> collection_def = 4; "
                                   "map<string, SignatureDef> signature_def = 5; "
                                   "repeated AssetFileDef asset_file_def = 6; SavedObjectGraph object_graph_def = 7"),
    ("meta_graph", "MetaGraphDef.MetaInfoDef", "string meta_graph_version = 1; OpList stripped_op_list = 2; "
                                               "google.protobuf.Any any_info = 3; repeated string tags = 4; "
                                               "string tensorflow_version = 5; string tensorflow_git_version = 6; "
                                               "bool stripped_default_attrs = 7; "
                                               "map<string, string> function_aliases = 8"),
    ("meta_graph", "CollectionDef", "oneof kind NodeList node_list = 1; oneof kind BytesList bytes_list = 2; "
                                    "oneof kind Int64List int64_list = 3; oneof kind FloatList float_list = 4; "
                                    "oneof kind AnyList any_list = 5"),
    ("meta_graph", "CollectionDef.NodeList", "repeated string value = 1"),
    ("meta_graph", "CollectionDef.BytesList", "repeated bytes value = 1"),
    ("meta_graph", "CollectionDef.Int64List", "repeated int64 value = 1"),
    ("meta_graph", "CollectionDef.FloatList", "repeated float value = 1"),
    ("meta_graph", "CollectionDef.AnyList", "repeated google.protobuf.Any value = 1"),
    ("meta_graph", "TensorInfo", "oneof encoding string name = 1; oneof encoding CooSparse coo_sparse = 4; "
                                 "oneof encoding CompositeTensor composite_tensor = 5; DataType dtype = 2; "
                                 "TensorShapeProto tensor_shape = 3"),
    ("meta_graph", "TensorInfo.CooSparse", "string values_tensor_name = 1; string indices_tensor_name = 2; "
                                           "string dense_shape_tensor_name = 3"),
    ("meta_graph", "TensorInfo.CompositeTensor", "TypeSpecProto type_spec = 1; repeated TensorInfo components = 2"),
    ("meta_graph", "SignatureDef", "map<string, TensorInfo> inputs = 1; map<string, TensorInfo> outputs = 2; "
                                   "string method_name = 3; map<string, TensorProto> defaults = 4"),
    ("meta_graph", "AssetFileDef", "TensorInfo tensor_info = 1; string filename = 2"),
    ("saved_model", "SavedModel", "int64 saved_model_schema_version = 1; repeated MetaGraphDef meta_graphs = 2"),
    ("fingerprint", "FingerprintDef", "uint64 saved_model_checksum = 1; uint64 graph_def_program_hash = 2; "
                                      "uint64 signature_def_hash = 3; uint64 saved_object_graph_hash = 4; "
                                      "uint64 checkpoint_hash = 5; string uuid = 7; VersionDef version = 6"),
]

ENUMS = [
    ("full_type", "FullTypeId", "TFT_UNSET TFT_VAR TFT_ANY TFT_PRODUCT TFT_NAMED TFT_FOR_EACH=20 TFT_CALLABLE=100 "
                                "TFT_TENSOR=1000 TFT_ARRAY TFT_OPTIONAL TFT_LITERAL TFT_ENCODED TFT_SHAPE_TENSOR "
                                "TFT_BOOL=200 TFT_UINT8 TFT_UINT16 TFT_UINT32 TFT_UINT64 TFT_INT8 TFT_INT16 TFT_INT32 "
                                "TFT_INT64 TFT_HALF TFT_FLOAT TFT_DOUBLE TFT_BFLOAT16=215 TFT_COMPLEX64=212 "
                                "TFT_COMPLEX128 TFT_STRING TFT_DATASET=10102 TFT_RAGGED TFT_ITERATOR "
                                "TFT_MUTEX_LOCK=10202 TFT_LEGACY_VARIANT"),
    ("variable", "VariableSynchronization", "VARIABLE_SYNCHRONIZATION_AUTO VARIABLE_SYNCHRONIZATION_NONE "
                                            "VARIABLE_SYNCHRONIZATION_ON_WRITE VARIABLE_SYNCHRONIZATION_ON_READ"),
    ("variable", "VariableAggregation", "VARIABLE_AGGREGATION_NONE VARIABLE_AGGREGATION_SUM VARIABLE_AGGREGATION_MEAN "
                                        "VARIABLE_AGGREGATION_ONLY_FIRST_REPLICA"),
    ("struct", "TypeSpecProto.TypeSpecClass", "UNKNOWN SPARSE_TENSOR_SPEC INDEXED_SLICES_SPEC RAGGED_TENSOR_SPEC "
                                              "TENSOR_ARRAY_SPEC DATA_DATASET_SPEC DATA_ITERATOR_SPEC OPTIONAL_SPEC "
                                              "PER_REPLICA_SPEC VARIABLE_SPEC ROW_PARTITION_SPEC "
                                              "REGISTERED_TYPE_SPEC=12 EXTENSION_TYPE_SPEC"),
    ("saved_object_graph", "FunctionSpec.JitCompile", "DEFAULT ON OFF"),
    ("saver", "SaverDef.CheckpointFormatVersion", "LEGACY V1 V2"),
]
