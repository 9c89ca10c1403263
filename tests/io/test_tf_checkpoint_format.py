"""tf.train.Checkpoint in TensorFlow's file format, without TensorFlow: reading checkpoints TF 2.21 +
Keras 3 wrote (tests/io/fixtures/tf_checkpoints, made by make_fixtures.py there), writing files with TF's
keys and object graph, damaged files, the old .npz layout."""
import os
import pathlib
import shutil

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras
from tapegrad.train import _bundle, _files

DATA = pathlib.Path(__file__).parent / "fixtures" / "tf_checkpoints"
X = np.arange(6, dtype=np.float32).reshape(2, 3) / 6


@pytest.fixture
def tf_format(monkeypatch):
    monkeypatch.setattr(_files, "WRITE_FORMAT", "tf")


def keras_model(kind):
    """The models of make_fixtures.py, built by tapegrad."""
    if kind == "sequential_adam":
        model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)])
        return model, keras.optimizers.Adam()
    if kind == "functional_sgd_momentum":
        i = keras.Input((3,))
        h = keras.layers.Dense(4, activation="relu")(i)
        return keras.Model(i, keras.layers.Dense(2)(h)), keras.optimizers.SGD(momentum=0.9)
    if kind == "batchnorm_sgd":
        return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.BatchNormalization(),
                                 keras.layers.Dense(2)]), keras.optimizers.SGD()
    raise ValueError(kind)


def module_objects():
    module = tf.Module()
    module.v = tf.Variable([0.0, 0.0, 0.0])
    module.table = {"w": tf.Variable(np.zeros((2, 3))),
                    "ints": [tf.Variable(np.int32(0)), tf.Variable(np.array([0, 0], np.int64))]}
    return module, tf.Variable(np.int64(0))


def graph_paths(prefix):
    """{path from the root: checkpoint key} of every value in a TF-format checkpoint's object graph."""
    arrays = _bundle.read(prefix)
    nodes = _bundle.decode_object_graph(arrays[_bundle.OBJECT_GRAPH_KEY].item())
    paths = _bundle.node_paths(nodes)
    return {p: key for i, n in enumerate(nodes) for _, _, key in n["attributes"] for p in paths[i]}


# ---- reading TF's checkpoints
def test_latest_checkpoint_finds_tfs_checkpoint():
    assert tf.train.latest_checkpoint(str(DATA / "module")) == str(DATA / "module" / "ckpt-1")


def test_restore_a_tf_module_checkpoint_by_its_object_graph():
    expected = np.load(DATA / "module" / "expected.npz")
    module, step = module_objects()
    ckpt = tf.train.Checkpoint(module=module, step=step)
    ckpt.restore(tf.train.latest_checkpoint(str(DATA / "module"))).assert_consumed()
    np.testing.assert_array_equal(module.v.numpy(), expected["v"])
    np.testing.assert_array_equal(module.table["w"].numpy(), expected["w"])
    assert module.table["w"].dtype == tf.float64
    assert module.table["ints"][0].numpy() == expected["i32"] and module.table["ints"][0].dtype == tf.int32
    np.testing.assert_array_equal(module.table["ints"][1].numpy(), expected["i64"])  # 2**40 survives
    assert step.numpy() == 12 and int(ckpt.save_counter.numpy()) == 1


def test_tf_checkpoint_matches_by_graph_not_by_key():
    """The same objects under other attribute names do not match, as in TF."""
    module, step = module_objects()
    status = tf.train.Checkpoint(other=module, step=step).restore(str(DATA / "module" / "ckpt-1"))
    with pytest.raises(AssertionError):
        status.assert_consumed()
    np.testing.assert_array_equal(module.v.numpy(), [0.0, 0.0, 0.0])
    assert step.numpy() == 12


