"""TensorFlow's protocol-buffer messages that tapegrad's files hold, built at import from the table below.

Note [Protos as descriptor code]: the messages are described here, in Python, as rows of a table (TF's
package, message, field names and numbers, as TF's .proto files give them), turned into
``descriptor_pb2.FileDescriptorProto``s, added to a private ``DescriptorPool`` and made into classes by
``message_factory.GetMessageClass``; the ``protobuf`` package does all the encoding and decoding.
Why not TF's compiled protos: tapegrad runs without TensorFlow, and no maintained package ships TF's
compiled protos alone (tensorflow-protobuf stopped at TF 2.11; TensorBoard's copies are renamed to the
"tensorboard" package and lack tensor_bundle.proto). Why not .proto files and protoc: that is a build
step, generated code to keep in step with the protobuf runtime, and one more tool for the wheel build;
a table is the same facts in fewer lines, read by any protobuf >= 4.22. Why a private pool: TensorFlow,
when it is imported in the same process (the oracle tests do), registers the same full names
("tensorflow.BundleEntryProto", ...) in protobuf's default pool, and a pool refuses a second,
different definition of a name. The bytes are the same either way: the wire format knows only numbers.

A row is (file, message, fields): the file by its short name in FILES, a nested message dotted after its
parent (listed after it), and the fields written as the .proto writes them, "[repeated | oneof NAME]
type name = number" or "map<key type, value type> name = number", separated by ";". A type is a scalar's name or a message or enum, found from the
message's scope as protoc finds it. ENUMS rows list their values numbered from 0, "NAME=n" jumping to
n. Top-level messages and enums are attributes of this module under TF's names
(``_protos.BundleEntryProto``); nested ones are attributes of their parents, as in generated code.
tf.train.Example's messages are rows too; SavedModel's and those of the graphs, functions and object
graph it holds are rows in _saved_model_rows.py, appended to the table below. A file is proto3 unless its FILES
row names "proto2" (TF's graph_debug_info.proto: its fields have presence, and a repeated scalar is packed
only when its row ends "[packed = true]", as the .proto writes it).
"""
import re

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.internal import enum_type_wrapper

from tapegrad._protos import _saved_model_rows

_FW, _PB = "tensorflow/core/framework/", "tensorflow/core/protobuf/"

# short name -> (the .proto file, its package, the short names of the files it imports[, its syntax])
FILES = {
    "wrappers": ("google/protobuf/wrappers.proto", "google.protobuf", ()),  # protobuf's own, the part TF uses
    "any": ("google/protobuf/any.proto", "google.protobuf", ()),
    "types": (_FW + "types.proto", "tensorflow", ()),
    "tensor_shape": (_FW + "tensor_shape.proto", "tensorflow", ()),
    "tensor_slice": (_FW + "tensor_slice.proto", "tensorflow", ()),
    "versions": (_FW + "versions.proto", "tensorflow", ()),
    "tensor_bundle": (_PB + "tensor_bundle.proto", "tensorflow", ("tensor_shape", "tensor_slice", "types",
                                                                   "versions")),
    "trackable_object_graph": (_PB + "trackable_object_graph.proto", "tensorflow", ("wrappers",)),
    "resource_handle": (_FW + "resource_handle.proto", "tensorflow", ("tensor_shape", "types")),
    "tensor": (_FW + "tensor.proto", "tensorflow", ("resource_handle", "tensor_shape", "types")),
    "feature": ("tensorflow/core/example/feature.proto", "tensorflow", ()),
    "example": ("tensorflow/core/example/example.proto", "tensorflow", ("feature",)),
}

