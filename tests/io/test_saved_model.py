"""tf.saved_model.save without TensorFlow: the files, the FunctionDefs in TF's form, and the refusals
(Note [Exported ops], Note [Exported shapes]). TF loading these files is tests/oracle/test_tf_oracle_saved_model.py."""
import os

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import _protos


class Dense(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.arange(6, dtype="float32").reshape(3, 2), name="w")
        self.b = tf.Variable(np.ones(2, "float32"), name="b")

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        return tf.nn.relu(tf.matmul(x, self.w) + self.b)


def _read(path):
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        return _protos.SavedModel.FromString(f.read())


def test_files_and_signature(tmp_path):
    tf.saved_model.save(Dense(), tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["assets", "saved_model.pb", "variables"]
    assert sorted(os.listdir(tmp_path / "variables")) == ["variables.data-00000-of-00001", "variables.index"]
    meta = _read(tmp_path).meta_graphs[0]
    assert list(meta.meta_info_def.tags) == ["serve"]
    sig = meta.signature_def["serving_default"]
    assert sig.method_name == "tensorflow/serving/predict"
    assert [d.size for d in sig.inputs["x"].tensor_shape.dim] == [-1, 3]
    assert [d.size for d in sig.outputs["output_0"].tensor_shape.dim] == [-1, 2]
    names = {n.local_name for n in meta.object_graph_def.nodes[0].children}
    assert names == {"w", "b", "__call__", "signatures"}


def test_function_def_in_tf_form(tmp_path):
    tf.saved_model.save(Dense(), tmp_path)
    fdefs = {f.signature.name: f for f in _read(tmp_path).meta_graphs[0].graph_def.library.function}
    call = next(f for name, f in fdefs.items() if "signature" not in name)
    ops = [n.op for n in call.node_def]
    assert ops == ["ReadVariableOp", "MatMul", "ReadVariableOp", "AddV2", "Relu", "Identity"]
    args = [(a.name, _protos.DataType.Name(a.type)) for a in call.signature.input_arg]
    assert args == [("x", "DT_FLOAT"), ("w_resource", "DT_RESOURCE"), ("b_resource", "DT_RESOURCE")]
    matmul = next(n for n in call.node_def if n.op == "MatMul")
    assert list(matmul.input) == ["x", "ReadVariableOp:value:0"]
    assert _protos.DataType.Name(matmul.attr["T"].type) == "DT_FLOAT" and matmul.attr["transpose_b"].b is False
    assert dict(call.ret) == {"identity": "Identity:output:0"}


def test_attributes_become_inputs_and_assignments_are_ordered(tmp_path):
    class M(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(tf.zeros(4))

        @tf.function(input_signature=[tf.TensorSpec([2, 2])])
        def f(self, x):
            self.v.assign_add(tf.reshape(x, [-1]))
            return tf.reduce_sum(self.v.read_value() * 2.0, axis=0)

    tf.saved_model.save(M(), tmp_path, signatures={})
    fdef = _read(tmp_path).meta_graphs[0].graph_def.library.function[0]
    by_name = {n.name: n for n in fdef.node_def}
    reshape = next(n for n in fdef.node_def if n.op == "Reshape")
    shape = by_name[reshape.input[1].split(":")[0]]
    assert shape.op == "Const" and np.frombuffer(shape.attr["value"].tensor.tensor_content, "<i4").tolist() == [-1]
    read = next(n for n in fdef.node_def if n.op == "ReadVariableOp")
    assert "^AssignAddVariableOp" in list(read.input)  # the read waits for the assignment
    assert dict(fdef.control_ret) == {"AssignAddVariableOp": "AssignAddVariableOp"}


def test_sizes_of_none_dimensions_are_computed_in_the_graph(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 4])])
        def f(self, x):
            return tf.reshape(x[:, 1:3] + tf.zeros([x.shape[0], 2]), [x.shape[0] * 2])

    tf.saved_model.save(M(), tmp_path)
    fdef = next(f for f in _read(tmp_path).meta_graphs[0].graph_def.library.function if "signature" not in
                f.signature.name)
    ops = [n.op for n in fdef.node_def]
    assert "Shape" in ops and "Fill" in ops and "Pack" in ops  # the batch size read from x, not baked in
    shape = next(n for n in fdef.node_def if n.op == "Shape")
    assert list(shape.input) == ["x"]


def test_a_constant_made_from_the_batch_size_is_refused(tmp_path):
    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None, 4])])
        def f(self, x):
            return x + np.arange(x.shape[0], dtype="float32")[:, None]

    with pytest.raises(tf.errors.UnimplementedError, match="'f'.*constant.*None dimension"):
        tf.saved_model.save(M(), tmp_path)
    assert not os.path.exists(tmp_path / "saved_model.pb")