@pytest.mark.parametrize("kind", ["sequential_adam", "functional_sgd_momentum", "batchnorm_sgd"])
def test_restore_a_tf_keras_checkpoint_with_its_optimizer(kind):
    expected = np.load(DATA / kind / "expected.npz")
    model, opt = keras_model(kind)
    opt.build(model.trainable_variables)
    tf.train.Checkpoint(model=model, optimizer=opt).restore(str(DATA / kind / "ckpt-1")).assert_consumed()
    for i, w in enumerate(model.weights):
        np.testing.assert_array_equal(w.numpy(), expected[f"model/{i}"])
    # Keras 3's optimizer.variables: [iterations, learning_rate, slots...]; tapegrad's: [iterations, slots...]
    assert int(opt.iterations.numpy()) == 2 == int(expected["optimizer/0"])
    assert float(opt.learning_rate.numpy()) == float(expected["optimizer/1"])
    slots = list(opt.variables)[1:]
    assert len(slots) == len(expected) - len(model.weights) - 2
    for i, s in enumerate(slots):
        np.testing.assert_array_equal(s.numpy(), expected[f"optimizer/{i + 2}"])


def test_restore_a_tf_keras_checkpoint_then_train_on():
    model, opt = keras_model("sequential_adam")
    opt.build(model.trainable_variables)
    tf.train.Checkpoint(model=model, optimizer=opt).restore(str(DATA / "sequential_adam" / "ckpt-1")).assert_consumed()
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(X) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    assert int(opt.iterations.numpy()) == 3


def test_list_variables_and_load_checkpoint_read_tf_files():
    names = dict(tf.train.list_variables(str(DATA / "module")))
    assert names["module/v/.ATTRIBUTES/VARIABLE_VALUE"] == [3]
    assert names["module/table/w/.ATTRIBUTES/VARIABLE_VALUE"] == [2, 3]
    assert "_CHECKPOINTABLE_OBJECT_GRAPH" in names
    reader = tf.train.load_checkpoint(str(DATA / "module" / "ckpt-1"))
    np.testing.assert_array_equal(reader.get_tensor("module/table/ints/1/.ATTRIBUTES/VARIABLE_VALUE"),
                                  [2**40, -3])
    dtypes = reader.get_variable_to_dtype_map()
    assert dtypes["step/.ATTRIBUTES/VARIABLE_VALUE"] == tf.int64
    assert dtypes["_CHECKPOINTABLE_OBJECT_GRAPH"] == tf.string


def test_a_mismatched_shape_changes_nothing():
    module, step = module_objects()
    module.table["w"] = tf.Variable(np.zeros((3, 2)))
    with pytest.raises(ValueError, match=r"ckpt-1\.index.*\(2, 3\).*table/w"):
        tf.train.Checkpoint(module=module, step=step).restore(str(DATA / "module" / "ckpt-1"))
    np.testing.assert_array_equal(module.v.numpy(), [0.0, 0.0, 0.0])
    assert step.numpy() == 0


