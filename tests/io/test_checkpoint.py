"""tf.train.Checkpoint and CheckpointManager: TF's semantics, deferred restoration, atomicity, bad files.
Checkpoints are written in TF's format (tests/io/test_tf_checkpoint_format.py checks its files); the tests
marked earlier_layout check the .npz layout tapegrad wrote before, which it still reads."""
import os
import pathlib

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras


def _trained(seed=0):
    """A built model and an Adam optimizer after one step (so the slots hold values)."""
    tf.random.set_seed(seed)
    model = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
    model.build((None, 3))
    opt = keras.optimizers.Adam(0.1)
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(model(x) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return model, opt


@pytest.fixture
def earlier_layout(monkeypatch):
    """Checkpoints written in tapegrad's earlier .npz layout (Note [Checkpoint file format])."""
    from tapegrad.train import _files
    monkeypatch.setattr(_files, "WRITE_FORMAT", "npz")


def _values(variables):
    return [v.numpy().copy() for v in variables]


@pytest.mark.usefixtures("earlier_layout")
def test_save_numbers_files_and_writes_the_state_file(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    first = ckpt.save(str(tmp_path / "ckpt"))
    second = ckpt.save(str(tmp_path / "ckpt"))
    assert first == str(tmp_path / "ckpt-1") and second == str(tmp_path / "ckpt-2")
    assert int(ckpt.save_counter.numpy()) == 2
    assert os.path.isfile(second + ".npz")
    state = (tmp_path / "checkpoint").read_text()
    assert 'model_checkpoint_path: "ckpt-2"' in state
    assert tf.train.latest_checkpoint(str(tmp_path)) == second
    assert tf.train.latest_checkpoint(str(tmp_path / "none")) is None


def test_write_and_read_do_not_number_or_count(tmp_path):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    path = ckpt.write(str(tmp_path / "w"))
    assert path == str(tmp_path / "w") and not (tmp_path / "checkpoint").exists()
    v.assign([5.0, 6.0])
    ckpt.read(path).assert_consumed()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_restore_model_and_optimizer_with_slots(tmp_path):
    model, opt = _trained()
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    model2, opt2 = _trained(seed=1)
    opt2.apply_gradients(zip([tf.ones_like(v) for v in model2.trainable_variables], model2.trainable_variables))
    status = tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    status.assert_consumed()
    for a, b in zip(_values(model.weights) + _values(opt.variables), _values(model2.weights) + _values(opt2.variables)):
        np.testing.assert_array_equal(a, b)
    assert int(opt2.iterations.numpy()) == 1


def test_deferred_restoration_of_a_model_built_later_and_slots_made_later(tmp_path):
    model, opt = _trained()
    path = tf.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    model2 = keras.Sequential([keras.layers.Dense(4, activation="relu"), keras.layers.Dense(1)])
    opt2 = keras.optimizers.Adam(0.1)
    status = tf.train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    status.assert_existing_objects_matched()  # as TF: nothing that exists is left without a value
    with pytest.raises(AssertionError, match="found no object"):
        status.assert_consumed()  # the weights and slots wait for the build
    assert int(opt2.iterations.numpy()) == 1
    model2.build((None, 3))
    for a, b in zip(model.weights, model2.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    opt2.build(model2.trainable_variables)
    for a, b in zip(opt.variables, opt2.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    status.assert_consumed()


def test_deferred_restoration_into_a_module_attribute_and_a_layer_added_later(tmp_path):
    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.scale = tf.Variable(3.0)

    path = tf.train.Checkpoint(net=Net(), extra=tf.Variable([7.0])).save(str(tmp_path / "c"))
    net = Net.__new__(Net)
    tf.Module.__init__(net)
    ckpt = tf.train.Checkpoint(net=net)
    status = ckpt.restore(path)
    net.scale = tf.Variable(0.0)  # created after the restore: gets 3.0
    ckpt.extra = tf.Variable([0.0])
    assert float(net.scale.numpy()) == 3.0 and ckpt.extra.numpy()[0] == 7.0
    status.assert_consumed()


@pytest.mark.usefixtures("earlier_layout")
def test_shape_mismatch_raises_and_changes_nothing(tmp_path):
    a, b = tf.Variable([1.0, 2.0]), tf.Variable([3.0])
    path = tf.train.Checkpoint(a=a, b=b).save(str(tmp_path / "c"))
    a2, b2 = tf.Variable([0.0, 0.0]), tf.Variable([0.0, 0.0])  # b has another shape
    with pytest.raises(ValueError, match=r"c-1\.npz.*shape \(1,\).*'b'.*shape \(2,\)"):
        tf.train.Checkpoint(a=a2, b=b2).restore(path)
    np.testing.assert_array_equal(a2.numpy(), [0.0, 0.0])  # validated before anything is assigned


def test_unmatched_objects_fail_the_assertions(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).save(str(tmp_path / "c"))
    status = tf.train.Checkpoint(w=tf.Variable(1.0)).restore(path)
    with pytest.raises(AssertionError, match="not bound to checkpointed values"):
        status.assert_existing_objects_matched()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    assert status.expect_partial() is status


def test_restore_none_and_missing_files(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        ckpt.restore(None).assert_consumed()
    with pytest.raises(tf.errors.NotFoundError, match="nothere"):
        ckpt.restore(str(tmp_path / "nothere"))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "not_a_checkpoint", "missing_member", "npy", "empty"])
@pytest.mark.usefixtures("earlier_layout")
def test_corrupted_files_raise_naming_the_file_and_change_nothing(tmp_path, damage):
    v = tf.Variable([1.0, 2.0, 3.0])
    path = tf.train.Checkpoint(v=v).save(str(tmp_path / "c"))
    file = pathlib.Path(path + ".npz")
    data = file.read_bytes()
    if damage == "truncate":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        file.write_bytes(b"\x00garbage" * 50)
    elif damage == "not_a_checkpoint":
        np.savez(file, x=np.zeros(3))
    elif damage == "npy":
        with open(file, "wb") as f:
            np.save(f, np.zeros(3))
    elif damage == "empty":
        file.write_bytes(b"")
    else:
        with open(file, "wb") as f:
            np.savez(f, __format__=np.array("tapegrad-checkpoint-v1"), __keys__=np.array(["v", "w"]),
                     v000000=np.zeros(3))
    target = tf.Variable([9.0, 9.0, 9.0])
    with pytest.raises(tf.errors.DataLossError, match="c-1.npz"):
        tf.train.Checkpoint(v=target).restore(path)
    np.testing.assert_array_equal(target.numpy(), [9.0, 9.0, 9.0])


@pytest.mark.usefixtures("earlier_layout")
def test_a_failed_save_keeps_the_previous_checkpoint(tmp_path, monkeypatch):
    v = tf.Variable([1.0, 2.0])
    ckpt = tf.train.Checkpoint(v=v)
    path = ckpt.write(str(tmp_path / "c"))
    before = pathlib.Path(path + ".npz").read_bytes()

    def failing_savez(f, **members):  # writes part of a file, then fails as a full disk would
        f.write(b"PK\x03\x04partial")
        raise OSError("No space left on device")

    real_savez = np.savez
    monkeypatch.setattr(np, "savez", failing_savez)
    v.assign([5.0, 6.0])
    with pytest.raises(OSError, match="No space"):
        ckpt.write(str(tmp_path / "c"))
    with pytest.raises(OSError):
        ckpt.save(str(tmp_path / "c"))
    monkeypatch.setattr(np, "savez", real_savez)  # (undo() would also undo earlier_layout)
    assert pathlib.Path(path + ".npz").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["c.npz"]  # no temporary file left behind
    assert int(ckpt.save_counter.numpy()) == 0  # the failed save did not count
    ckpt.restore(path)
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


@pytest.mark.usefixtures("earlier_layout")
def test_manager_keeps_max_to_keep_and_numbers_from_save_counter(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    paths = [manager.save() for _ in range(4)]
    assert paths[-1] == str(tmp_path / "ckpt-4")
    assert manager.checkpoints == paths[2:] and manager.latest_checkpoint == paths[3]
    assert not os.path.exists(paths[0] + ".npz") and os.path.exists(paths[2] + ".npz")
    assert manager.save(checkpoint_number=100) == str(tmp_path / "ckpt-100")
    assert int(ckpt.save_counter.numpy()) == 5  # as TF: the counter advances with an explicit number too
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-100")
    again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)  # picks up the directory's list
    assert again.checkpoints == [paths[3], str(tmp_path / "ckpt-100")]


def test_manager_checkpoint_interval(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step)
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=None, step_counter=step,
                                         checkpoint_interval=5, keep_checkpoint_every_n_hours=1.0)
    saved = []
    for i in range(12):
        if manager.save() is not None:
            saved.append(i)
        step.assign_add(1)
    assert saved == [0, 5, 10]  # TF's answer for the same loop
    resumed = tf.train.CheckpointManager(ckpt, str(tmp_path), None, step_counter=step, checkpoint_interval=5,
                                         last_checkpoint_step=10)
    assert resumed.save() is None  # step 12 < 10 + 5
    with pytest.raises(ValueError, match="step_counter"):
        tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1, checkpoint_interval=5)


@pytest.mark.usefixtures("earlier_layout")
def test_manager_keep_checkpoint_every_n_hours_preserves_dropped_files(tmp_path, monkeypatch):
    import time
    clock = [1000.0]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=1, keep_checkpoint_every_n_hours=1.0)
    clock[0] += 2 * 3600  # two hours after the manager started: this one is preserved when dropped
    first = manager.save()
    clock[0] += 60
    second = manager.save()  # drops first (kept on disk)
    clock[0] += 60
    manager.save()  # drops second: a minute after the last preserved one, so it is deleted
    assert os.path.exists(first + ".npz") and not os.path.exists(second + ".npz")
    assert len(manager.checkpoints) == 1


