"""tapegrad._protos, TF's checkpoint messages as descriptor code (Note [Protos as descriptor code]): each
message round trips, the pool is private, a damaged message in a checkpoint is a DataLossError naming the
file. With TensorFlow (the oracle venv; skipped without it, or failing when TAPEGRAD_REQUIRE_TF is set):
every row has TF's names and numbers, and TF's classes read our bytes and write the same back."""
import os
import subprocess
import sys

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import tapegrad as tf
from tapegrad import _protos
from tapegrad.train import _bundle
from test_saved_model_protos import SAMPLES as SAVED_MODEL_SAMPLES

# One filled-in value of every top-level message, in the constructor's nested-dict form.
SAMPLES = {
    "BoolValue": {"value": True},
    "TensorShapeProto": {"dim": [{"size": 3, "name": "batch"}, {"size": 0}], "unknown_rank": False},
    "TensorSliceProto": {"extent": [{"start": 1, "length": 2}, {"start": 0}]},
    "VersionDef": {"producer": 1, "min_consumer": 0, "bad_consumers": [3, 5]},
    "BundleHeaderProto": {"num_shards": 1, "endianness": 1, "version": {"producer": 1}},
    "BundleEntryProto": {"dtype": 9, "shape": {"dim": [{"size": 2}]}, "shard_id": 0, "offset": 1 << 40,
                         "size": 16, "crc32c": 0xFFFFFFFF, "slices": [{"extent": [{"start": 0, "length": 1}]}]},
    "RegisteredSaver": {"name": "saver", "object_name": "obj"},
    "TrackableObjectGraph": {"nodes": [
        {"children": [{"node_id": 1, "local_name": "v"}], "has_checkpoint_values": {"value": True}},
        {"attributes": [{"name": "VARIABLE_VALUE", "full_name": "v", "checkpoint_key": "v/.ATTRIBUTES/VARIABLE_VALUE"}],
         "slot_variables": [{"original_variable_node_id": 1, "slot_name": "m", "slot_variable_node_id": 2}],
         "registered_saver": {"name": "s", "object_name": "o"}}, {}]},
    "TensorProto": {"dtype": 1, "tensor_shape": {"dim": [{"size": 2}]}, "float_val": [1.5, -0.0], "int64_val": [3],
                    "string_val": [b"a"], "bool_val": [True], "uint64_val": [2 ** 64 - 1], "tensor_content": b"\x01"},
    "BytesList": {"value": [b"", b"\x00\xff"]},
    "FloatList": {"value": [1.5, -0.0]},
    "Int64List": {"value": [-(2 ** 63), 2 ** 63 - 1]},
    "Feature": {"int64_list": {"value": [3]}},
    "Features": {"feature": {"a": {"float_list": {"value": [1.0]}}, "b": {"bytes_list": {"value": [b"x"]}}}},
    "FeatureList": {"feature": [{"int64_list": {"value": [1]}}, {}]},
    "FeatureLists": {"feature_list": {"t": {"feature": [{"float_list": {"value": [2.0]}}]}}},
    "Example": {"features": {"feature": {"a": {"int64_list": {"value": [1, 2]}}}}},
    "SequenceExample": {"context": {"feature": {"id": {"bytes_list": {"value": [b"q"]}}}},
                        "feature_lists": {"feature_list": {"t": {"feature": [{"float_list": {"value": [1.0]}}]}}}},
    **SAVED_MODEL_SAMPLES,  # the SavedModel family's, tests/io/test_saved_model_protos.py
}


def _messages(descriptors):
    """Every message descriptor of descriptors and the messages nested in them."""
    for d in descriptors:
        yield d
        yield from _messages(d.nested_types)


OURS = [d for short in _protos.FILES for d in _messages(
    _protos.POOL.FindFileByName(_protos.FILES[short][0]).message_types_by_name.values())]


def test_every_top_level_message_has_a_sample():
    tops = {row[1] for row in _protos.MESSAGES if "." not in row[1]}
    assert tops == set(SAMPLES)


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_message_round_trips(name):
    cls = getattr(_protos, name)
    value = cls(**SAMPLES[name])
    data = value.SerializeToString(deterministic=True)  # (a map's entries otherwise come in any order)
    back = cls.FromString(data)
    assert back == value and back.SerializeToString(deterministic=True) == data
    assert cls.FromString(b"") == cls()  # every field at its default