def test_a_mismatched_keras_weight_changes_nothing():
    """A first Dense wider than the file's: its kernel does not fit, so nothing changes, the learning
    rate (matched by Keras 3's names only) included."""
    wide = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5), keras.layers.Dense(2)])
    opt = keras.optimizers.Adam(learning_rate=0.5)
    opt.build(wide.trainable_variables)
    before = [w.numpy() for w in wide.weights]
    with pytest.raises(ValueError, match=r"ckpt-1\.index.*shape"):
        tf.train.Checkpoint(model=wide, optimizer=opt).restore(str(DATA / "sequential_adam" / "ckpt-1"))
    assert float(opt.learning_rate.numpy()) == 0.5 and int(opt.iterations.numpy()) == 0
    for w, b in zip(wide.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(3, activation="tanh")
        self.out = keras.layers.Dense(1)

    def call(self, inputs):
        return self.out(self.hidden(inputs))


def test_restore_a_tf_compiled_subclassed_model_built_on_its_first_call_after_restore():
    expected = np.load(DATA / "compiled_subclass" / "expected.npz")
    fresh = Net()
    fresh.compile(optimizer="adam", loss="mse")
    status = tf.train.Checkpoint(net=fresh).restore(str(DATA / "compiled_subclass"))  # nothing built yet
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(fresh(x).numpy(), expected["output"], rtol=1e-6)  # built by this call, restored
    with pytest.raises(AssertionError, match="found no object"):
        status.assert_consumed()  # the slots wait for the optimizer's build
    fresh.optimizer.build(fresh.trainable_variables)
    status.assert_consumed()
    assert int(fresh.optimizer.iterations.numpy()) == 1
    for i, s in enumerate(list(fresh.optimizer.variables)[1:]):
        np.testing.assert_array_equal(s.numpy(), expected[f"optimizer/{i + 2}"])


def test_deferred_restoration_of_a_tf_sequential_built_later():
    expected = np.load(DATA / "sequential_adam" / "expected.npz")
    model = keras.Sequential([keras.layers.Dense(4), keras.layers.Dense(2)])  # no Input: not built
    opt = keras.optimizers.Adam()
    status = tf.train.Checkpoint(model=model, optimizer=opt).restore(str(DATA / "sequential_adam" / "ckpt-1"))
    status.assert_existing_objects_matched()
    assert int(opt.iterations.numpy()) == 2
    model.build((None, 3))
    for i, w in enumerate(model.weights):
        np.testing.assert_array_equal(w.numpy(), expected[f"model/{i}"])
    opt.build(model.trainable_variables)
    status.assert_consumed()
    for i, s in enumerate(list(opt.variables)[1:]):
        np.testing.assert_array_equal(s.numpy(), expected[f"optimizer/{i + 2}"])


# ---- writing TF's format
def test_compiled_subclassed_model_writes_keras3s_keys(tmp_path, tf_format):
    net = Net()
    net.compile(optimizer="adam", loss="mse")
    net.fit(np.ones((2, 4), np.float32), np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(net=net), str(tmp_path), max_to_keep=1)
    path = manager.save()
    theirs = str(DATA / "compiled_subclass" / "ckpt-1")
    assert tf.train.list_variables(str(tmp_path)) == tf.train.list_variables(theirs)
    assert graph_paths(path) == graph_paths(theirs)


def test_save_writes_tfs_files_and_state(tmp_path, tf_format):
    module, step = module_objects()
    path = tf.train.Checkpoint(module=module, step=step).save(str(tmp_path / "ckpt"))
    assert path == str(tmp_path / "ckpt-1")
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1.data-00000-of-00001", "ckpt-1.index"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == path


def test_written_keys_and_graph_are_tfs_for_a_module(tmp_path, tf_format):
    module, step = module_objects()
    path = tf.train.Checkpoint(module=module, step=step).save(str(tmp_path / "ckpt"))
    assert dict(tf.train.list_variables(path)) == dict(tf.train.list_variables(str(DATA / "module" / "ckpt-1")))
    assert graph_paths(path) == graph_paths(str(DATA / "module" / "ckpt-1"))


@pytest.mark.parametrize("kind", ["sequential_adam", "functional_sgd_momentum", "batchnorm_sgd"])
def test_written_keys_and_graph_are_keras3s(tmp_path, tf_format, kind):
    model, opt = keras_model(kind)
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(model(X, training=True) ** 2)
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    theirs = str(DATA / kind / "ckpt-1")
    assert dict(tf.train.list_variables(path)) == dict(tf.train.list_variables(theirs))
    assert graph_paths(path) == graph_paths(theirs)
    reader = tf.train.load_checkpoint(path)
    np.testing.assert_array_equal(reader.get_tensor("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"), 2)


def test_round_trip_in_tf_format(tmp_path, tf_format):
    module, step = module_objects()
    module.v.assign([1.0, 2.0, 3.0])
    module.table["ints"][1].assign([5, 2**50])
    path = tf.train.Checkpoint(module=module, step=step).write(str(tmp_path / "w"))
    other, other_step = module_objects()
    tf.train.Checkpoint(module=other, step=other_step).restore(path).assert_consumed()
    np.testing.assert_array_equal(other.v.numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(other.table["ints"][1].numpy(), [5, 2**50])


def test_round_trip_keras_in_tf_format(tmp_path, tf_format):
    model, opt = keras_model("sequential_adam")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(X) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "c"))
    model2, opt2 = keras_model("sequential_adam")
    opt2.build(model2.trainable_variables)
    tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path).assert_consumed()
    for a, b in zip(model.weights + list(opt.variables), model2.weights + list(opt2.variables)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_manager_keeps_and_deletes_tf_files(tmp_path, tf_format):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    manager.save()
    second = manager.save()
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-2.data-00000-of-00001", "ckpt-2.index"]
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1)
    assert again.latest_checkpoint == second and again.checkpoints == [second]


