"""Keras 3's files: .keras and .weights.h5 written by Keras (fixtures in tests/io/fixtures/keras, made by
make_fixtures.py there) load with the same predictions and the same next training step; tapegrad's files
have Keras's members and HDF5 paths; older tapegrad files still load, with a DeprecationWarning; damaged
files raise ValueErrors naming them before any variable changes."""
import gzip
import io
import json
import os
import pathlib
import zipfile

import numpy as np
import pytest

from tapegrad import keras
from tapegrad.keras.saving import _keras_h5

h5py = pytest.importorskip("h5py")

DATA = pathlib.Path(__file__).parent / "fixtures" / "keras"


@keras.saving.register_keras_serializable(package="fixtures")
class Residual(keras.Model):  # make_fixtures.py's, written again with tapegrad
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = keras.layers.Dense(units, activation="tanh")
        self.head = keras.layers.Dense(1)

    def call(self, inputs):
        return self.head(self.inner(inputs) + inputs[:, :1])

    def get_config(self):
        return {**super().get_config(), "units": self.units}


@pytest.fixture
def keras_weights_file(tmp_path):
    """sequential.weights.h5 as Keras wrote it (kept gzipped in tests/io/fixtures/keras)."""
    path = tmp_path / "keras" / "sequential.weights.h5"
    path.parent.mkdir()
    path.write_bytes(gzip.decompress((DATA / "sequential.weights.h5.gz").read_bytes()))
    return path


def _expected(name):
    with np.load(DATA / f"{name}.npz") as f:
        data = {k: f[k] for k in f.files}
    xs = [data[f"x{i}"] for i in range(sum(k.startswith("x") for k in data))]
    after = [data[f"after{i}"] for i in range(sum(k.startswith("after") for k in data))]
    return (xs if len(xs) > 1 else xs[0]), data["y"], data["predictions"], after


def _tree(h5_bytes_or_path):
    """{dataset path: shape} of an HDF5 file."""
    out = {}
    with h5py.File(h5_bytes_or_path if not isinstance(h5_bytes_or_path, bytes) else io.BytesIO(h5_bytes_or_path),
                   "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o.shape) if isinstance(o, h5py.Dataset) else None)
    return out


def _keras_weights(model):
    """model.weights in Keras's order (a Functional's layers are ordered otherwise in tapegrad)."""
    if type(model).__name__ != "Functional":
        return model.weights
    return [v for _, _, variables in _keras_h5.layout(model) for v in variables]


def _keras_h5_member(path):
    with zipfile.ZipFile(path) as z:
        return z.read("model.weights.h5")


@pytest.mark.parametrize("name", ["sequential", "functional", "subclassed"])
def test_keras_written_model_loads_and_trains_on_as_in_keras(name):
    x, y, predictions, after = _expected(name)
    model = keras.models.load_model(DATA / f"{name}.keras")
    np.testing.assert_allclose(model.predict(x, verbose=0), predictions, rtol=1e-5, atol=1e-6)
    assert int(model.optimizer.iterations) == 2
    model.train_on_batch(x, y)  # the optimizer's state came along: the next step is Keras's
    weights = _keras_weights(model)
    assert len(weights) == len(after)
    for w, a in zip(weights, after):
        np.testing.assert_allclose(w.numpy(), a, rtol=1e-5, atol=1e-6, err_msg=w.path)


def test_keras_written_subclassed_model_through_custom_objects():
    x, _, predictions, _ = _expected("subclassed")
    model = keras.models.load_model(DATA / "subclassed.keras", custom_objects={"fixtures>Residual": Residual})
    assert isinstance(model, Residual) and model.units == 3
    np.testing.assert_allclose(model.predict(x, verbose=0), predictions, rtol=1e-5, atol=1e-6)


def _sequential():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return model


def _functional():
    image, seq, ids = keras.Input((5, 5, 1)), keras.Input((4, 3)), keras.Input((4,), dtype="int32")
    a = keras.layers.Flatten()(keras.layers.Conv2D(2, 3)(image))
    b = keras.layers.LSTM(3)(seq)
    c = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(7, 2)(ids))
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b, c]))
    model = keras.Model([image, seq, ids], out)
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9), loss="mse")
    return model