MESSAGES = [
    ("wrappers", "BoolValue", "bool value = 1"),
    ("any", "Any", "string type_url = 1; bytes value = 2"),
    ("tensor_shape", "TensorShapeProto", "repeated Dim dim = 2; bool unknown_rank = 3"),
    ("tensor_shape", "TensorShapeProto.Dim", "int64 size = 1; string name = 2"),
    ("tensor_slice", "TensorSliceProto", "repeated Extent extent = 1"),
    ("tensor_slice", "TensorSliceProto.Extent", "int64 start = 1; oneof has_length_hack int64 length = 2"),
    ("versions", "VersionDef", "int32 producer = 1; int32 min_consumer = 2; repeated int32 bad_consumers = 3"),
    ("tensor_bundle", "BundleHeaderProto", "int32 num_shards = 1; Endianness endianness = 2; VersionDef version = 3"),
    ("tensor_bundle", "BundleEntryProto", "DataType dtype = 1; TensorShapeProto shape = 2; int32 shard_id = 3; "
                                          "int64 offset = 4; int64 size = 5; fixed32 crc32c = 6; "
                                          "repeated TensorSliceProto slices = 7"),
    ("trackable_object_graph", "TrackableObjectGraph", "repeated TrackableObject nodes = 1"),
    ("trackable_object_graph", "TrackableObjectGraph.TrackableObject",
     "repeated ObjectReference children = 1; repeated SerializedTensor attributes = 2; "
     "repeated SlotVariableReference slot_variables = 3; RegisteredSaver registered_saver = 4; "
     "google.protobuf.BoolValue has_checkpoint_values = 5"),
    ("trackable_object_graph", "TrackableObjectGraph.TrackableObject.ObjectReference",
     "int32 node_id = 1; string local_name = 2"),
    ("trackable_object_graph", "TrackableObjectGraph.TrackableObject.SerializedTensor",
     "string name = 1; string full_name = 2; string checkpoint_key = 3"),
    ("trackable_object_graph", "TrackableObjectGraph.TrackableObject.SlotVariableReference",
     "int32 original_variable_node_id = 1; string slot_name = 2; int32 slot_variable_node_id = 3"),
    ("trackable_object_graph", "RegisteredSaver", "string name = 1; string object_name = 2"),
    ("resource_handle", "ResourceHandleProto", "string device = 1; string container = 2; string name = 3; "
                                               "uint64 hash_code = 4; string maybe_type_name = 5; "
                                               "repeated DtypeAndShape dtypes_and_shapes = 6"),
    ("resource_handle", "ResourceHandleProto.DtypeAndShape", "DataType dtype = 1; TensorShapeProto shape = 2"),
    # TensorProto without variant_val (15, VariantTensorDataProto): tapegrad holds no variant tensor, and a
    # parsed file's variant values stay its unknown fields, written back as they came
    ("tensor", "TensorProto", "DataType dtype = 1; TensorShapeProto tensor_shape = 2; int32 version_number = 3; "
                              "bytes tensor_content = 4; repeated int32 half_val = 13; repeated float float_val = 5; "
                              "repeated double double_val = 6; repeated int32 int_val = 7; repeated bytes string_val = 8; "
                              "repeated float scomplex_val = 9; repeated int64 int64_val = 10; repeated bool bool_val = 11; "
                              "repeated double dcomplex_val = 12; "
                              "repeated ResourceHandleProto resource_handle_val = 14; repeated uint32 uint32_val = 16; "
                              "repeated uint64 uint64_val = 17; bytes float8_val = 18"),
    ("feature", "BytesList", "repeated bytes value = 1"),
    ("feature", "FloatList", "repeated float value = 1"),
    ("feature", "Int64List", "repeated int64 value = 1"),
    ("feature", "Feature", "oneof kind BytesList bytes_list = 1; oneof kind FloatList float_list = 2; "
                           "oneof kind Int64List int64_list = 3"),
    ("feature", "Features", "map<string, Feature> feature = 1"),
    ("feature", "FeatureList", "repeated Feature feature = 1"),
    ("feature", "FeatureLists", "map<string, FeatureList> feature_list = 1"),
    ("example", "Example", "Features features = 1"),
    ("example", "SequenceExample", "Features context = 1; FeatureLists feature_lists = 2"),
] + _saved_model_rows.MESSAGES