def test_a_failed_write_keeps_the_previous_files(tmp_path, tf_format, monkeypatch):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    path = ckpt.write(str(tmp_path / "c"))
    before = {n: (tmp_path / n).read_bytes() for n in os.listdir(tmp_path)}
    real = _files.atomic_write_all

    def full_disk(f):
        f.write(b"partial")
        raise OSError("disk full")

    def failing(files):  # the index's write fails after the data file's temporary copy is written
        return real([files[0], (files[1][0], full_disk)])

    monkeypatch.setattr(_files, "atomic_write_all", failing)
    v.assign([5.0, 6.0])
    with pytest.raises(OSError, match="disk full"):
        ckpt.write(str(tmp_path / "c"))
    monkeypatch.undo()
    assert {n: (tmp_path / n).read_bytes() for n in os.listdir(tmp_path)} == before  # no temporary file left
    tf.train.Checkpoint(v=v).restore(path)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# ---- damaged files
def _damage(kind, folder):
    index, data = folder / "ckpt-1.index", folder / "ckpt-1.data-00000-of-00001"
    if kind == "truncated index":
        index.write_bytes(index.read_bytes()[:-20])
    elif kind == "garbage index":
        index.write_bytes(b"\x00garbage" * 20)
    elif kind == "flipped index byte":
        b = bytearray(index.read_bytes())
        b[10] ^= 0x40
        index.write_bytes(bytes(b))
    elif kind == "truncated data":
        data.write_bytes(data.read_bytes()[:-3])
    elif kind == "flipped data byte":
        b = bytearray(data.read_bytes())
        b[-2] ^= 0x01
        data.write_bytes(bytes(b))
    elif kind == "missing data":
        data.unlink()
    return index if "index" in kind else data


@pytest.mark.parametrize("kind", ["truncated index", "garbage index", "flipped index byte", "truncated data",
                                  "flipped data byte", "missing data"])
def test_damaged_tf_files_raise_naming_the_file_and_change_nothing(tmp_path, kind):
    shutil.copytree(DATA / "module", tmp_path / "c")
    named = _damage(kind, tmp_path / "c")
    module, step = module_objects()
    with pytest.raises(tf.errors.DataLossError, match=str(named.name).replace(".", r"\.")):
        tf.train.Checkpoint(module=module, step=step).restore(str(tmp_path / "c" / "ckpt-1"))
    np.testing.assert_array_equal(module.v.numpy(), [0.0, 0.0, 0.0])
    assert step.numpy() == 0


def test_bundle_reader_checks_string_tensors(tmp_path):
    index, data = _bundle.encode({"s": np.array([b"ab", b"", b"xyz"], dtype=object), "f": np.float32(2.5)})
    (tmp_path / "s.index").write_bytes(index)
    (tmp_path / "s.data-00000-of-00001").write_bytes(data)
    got = _bundle.read(str(tmp_path / "s"))
    assert list(got["s"]) == [b"ab", b"", b"xyz"] and got["f"] == np.float32(2.5)
    damaged = bytearray(data)
    damaged[damaged.index(b"xyz")] ^= 1
    (tmp_path / "s.data-00000-of-00001").write_bytes(bytes(damaged))
    with pytest.raises(tf.errors.DataLossError, match="string tensor 's'"):
        _bundle.read(str(tmp_path / "s"))