def test_keras_written_weights_file_loads_with_optimizer_state(keras_weights_file):
    x, y, predictions, after = _expected("sequential")
    model = _sequential()
    model.load_weights(keras_weights_file)
    np.testing.assert_allclose(model.predict(x, verbose=0), predictions, rtol=1e-5, atol=1e-6)
    model.train_on_batch(x, y)
    for w, a in zip(model.weights, after):
        np.testing.assert_allclose(w.numpy(), a, rtol=1e-5, atol=1e-6, err_msg=w.path)


@pytest.mark.parametrize("name,make", [("sequential", _sequential), ("functional", _functional)])
def test_saved_files_have_keras_members_and_hdf5_paths(tmp_path, name, make, keras_weights_file):
    x, y, _, _ = _expected(name)
    model = make()
    model.train_on_batch(x, y)
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
        config = json.loads(z.read("config.json"))
        assert "keras_version" in json.loads(z.read("metadata.json"))
    assert config["module"].startswith("keras") and config["class_name"] == type(model).__name__
    assert all(layer["module"] == "keras.layers" and layer["registered_name"] is None
               for layer in config["config"]["layers"])
    # the same dataset paths and shapes as the file Keras wrote for the same model
    assert _tree(_keras_h5_member(tmp_path / "m.keras")) == _tree(_keras_h5_member(DATA / f"{name}.keras"))
    if name == "sequential":
        model.save_weights(tmp_path / "w.weights.h5")
        assert _tree(tmp_path / "w.weights.h5") == _tree(keras_weights_file)


@pytest.mark.parametrize("make", [_sequential, _functional])
def test_round_trip_keeps_predictions_and_next_step(tmp_path, make):
    name = "sequential" if make is _sequential else "functional"
    x, y, _, _ = _expected(name)
    model = make()
    model.train_on_batch(x, y)
    model.save(tmp_path / "m.keras")
    model.save_weights(tmp_path / "m.weights.h5")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    other = make()
    other.load_weights(tmp_path / "m.weights.h5")
    for m in (loaded, other):
        np.testing.assert_array_equal(m.predict(x, verbose=0), model.predict(x, verbose=0))
    model.train_on_batch(x, y)
    for m in (loaded, other):
        m.train_on_batch(x, y)
        for a, b in zip(model.weights + model.optimizer.variables, m.weights + m.optimizer.variables):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


def _old_keras_file(path, model):
    """A .keras file as tapegrad wrote them before Keras's layout (Note [Model file format])."""
    from tapegrad.keras.saving import _weights_file as _saving
    config = keras.saving.serialize_keras_object(model)
    config["build_config"] = {"input_shape": [None, 4]}

    def npz(variables):
        buf = io.BytesIO()
        _saving.write_weights(buf, variables)
        return buf.getvalue()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("metadata.json", json.dumps({"format": "tapegrad-keras-v1"}))
        z.writestr("config.json", json.dumps(config))
        z.writestr("model.weights.npz", npz(model.weights))