def test_the_header_is_the_bytes_tf_writes():
    # num_shards=1 (field 1, varint), endianness LITTLE left out, version{producer=1} (field 3)
    assert _bundle.HEADER == bytes.fromhex("0801" "1a020801")
    assert _protos.DataType.Value("DT_STRING") == 7 and _protos.BundleHeaderProto.BIG == 1


def test_the_pool_is_private():
    assert _protos.POOL is not descriptor_pool.Default()
    for d in OURS:
        assert d.file.pool is _protos.POOL, d.full_name
    assert _protos.BundleEntryProto.DESCRIPTOR.full_name == "tensorflow.BundleEntryProto"


def test_a_malformed_row_is_refused():
    message = descriptor_pb2.DescriptorProto(name="M")
    with pytest.raises(ValueError, match="cannot read the field 'int32 x 1' of M"):
        _protos._add_field(message, "int32 x 1", "tensorflow.M", {})
    with pytest.raises(ValueError, match="no message or enum 'Dims'"):
        _protos._add_field(message, "repeated Dims dim = 2", "tensorflow.M", {"tensorflow.M.Dim": 11})


# ---- damaged messages through the checkpoint reader
def _write(folder, records, data=b""):
    """A checkpoint at folder/c whose index holds records [(key, value)] (each block's crc right)."""
    (folder / "c.index").write_bytes(_bundle.table_bytes(records))
    (folder / "c.data-00000-of-00001").write_bytes(data)
    return str(folder / "c")


def _entry(**fields):
    return _protos.BundleEntryProto(**fields).SerializeToString()