def test_an_op_tf_lacks_is_refused_by_name(tmp_path):
    from tapegrad import keras

    class M(tf.Module):  # a training step: tapegrad's fused Keras Adam has no TF op
        def __init__(self):
            super().__init__()
            self.v, self.opt = tf.Variable(tf.ones(3)), keras.optimizers.Adam()
            self.opt.build([self.v])

        @tf.function(input_signature=[tf.TensorSpec([3])])
        def f(self, g):
            self.opt.apply_gradients([(g, self.v)])
            return self.v.read_value()

    with pytest.raises(tf.errors.UnimplementedError, match="'f'.*ResourceApplyKerasAdam"):
        tf.saved_model.save(M(), tmp_path)


def test_an_untracked_variable_is_refused(tmp_path):
    hidden = tf.Variable(1.0)

    class M(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([])])
        def f(self, x):
            return x * hidden

    with pytest.raises(ValueError, match="does not track"):
        tf.saved_model.save(M(), tmp_path)


def test_a_failed_save_leaves_the_previous_files_whole(tmp_path, monkeypatch):
    tf.saved_model.save(Dense(), tmp_path)
    files = ("saved_model.pb", "variables/variables.index", "variables/variables.data-00000-of-00001")
    before = {p: (tmp_path / p).read_bytes() for p in files}
    from tapegrad.saved_model import _save
    real = _save.atomic_write_all

    def killed_while_writing_the_last(files, *args):
        def half(f):
            f.write(b"half")
            raise OSError("disk full")
        return real(files[:-1] + [(files[-1][0], half)], *args)
    monkeypatch.setattr(_save, "atomic_write_all", killed_while_writing_the_last)
    model = Dense()
    model.w.assign(tf.zeros((3, 2)))
    with pytest.raises(OSError, match="disk full"):
        tf.saved_model.save(model, tmp_path)
    assert {p: (tmp_path / p).read_bytes() for p in files} == before
    assert sorted(os.listdir(tmp_path)) == ["assets", "saved_model.pb", "variables"]  # no temporary file left


def test_not_trackable_and_bad_signatures(tmp_path):
    with pytest.raises(ValueError, match="trackable"):
        tf.saved_model.save(object(), tmp_path)
    with pytest.raises(ValueError, match="input_signature"):
        tf.saved_model.save(Dense(), tmp_path, signatures=tf.function(lambda x: x))


def test_structured_values_round_trip():
    from tapegrad.saved_model import _structure
    value = ((tf.TensorSpec([None, 3], tf.float32, name="x"), None, True, 3, 2.5, "s", [1, (2,)]),
             {"a": tf.TensorSpec([], tf.int64), "b": {}}, _structure.argspec(["x", "y"]))
    back = _structure.decode(_protos.StructuredValue.FromString(_structure.encode(value).SerializeToString()))
    assert back[0][1:] == (None, True, 3, 2.5, "s", [1, (2,)])
    spec = back[0][0]
    assert (spec.shape.as_list(), spec.dtype, spec.name) == ([None, 3], tf.float32, "x")
    assert back[1]["b"] == {} and back[1]["a"].dtype == tf.int64
    assert back[2].args == ["x", "y"] and type(back[2]).__name__ == "FullArgSpec"
    with pytest.raises(ValueError, match="cannot save a signature holding a object"):
        _structure.encode(object())


