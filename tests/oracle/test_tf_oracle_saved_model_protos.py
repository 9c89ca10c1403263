"""tapegrad._protos's SavedModel messages against TensorFlow's compiled protos: TF's saved_model.pb and
fingerprint.pb parse with no unknown field and write back TF's bytes; every row has TF's names, numbers,
types, oneofs and presence, every enum TF's values; TF's classes read tapegrad's samples (those of
tests/io/test_saved_model_protos.py) with no unknown field. Skipped when TensorFlow does not import,
unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import importlib.util
import pathlib

import pytest
from google.protobuf import descriptor_pool, message_factory

from tapegrad import _protos
from tapegrad._protos import _saved_model_rows
from tf_oracle import import_tensorflow

ref = import_tensorflow()
from tensorflow.core.protobuf import fingerprint_pb2, saved_model_pb2, tensor_bundle_pb2  # noqa: E402,F401

# The samples and the unknown-field walk of the default venv's test, loaded by path (tests/io is no package)
_spec = importlib.util.spec_from_file_location(
    "_saved_model_samples", pathlib.Path(__file__).parents[1] / "io" / "test_saved_model_protos.py")
samples = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(samples)


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """The folder of a SavedModel TF wrote: a tf.Module with a variable, a traced method and a signature."""
    class Scaler(ref.Module):
        def __init__(self):
            super().__init__()
            self.v = ref.Variable([1.0, 2.0], name="v")

        @ref.function(input_signature=[ref.TensorSpec([None, 2], ref.float32, name="x")])
        def scale(self, x):
            return {"y": x * self.v}

    folder = tmp_path_factory.mktemp("saved")
    module = Scaler()
    ref.saved_model.save(module, str(folder), signatures={"serving_default": module.scale})
    return folder


@pytest.mark.parametrize("file, ours, theirs", [("saved_model.pb", "SavedModel", saved_model_pb2.SavedModel),
                                                ("fingerprint.pb", "FingerprintDef", fingerprint_pb2.FingerprintDef)])
def test_tfs_file_parses_whole_and_writes_tfs_bytes(saved, file, ours, theirs):
    data = (saved / file).read_bytes()
    message = getattr(_protos, ours).FromString(data)
    assert not samples._unknown(message)  # no field TF wrote is left to the unknown fields
    assert message.SerializeToString(deterministic=True) == theirs.FromString(data).SerializeToString(
        deterministic=True)


def test_tfs_saved_model_holds_what_was_saved(saved):
    graph = _protos.SavedModel.FromString((saved / "saved_model.pb").read_bytes()).meta_graphs[0]
    assert list(graph.meta_info_def.tags) == ["serve"] and graph.meta_info_def.tensorflow_version == ref.__version__
    signature = graph.signature_def["serving_default"]
    assert list(signature.inputs) == ["x"] and list(signature.outputs) == ["y"]
    assert signature.inputs["x"].dtype == _protos.DataType.Value("DT_FLOAT")
    assert [d.size for d in signature.inputs["x"].tensor_shape.dim] == [-1, 2]
    kinds = {n.WhichOneof("kind") for n in graph.object_graph_def.nodes}
    assert {"user_object", "variable", "function"} <= kinds
    variable = next(n.variable for n in graph.object_graph_def.nodes if n.HasField("variable"))
    assert variable.name == "v" and variable.trainable and [d.size for d in variable.shape.dim] == [2]
    functions = graph.graph_def.library.function
    assert functions and all(f.signature.name and f.node_def for f in functions)
    assert graph.object_graph_def.concrete_functions


def _facts(descriptor):
    """{field name: (number, repeated, type, its message or enum, oneof, map entry, presence, packed)}."""
    return {f.name: (f.number, f.is_repeated, f.type, (f.message_type or f.enum_type or f).full_name,
                     f.containing_oneof and f.containing_oneof.name,
                     bool(f.message_type and f.message_type.GetOptions().map_entry), f.has_presence, f.is_packed)
            for f in descriptor.fields}


def _nested(descriptor):
    yield descriptor
    for nested in descriptor.nested_types:
        yield from _nested(nested)


def test_every_saved_model_row_has_tfs_fields():
    tf_pool = descriptor_pool.Default()
    names = [name for _, name, _ in _saved_model_rows.MESSAGES] + ["Any", "ResourceHandleProto"]
    for name in names:
        package = "google.protobuf." if name == "Any" else "tensorflow."
        for ours in _nested(_protos.POOL.FindMessageTypeByName(package + name)):
            theirs = tf_pool.FindMessageTypeByName(ours.full_name)
            assert ours.file.name == theirs.file.name, ours.full_name
            assert _facts(ours) == _facts(theirs), ours.full_name


def test_every_enum_has_all_of_tfs_values():
    tf_pool = descriptor_pool.Default()
    for _, name, _ in _protos.ENUMS:
        ours, theirs = (pool.FindEnumTypeByName("tensorflow." + name) for pool in (_protos.POOL, tf_pool))
        assert [(v.name, v.number) for v in ours.values] == [(v.name, v.number) for v in theirs.values], name


def test_tensor_proto_leaves_out_only_variant_val():
    theirs = set(descriptor_pool.Default().FindMessageTypeByName("tensorflow.TensorProto").fields_by_name)
    assert theirs - set(_protos.TensorProto.DESCRIPTOR.fields_by_name) == {"variant_val"}


@pytest.mark.parametrize("name", sorted(samples.SAMPLES))
def test_tfs_classes_read_our_samples_whole(name):
    ours = getattr(_protos, name)(**samples.SAMPLES[name])
    theirs = message_factory.GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(
        ours.DESCRIPTOR.full_name))
    data = ours.SerializeToString(deterministic=True)
    read = theirs.FromString(data)
    assert not samples._unknown(read)
    assert read.SerializeToString(deterministic=True) == data
    assert theirs(**samples.SAMPLES[name]).SerializeToString(deterministic=True) == data