ENUMS = [
    ("types", "DataType", "DT_INVALID DT_FLOAT DT_DOUBLE DT_INT32 DT_UINT8 DT_INT16 DT_INT8 DT_STRING DT_COMPLEX64 "
                          "DT_INT64 DT_BOOL DT_QINT8 DT_QUINT8 DT_QINT32 DT_BFLOAT16 DT_QINT16 DT_QUINT16 DT_UINT16 "
                          "DT_COMPLEX128 DT_HALF DT_RESOURCE DT_VARIANT DT_UINT32 DT_UINT64 DT_FLOAT8_E5M2 "
                          "DT_FLOAT8_E4M3FN DT_FLOAT8_E4M3FNUZ DT_FLOAT8_E4M3B11FNUZ DT_FLOAT8_E5M2FNUZ DT_INT4 "
                          "DT_UINT4 DT_INT2 DT_UINT2 DT_FLOAT4_E2M1FN "
                          # a reference (TF 1's variables) is its type + 100, DT_FLOAT_REF = 101 on
                          "DT_FLOAT_REF=101 DT_DOUBLE_REF DT_INT32_REF DT_UINT8_REF DT_INT16_REF DT_INT8_REF "
                          "DT_STRING_REF DT_COMPLEX64_REF DT_INT64_REF DT_BOOL_REF DT_QINT8_REF DT_QUINT8_REF "
                          "DT_QINT32_REF DT_BFLOAT16_REF DT_QINT16_REF DT_QUINT16_REF DT_UINT16_REF "
                          "DT_COMPLEX128_REF DT_HALF_REF DT_RESOURCE_REF DT_VARIANT_REF DT_UINT32_REF "
                          "DT_UINT64_REF DT_FLOAT8_E5M2_REF DT_FLOAT8_E4M3FN_REF DT_FLOAT8_E4M3FNUZ_REF "
                          "DT_FLOAT8_E4M3B11FNUZ_REF DT_FLOAT8_E5M2FNUZ_REF DT_INT4_REF DT_UINT4_REF DT_INT2_REF "
                          "DT_UINT2_REF DT_FLOAT4_E2M1FN_REF"),
    ("tensor_bundle", "BundleHeaderProto.Endianness", "LITTLE BIG"),
] + _saved_model_rows.ENUMS
FILES.update(_saved_model_rows.FILES)

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {name: getattr(_F, "TYPE_" + name.upper()) for name in (
    "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64", "fixed32", "fixed64",
    "sfixed32", "sfixed64", "bool", "string", "bytes")}
_FIELD = re.compile(r"(?:(repeated) +|oneof (\w+) +)?(map<\w+, *[\w.]+>|[\w.]+) +(\w+) *= *(\d+)( *\[packed = true\])?")
_MAP = re.compile(r"map<(\w+), *([\w.]+)>")


def _resolve(type_, scope, kinds):
    """(TYPE_MESSAGE or TYPE_ENUM, full name) of a type named in the message scope, found as protoc finds
    it: in the scope, then in each enclosing one (a leading "." names it from the top)."""
    if type_.startswith("."):
        scope, type_ = "", type_[1:]
    while True:
        full = f"{scope}.{type_}" if scope else type_
        if full in kinds:
            return kinds[full], "." + full
        if not scope:
            raise ValueError(f"tapegrad._protos: no message or enum {type_!r} (a row of MESSAGES or ENUMS)")
        scope = scope.rpartition(".")[0]