GOOD_CRC = _bundle.tensor_crc(b"\0\0\0\0")
GOOD = _entry(dtype=1, shape={"dim": [{"size": 1}]}, size=4, crc32c=GOOD_CRC)
DAMAGED = {
    "a truncated entry": [(b"", _bundle.HEADER), (b"v", GOOD[:-2])],
    "an entry of a bad tag": [(b"", _bundle.HEADER), (b"v", b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01")],
    "a truncated header": [(b"", _bundle.HEADER[:-1]), (b"v", GOOD)],
    "a header of wire type 7": [(b"", b"\x0f"), (b"v", GOOD)],
    "an unknown rank": [(b"", _bundle.HEADER), (b"v", _entry(dtype=1, shape={"unknown_rank": True}))],
    "a negative dimension": [(b"", _bundle.HEADER), (b"v", _entry(dtype=1, shape={"dim": [{"size": -1}]}))],
    "a negative offset": [(b"", _bundle.HEADER), (b"v", _entry(dtype=1, offset=-4, size=4))],
    "a dtype tapegrad lacks": [(b"", _bundle.HEADER), (b"v", _entry(dtype=99, size=4, crc32c=GOOD_CRC))],
    "two shards, their files missing": [(b"", _protos.BundleHeaderProto(num_shards=2).SerializeToString()), (b"v", GOOD)],
    "a big-endian bundle": [(b"", _protos.BundleHeaderProto(num_shards=1, endianness=1).SerializeToString())],
}


@pytest.mark.parametrize("kind", sorted(DAMAGED))
def test_a_damaged_message_is_data_loss_naming_the_file(tmp_path, kind):
    prefix = _write(tmp_path, DAMAGED[kind], b"\0\0\0\0")
    with pytest.raises(tf.errors.DataLossError, match=r"c\.(index|data-00000-of-00001)"):
        _bundle.read(prefix)


def test_random_damage_to_an_entry_never_crashes(tmp_path):
    rng = np.random.default_rng(0)
    for _ in range(300):
        value = bytearray(GOOD)
        for i in rng.integers(0, len(value), rng.integers(1, 4)):
            value[i] = int(rng.integers(0, 256))
        prefix = _write(tmp_path, [(b"", _bundle.HEADER), (b"v", bytes(value))], b"\0\0\0\0")
        try:
            _bundle.read(prefix)
        except (tf.errors.DataLossError, tf.errors.UnimplementedError) as e:
            assert "c.index" in str(e) or "c.data-00000-of-00001" in str(e)


GRAPHS = {
    "not protobuf": b"\xff\xff\xff",
    "no root": b"",
    "a child past the nodes": _protos.TrackableObjectGraph(nodes=[{"children": [{"node_id": 5}]}]),
    "a negative child": _protos.TrackableObjectGraph(nodes=[{"children": [{"node_id": -1}]}]),
    "a slot past the nodes": _protos.TrackableObjectGraph(nodes=[{"slot_variables": [
        {"original_variable_node_id": 0, "slot_variable_node_id": 3}]}]),
    "a name not UTF-8": bytes.fromhex("0a07" "0a05" "1203" "ff fe fd"),  # nodes{children{local_name}}
}


@pytest.mark.parametrize("kind", sorted(GRAPHS))
def test_a_damaged_object_graph_is_data_loss_naming_the_index(tmp_path, kind):
    graph = GRAPHS[kind] if isinstance(GRAPHS[kind], bytes) else GRAPHS[kind].SerializeToString()
    index, data = _bundle.encode({_bundle.OBJECT_GRAPH_KEY: np.array(graph, dtype=object)})
    (tmp_path / "c.index").write_bytes(index)
    (tmp_path / "c.data-00000-of-00001").write_bytes(data)
    v = tf.Variable(1.0)
    with pytest.raises(tf.errors.DataLossError, match=r"c\.index: the object graph is damaged"):
        tf.train.Checkpoint(v=v).restore(str(tmp_path / "c"))
    assert v.numpy() == 1.0


# ---- against TensorFlow's compiled protos
@pytest.fixture
def tf_pool():
    """protobuf's default pool, holding TF's compiled protos."""
    from tf_oracle import import_tensorflow

    import_tensorflow()  # skipped without TensorFlow, unless TAPEGRAD_REQUIRE_TF is set
    from tensorflow.core.example import example_pb2, feature_pb2  # noqa: F401
    from tensorflow.core.framework import tensor_pb2  # noqa: F401
    from tensorflow.core.protobuf import fingerprint_pb2, saved_model_pb2  # noqa: F401
    from tensorflow.core.protobuf import tensor_bundle_pb2, trackable_object_graph_pb2  # noqa: F401
    return descriptor_pool.Default()


def _fields(message):
    """{field name: (number, label, type, full type name, oneof name)} of a descriptor, as TF's .proto has it."""
    proto = descriptor_pb2.DescriptorProto()
    message.CopyToProto(proto)
    return {f.name: (f.number, f.label, f.type, f.type_name,
                     proto.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else None) for f in proto.field}


# Fields of TF's messages the table leaves out on purpose (each names a message tapegrad never holds).
OMITTED = {"tensorflow.TensorProto": {"variant_val"}}


def test_every_row_has_tfs_names_and_numbers(tf_pool):
    for ours in OURS:
        theirs = tf_pool.FindMessageTypeByName(ours.full_name)
        assert ours.file.name == theirs.file.name and ours.file.package == theirs.file.package
        left_out = OMITTED.get(ours.full_name, set())
        assert _fields(ours) == {k: v for k, v in _fields(theirs).items() if k not in left_out}, ours.full_name
    for _, name, _ in _protos.ENUMS:
        ours, theirs = (pool.FindEnumTypeByName("tensorflow." + name) for pool in (_protos.POOL, tf_pool))
        assert {v.name: v.number for v in ours.values} == {v.name: theirs.values_by_name[v.name].number
                                                            for v in ours.values}, name


def test_tfs_classes_read_our_bytes_and_write_them_back(tf_pool):
    for name, fields in SAMPLES.items():
        ours = getattr(_protos, name)(**fields)
        theirs = message_factory.GetMessageClass(tf_pool.FindMessageTypeByName(ours.DESCRIPTOR.full_name))
        assert theirs is not type(ours)
        data = ours.SerializeToString(deterministic=True)
        assert theirs.FromString(data).SerializeToString(deterministic=True) == data, name
        assert theirs(**fields).SerializeToString(deterministic=True) == data, name
        assert getattr(_protos, name).FromString(theirs(**fields).SerializeToString()) == ours, name


def test_our_pool_builds_after_tensorflow_registered_the_same_names(tf_pool):
    # here tapegrad was imported first; in a fresh process TensorFlow's protos go first
    script = ("import tensorflow\n"
              "from tensorflow.core.protobuf import tensor_bundle_pb2 as tb\n"
              "from tapegrad import _protos\n"
              "ours = _protos.BundleEntryProto(dtype=1, shape={'dim': [{'size': 2}]}, offset=3, size=8, crc32c=7)\n"
              "theirs = tb.BundleEntryProto.FromString(ours.SerializeToString())\n"
              "assert _protos.BundleEntryProto.FromString(theirs.SerializeToString()) == ours\n"
              "assert theirs.shape.dim[0].size == 2 and theirs.crc32c == 7\n"
              "print('ok')\n")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-2000:]