def test_the_session_graph_and_saver(tmp_path):
    from tapegrad.saved_model._session_graph import INIT_OP_SIGNATURE_KEY
    tf.saved_model.save(Dense(), tmp_path)
    meta = _read(tmp_path).meta_graphs[0]
    nodes = {n.name: n for n in meta.graph_def.node}
    assert [(n.name, n.op) for n in meta.graph_def.node] == [
        ("b", "VarHandleOp"), ("w", "VarHandleOp"), ("serving_default_x", "Placeholder"),
        ("StatefulPartitionedCall", "StatefulPartitionedCall"), ("NoOp", "NoOp"), ("Const", "Const"),
        ("saver_filename", "Placeholder"), ("StatefulPartitionedCall_1", "StatefulPartitionedCall"),
        ("StatefulPartitionedCall_2", "StatefulPartitionedCall")]
    assert nodes["w"].attr["shared_name"].s == b"w" and [d.size for d in nodes["w"].attr["shape"].shape.dim] == [3, 2]
    assert [d.size for d in nodes["serving_default_x"].attr["shape"].shape.dim] == [-1, 3]
    call = nodes["StatefulPartitionedCall"]
    assert list(call.input) == ["serving_default_x", "w", "b"]
    assert call.attr["f"].func.name.startswith("__inference_signature_wrapper___call___")
    assert [_protos.DataType.Name(t) for t in call.attr["Tin"].list.type] == ["DT_FLOAT", "DT_RESOURCE", "DT_RESOURCE"]
    sig = meta.signature_def["serving_default"]
    assert sig.inputs["x"].name == "serving_default_x:0" and sig.outputs["output_0"].name == "StatefulPartitionedCall:0"
    assert meta.signature_def[INIT_OP_SIGNATURE_KEY].outputs[INIT_OP_SIGNATURE_KEY].name == "NoOp"
    assert list(meta.collection_def["saved_model_main_op"].node_list.value) == ["NoOp"]
    saver = meta.saver_def
    assert (saver.filename_tensor_name, saver.save_tensor_name, saver.restore_op_name, saver.version) == (
        "saver_filename:0", "StatefulPartitionedCall_1:0", "StatefulPartitionedCall_2", _protos.SaverDef.V2)
    fdefs = {f.signature.name: f for f in meta.graph_def.library.function}
    restore = fdefs[nodes["StatefulPartitionedCall_2"].attr["f"].func.name]
    names = next(n for n in restore.node_def if n.name == "RestoreV2/tensor_names").attr["value"].tensor.string_val
    assert list(names) == [b"b/.ATTRIBUTES/VARIABLE_VALUE", b"w/.ATTRIBUTES/VARIABLE_VALUE",
                           b"_CHECKPOINTABLE_OBJECT_GRAPH"]
    assert sorted(restore.control_ret) == ["AssignVariableOp", "AssignVariableOp_1"]
    save = fdefs[nodes["StatefulPartitionedCall_1"].attr["f"].func.name]
    assert [n.op for n in save.node_def if n.op in ("SaveV2", "MergeV2Checkpoints")] == ["SaveV2", "MergeV2Checkpoints"]
    assert set(fdefs) - set(meta.object_graph_def.concrete_functions) == {save.signature.name, restore.signature.name}


def test_variables_of_one_name_get_their_own_handles(tmp_path):
    from tapegrad import keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2), keras.layers.Dense(1)])
    model.export(tmp_path, verbose=False)
    handles = [n for n in _read(tmp_path).meta_graphs[0].graph_def.node if n.op == "VarHandleOp"]
    shared = [n.attr["shared_name"].s for n in handles]
    assert len(handles) == 4 and len(set(shared)) == 4 and [n.name.encode() for n in handles] == shared


def test_keras_export_writes_keras_3s_archive(tmp_path, capsys):
    from tapegrad import keras
    a, b = keras.Input((4,), name="a"), keras.Input((2,), name="b")
    model = keras.Model([a, b], keras.layers.Dense(1)(keras.layers.Concatenate()([a, b])))
    model.export(tmp_path, format="tf_saved_model")
    assert f"Saved artifact at '{tmp_path}'" in capsys.readouterr().out
    meta = _read(tmp_path).meta_graphs[0]
    nodes = meta.object_graph_def.nodes
    assert [c.local_name for c in nodes[0].children] == [  # Keras 3's, but for its empty lists
        "variables", "trainable_variables", "_all_variables", "serve", "signatures"]
    assert sorted(meta.signature_def) == ["__saved_model_init_op", "serve", "serving_default"]
    assert {k: i.name for k, i in meta.signature_def["serving_default"].inputs.items()} == {
        "a": "serving_default_a:0", "b": "serving_default_b:0"}
    serve = next(nodes[c.node_id] for c in nodes[0].children if c.local_name == "serve").function
    spec = serve.function_spec.input_signature.tuple_value.values[0]  # one positional argument: the list
    assert [v.tensor_spec_value.name for v in spec.list_value.values] == ["a", "b"]


def test_keras_export_refusals(tmp_path):
    from tapegrad import keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match=r"Unrecognized format=h5\. Supported formats are: \['tf_saved_model'"):
        model.export(tmp_path, format="h5")
    with pytest.raises(tf.errors.UnimplementedError, match="format='onnx'"):
        model.export(tmp_path, format="onnx")

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(2)

        def call(self, x):
            return self.d(x)
    with pytest.raises(ValueError, match="never called"):
        Net().export(tmp_path)
    lstm = keras.Sequential([keras.Input((None, 3)), keras.layers.LSTM(2)])  # steps unrolled: a None time refused
    with pytest.raises(tf.errors.UnimplementedError, match="'serve'.*LSTMSequence.*unknown size"):
        lstm.export(tmp_path, verbose=False)
    assert not os.path.exists(tmp_path / "saved_model.pb")


def test_keras_export_takes_an_input_signature(tmp_path):
    from tapegrad import keras
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.export(tmp_path, input_signature=[tf.TensorSpec([4, 3], tf.float32, name="rows")], verbose=False)
    sig = _read(tmp_path).meta_graphs[0].signature_def["serving_default"]
    assert [d.size for d in sig.inputs["rows"].tensor_shape.dim] == [4, 3]
    with pytest.raises(ValueError, match="list of one spec"):
        model.export(tmp_path, input_signature=tf.TensorSpec([None, 3]))