def _add_field(message, text, scope, kinds):
    """Adds the field "[repeated | oneof NAME] type name = number" to the DescriptorProto of the message
    whose full name is scope; kinds: {full name: TYPE_MESSAGE or TYPE_ENUM} of every row."""
    match = _FIELD.fullmatch(text.strip())
    if not match:
        raise ValueError(f"tapegrad._protos: cannot read the field {text.strip()!r} of {message.name}")
    label, oneof, type_, name, number, packed = match.groups()
    field = message.field.add(name=name, number=int(number),
                              label=_F.LABEL_REPEATED if label == "repeated" else _F.LABEL_OPTIONAL)
    is_map = _MAP.fullmatch(type_)
    if is_map:  # as protoc: a nested "<Name>Entry" message {key = 1; value = 2} marked map_entry, repeated
        entry = message.nested_type.add(name="".join(p.capitalize() for p in name.split("_")) + "Entry")
        entry.options.map_entry = True
        _add_field(entry, f"{is_map.group(1)} key = 1", scope, kinds)
        _add_field(entry, f"{is_map.group(2)} value = 2", scope, kinds)
        field.label, field.type, field.type_name = _F.LABEL_REPEATED, _F.TYPE_MESSAGE, f".{scope}.{entry.name}"
    elif type_ in _SCALARS:
        field.type = _SCALARS[type_]
    else:
        field.type, field.type_name = _resolve(type_, scope, kinds)
    if packed:  # (proto3 packs repeated scalars anyway; a proto2 file says so)
        field.options.packed = True
    if oneof:
        oneofs = [o.name for o in message.oneof_decl]
        if oneof not in oneofs:
            message.oneof_decl.add(name=oneof)
            oneofs.append(oneof)
        field.oneof_index = oneofs.index(oneof)


def _file_protos():
    """The FileDescriptorProto of every file in FILES, in FILES's order (each after its imports)."""
    files, scopes = {}, {}
    for short, (name, package, imports, *syntax) in FILES.items():
        files[short] = descriptor_pb2.FileDescriptorProto(name=name, package=package, syntax=(*syntax, "proto3")[0],
                                                          dependency=[FILES[i][0] for i in imports])
    kinds = {f"{FILES[short][1]}.{name}": kind for rows, kind in ((MESSAGES, _F.TYPE_MESSAGE), (ENUMS, _F.TYPE_ENUM))
             for short, name, _ in rows}
    for short, name, fields in MESSAGES:
        parent, _, leaf = name.rpartition(".")
        message = (scopes[short, parent].nested_type if parent else files[short].message_type).add(name=leaf)
        scopes[short, name] = message
        for text in filter(str.strip, fields.split(";")):  # (NoneValue has no fields)
            _add_field(message, text, f"{FILES[short][1]}.{name}", kinds)
    for short, name, values in ENUMS:
        parent, _, leaf = name.rpartition(".")
        enum = (scopes[short, parent].enum_type if parent else files[short].enum_type).add(name=leaf)
        number = 0
        for value in values.split():
            value, _, jump = value.partition("=")
            number = int(jump) if jump else number
            enum.value.add(name=value, number=number)
            number += 1
    return list(files.values())


def _message_class(descriptor):
    """The class of a message, with the classes of the messages nested in it as its attributes, as in
    generated code (protobuf 4.22 sets no such attributes, so nothing kept those classes alive, and a
    message then crashed on a field whose class had gone)."""
    cls = message_factory.GetMessageClass(descriptor)
    for nested in descriptor.nested_types:
        setattr(cls, nested.name, _message_class(nested))
    return cls


def _build(pool):
    """{TF's name: message class or enum} of the top-level messages and enums, added to pool."""
    names = {}
    for file in _file_protos():
        pool.Add(file)
        for message in file.message_type:
            names[message.name] = _message_class(pool.FindMessageTypeByName(f"{file.package}.{message.name}"))
        for enum in file.enum_type:
            names[enum.name] = enum_type_wrapper.EnumTypeWrapper(pool.FindEnumTypeByName(f"{file.package}.{enum.name}"))
    return names


POOL = descriptor_pool.DescriptorPool()  # private: see Note [Protos as descriptor code]
globals().update(_build(POOL))