# ---- tapegrad's earlier .npz files
def test_old_npz_checkpoints_stay_readable(tmp_path, monkeypatch):
    v = tf.Variable([1.0, 2.0])
    monkeypatch.setattr(_files, "WRITE_FORMAT", "npz")
    path = tf.train.Checkpoint(v=v).save(str(tmp_path / "old"))  # the .npz layout
    assert os.path.isfile(path + ".npz")
    monkeypatch.setattr(_files, "WRITE_FORMAT", "tf")
    assert tf.train.latest_checkpoint(str(tmp_path)) == path
    target = tf.Variable([0.0, 0.0])
    with pytest.warns(DeprecationWarning, match=r"old\.npz|old-1\.npz"):
        tf.train.Checkpoint(v=target).restore(path).assert_consumed()
    np.testing.assert_array_equal(target.numpy(), [1.0, 2.0])


def test_crc32c_and_its_mask():
    assert _bundle.crc32c_py(b"123456789") == 0xE3069283  # the Castagnoli check value
    assert _bundle.crc32c(b"123456789") == 0xE3069283
    assert _bundle.crc32c(b"6789", _bundle.crc32c(b"12345")) == 0xE3069283
    assert _bundle.mask(0) == 0xA282EAD8


def test_many_variables_span_several_table_blocks(tmp_path, tf_format):
    module = tf.Module()
    module.vs = [tf.Variable(np.full((2,), i, np.int64)) for i in range(300)]
    path = tf.train.Checkpoint(m=module).write(str(tmp_path / "many"))
    index = pathlib.Path(path + ".index").read_bytes()
    blocks = _bundle._records(_bundle._read_block(index, _index_handle(index)))
    assert len(blocks) > 1  # the index block lists more than one data block
    other = tf.Module()
    other.vs = [tf.Variable(np.zeros((2,), np.int64)) for _ in range(300)]
    tf.train.Checkpoint(m=other).restore(path).assert_consumed()
    assert [int(v.numpy()[0]) for v in other.vs] == list(range(300))


def _index_handle(table):
    """The index block's handle in a table's footer (after the metaindex handle)."""
    footer = table[-48:-8]
    _, pos = _bundle.read_varint(footer, 0)
    _, pos = _bundle.read_varint(footer, pos)
    return footer[pos:]


def _sharded_module():
    module = tf.Module()
    module.a, module.b = tf.Variable(np.zeros(300, np.float32)), tf.Variable(np.zeros((300, 2)))
    module.c = tf.Variable(np.int64(0))
    return module


def test_restore_a_checkpoint_tf_saved_in_slices_over_shards():
    # tests/io/fixtures/tf_checkpoints/sharded: TF's MaxShardSizePolicy cut a and b into slices, 7 files
    expected = np.load(DATA / "sharded" / "expected.npz")
    module = _sharded_module()
    tf.train.Checkpoint(m=module).restore(str(DATA / "sharded" / "ckpt-1")).assert_consumed()
    for name in "abc":
        np.testing.assert_array_equal(getattr(module, name).numpy(), expected[name])
    assert dict(tf.train.list_variables(str(DATA / "sharded")))["m/b/.ATTRIBUTES/VARIABLE_VALUE"] == [300, 2]


def test_a_missing_or_damaged_shard_raises_before_any_change(tmp_path):
    import shutil
    folder = tmp_path / "sharded"
    shutil.copytree(DATA / "sharded", folder)
    module = _sharded_module()
    (folder / "ckpt-1.data-00003-of-00007").unlink()
    with pytest.raises(tf.errors.DataLossError, match="ckpt-1.data-00003-of-00007"):
        tf.train.Checkpoint(m=module).restore(str(folder / "ckpt-1"))
    shutil.copy(DATA / "sharded" / "ckpt-1.data-00003-of-00007", folder)
    data = bytearray((folder / "ckpt-1.data-00001-of-00007").read_bytes())
    data[len(data) // 2] ^= 1
    (folder / "ckpt-1.data-00001-of-00007").write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="crc32c"):
        tf.train.Checkpoint(m=module).restore(str(folder / "ckpt-1"))
    assert not module.a.numpy().any() and not module.b.numpy().any() and int(module.c) == 0