def test_old_tapegrad_keras_files_load_with_a_deprecation_warning(tmp_path):
    x, _, _, _ = _expected("sequential")
    model = _sequential()
    _old_keras_file(tmp_path / "old.keras", model)
    with pytest.warns(DeprecationWarning, match="old.keras.*old .keras layout"):
        loaded = keras.models.load_model(tmp_path / "old.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_old_npz_weights_under_an_h5_name_load_with_a_deprecation_warning(tmp_path):
    model = _sequential()
    model.save_weights(tmp_path / "w.weights.npz")  # tapegrad's ModelCheckpoint once wrote these as .weights.h5
    os.replace(tmp_path / "w.weights.npz", tmp_path / "w.weights.h5")
    other = _sequential()
    with pytest.warns(DeprecationWarning, match="w.weights.h5"):
        other.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(model.weights, other.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def _rewrite_member(src, dst, edit):
    """Copies the .keras file src to dst with its weights file changed by edit(h5py.File)."""
    with zipfile.ZipFile(src) as z:
        members = {n: z.read(n) for n in z.namelist()}
    buf = io.BytesIO(members["model.weights.h5"])
    with h5py.File(buf, "r+") as f:
        edit(f)
    members["model.weights.h5"] = buf.getvalue()
    with zipfile.ZipFile(dst, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)


def _reshape_last(f):
    del f["layers/dense_1/vars/1"]
    f["layers/dense_1/vars"].create_dataset("1", data=np.zeros(3, np.float32))


def _strings(f):
    del f["layers/dense_1/vars/1"]
    f["layers/dense_1/vars"].create_dataset("1", data=np.array([b"x", b"y"]))


def _drop_group(f):
    del f["layers/batch_normalization"]


@pytest.mark.parametrize("edit,match", [(_reshape_last, "dense_1/vars/1.*shape"), (_strings, "not numbers"),
                                        (_drop_group, "no group 'layers/batch_normalization/vars'")])
def test_damaged_weights_raise_before_any_variable_changes(tmp_path, edit, match):
    bad = tmp_path / "bad.keras"
    _rewrite_member(DATA / "sequential.keras", bad, edit)
    with pytest.raises(ValueError, match="bad.keras.*" + match):
        keras.models.load_model(bad)
    weights = tmp_path / "bad.weights.h5"
    with zipfile.ZipFile(bad) as z:
        weights.write_bytes(z.read("model.weights.h5"))
    model = _sequential()
    before = [w.numpy() for w in model.weights]
    with pytest.raises(ValueError, match="bad.weights.h5.*" + match):
        model.load_weights(weights)
    for w, b in zip(model.weights, before):  # the first kernel is not assigned either
        np.testing.assert_array_equal(w.numpy(), b)


def test_truncated_files_raise_value_errors_naming_them(tmp_path, keras_weights_file):
    for src, name in ((DATA / "sequential.keras", "t.keras"), (keras_weights_file, "t.weights.h5")):
        (tmp_path / name).write_bytes(src.read_bytes()[:1500])
    with pytest.raises(ValueError, match="t.keras"):
        keras.models.load_model(tmp_path / "t.keras")
    with pytest.raises(ValueError, match="t.weights.h5"):
        _sequential().load_weights(tmp_path / "t.weights.h5")


def test_weights_h5_save_is_atomic(tmp_path, monkeypatch):
    model = _sequential()
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    before = path.read_bytes()
    monkeypatch.setattr(h5py.Group, "create_dataset", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError, match="disk full"):
        model.save_weights(path)
    with pytest.raises(OSError, match="disk full"):
        model.save(tmp_path / "w.keras")
    monkeypatch.undo()
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["w.weights.h5"]


def test_an_unbuilt_optimizer_skips_the_files_slots_with_a_warning(tmp_path):
    model = _sequential()
    model.save_weights(tmp_path / "w.weights.h5")  # compiled, never trained: iterations and the rate only
    x, y, _, _ = _expected("sequential")
    trained = _sequential()
    trained.train_on_batch(x, y)
    with pytest.warns(UserWarning, match="skipping the optimizer"):
        trained.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(model.weights, trained.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(trained.optimizer.iterations) == 1


def test_a_flipped_byte_in_a_saved_weights_file_raises_before_any_variable_changes(tmp_path):
    model = _sequential()
    path = tmp_path / "w.weights.h5"
    model.save_weights(path)
    data = bytearray(path.read_bytes())
    with h5py.File(path, "r") as f:  # the last byte of the first kernel's data
        offset = f["layers/dense/vars/0"].id.get_offset() + f["layers/dense/vars/0"].id.get_storage_size() - 1
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))
    other = _sequential()
    before = [w.numpy() for w in other.weights]
    with pytest.raises(ValueError, match="w.weights.h5.*damaged"):
        other.load_weights(path)
    for w, b in zip(other.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)