def test_manager_killed_while_deleting_the_oldest_keeps_the_newest_reachable(tmp_path, monkeypatch):
    # A process killed after the oldest file is gone: the state file must already name the newest one.
    v = tf.Variable(1.0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), max_to_keep=1)
    manager.save()
    v.assign(2.0)
    real_remove = os.remove

    def remove_then_die(path):
        real_remove(path)
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(os, "remove", remove_then_die)
    with pytest.raises(KeyboardInterrupt):
        manager.save()
    monkeypatch.undo()
    assert tf.train.latest_checkpoint(str(tmp_path)) == str(tmp_path / "ckpt-2")
    v.assign(0.0)
    resumed = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), max_to_keep=1,
                                         init_fn=lambda: v.assign(-1.0))
    assert resumed.restore_or_initialize() == str(tmp_path / "ckpt-2") and float(v.numpy()) == 2.0


def test_manager_restore_or_initialize(tmp_path):
    v = tf.Variable(1.0)
    calls = []
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=v), str(tmp_path), 3,
                                         init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]
    path = manager.save()
    v.assign(4.0)
    assert manager.restore_or_initialize() == path and float(v.numpy()) == 1.0


def test_checkpoint_rejects_untrackable_values():
    with pytest.raises(ValueError, match="trackable"):
        tf.train.Checkpoint(x=1.0)


@pytest.mark.usefixtures("earlier_layout")
def test_the_file_is_a_plain_npz(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).save(str(tmp_path / "c"))
    with np.load(path + ".npz") as data:
        assert list(data["__keys__"]) == ["v", "save_counter"]
    assert tf.train.list_variables(str(tmp_path)) == [("save_counter", []), ("v", [2])]
    reader = tf.train.load_checkpoint(path)
    np.testing.assert_array_equal(reader.get_tensor("v"), [1.0, 2.0])


class _Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = keras.layers.Dense(3, activation="tanh")
        self.out = keras.layers.Dense(1)

    def call(self, inputs):
        return self.out(self.hidden(inputs))


@pytest.mark.usefixtures("earlier_layout")
def test_subclassed_model_built_on_its_first_call_after_restore(tmp_path):
    x = np.ones((2, 4), np.float32)
    net = _Net()
    net.compile(optimizer="adam", loss="mse")
    net.fit(x, np.zeros((2, 1), np.float32), epochs=1, verbose=0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(net=net), str(tmp_path), max_to_keep=1)
    manager.save()
    keys = [k for k, _ in tf.train.list_variables(str(tmp_path))]
    assert "net/hidden/kernel" in keys and "net/optimizer/iter" in keys  # the compiled optimizer goes too
    assert "net/hidden/kernel/.OPTIMIZER_SLOT/net/optimizer/m" in keys
    fresh = _Net()
    fresh.compile(optimizer="adam", loss="mse")
    status = tf.train.Checkpoint(net=fresh).restore(str(tmp_path))  # a directory: its latest checkpoint
    np.testing.assert_allclose(fresh(x).numpy(), net(x).numpy())  # built by this call, values restored
    fresh.optimizer.build(fresh.trainable_variables)
    for a, b in zip(net.optimizer.variables, fresh.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    status.assert_consumed()
