"""model.save("m.h5") / load_model: Keras's legacy layout (Note [Keras legacy HDF5 layout];
test_keras_legacy_h5.py has Keras's own files), with the digest of Note [HDF5 file digest];
ModelCheckpoint's "checkpoint-{epoch}.h5" (Horovod's Keras example) saves it. Tests marked
earlier_h5_layout check tapegrad's earlier layout (Note [HDF5 model files]), which still loads."""
import numpy as np
import pytest

from tapegrad import keras

h5py = pytest.importorskip("h5py")


@pytest.fixture
def earlier_h5_layout(monkeypatch):
    """model.save("m.h5") in tapegrad's earlier layout; loading it warns (DeprecationWarning)."""
    from tapegrad.keras.saving import _model_file
    monkeypatch.setattr(_model_file, "H5_WRITE_FORMAT", "tapegrad-h5")


def _fitted():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.01), "mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    return model, x, y


@pytest.mark.usefixtures("earlier_h5_layout")
@pytest.mark.filterwarnings("ignore:load_model.*earlier .h5 layout:DeprecationWarning")
def test_round_trip_keeps_weights_compile_and_optimizer_state(tmp_path):
    model, x, y = _fitted()
    model.save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:  # plain HDF5 that h5py reads
        assert f.attrs["format"] == "tapegrad-keras-v1" and len(f["model_weights"]) == 4
    loaded = keras.models.load_model(tmp_path / "m.h5")
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
    loaded.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)  # resumes exactly where it stopped
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_model_checkpoint_to_h5_and_bad_files(tmp_path):
    model, x, y = _fitted()
    path = str(tmp_path / "checkpoint-{epoch}.h5")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0, callbacks=[keras.callbacks.ModelCheckpoint(path)])
    loaded = keras.models.load_model(tmp_path / "checkpoint-2.h5")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)
    with h5py.File(tmp_path / "other.h5", "w") as f:  # an HDF5 file of another layout (Keras's own, say)
        f.create_group("model_weights")
    with pytest.raises(ValueError, match="other.h5 is not a readable .h5 model file"):
        keras.models.load_model(tmp_path / "other.h5")
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(tmp_path / "none.h5")
    (tmp_path / "junk.h5").write_bytes(b"not hdf5")
    with pytest.raises(ValueError, match="junk.h5"):
        keras.models.load_model(tmp_path / "junk.h5")


def _all_values(model):
    return [v.numpy() for v in model.weights] + [v.numpy() for v in model.optimizer.variables]


def test_a_damaged_file_raises_instead_of_loading_other_weights(tmp_path):
    # A flipped bit or a zeroed block anywhere: a ValueError before any variable changes, or (in unused
    # bytes) the same values. A bit in a heap made HDF5 loop forever before the digest was checked first.
    model, _, _ = _fitted()
    model.save(tmp_path / "m.h5")
    data = (tmp_path / "m.h5").read_bytes()
    want = _all_values(model)
    damages = [(pos, "flip") for pos in range(0, len(data), max(1, len(data) // 60))]
    damages += [(4368, "flip"), (len(data) // 2, "zero"), (len(data) - 600, "zero"), (600, "zero")]
    raised = 0
    for pos, how in damages:
        damaged = bytearray(data)
        if how == "flip":
            damaged[pos] ^= 0x10
        else:
            damaged[pos:pos + 256] = bytes(len(damaged[pos:pos + 256]))
        (tmp_path / "d.h5").write_bytes(bytes(damaged))
        try:
            loaded = keras.models.load_model(tmp_path / "d.h5")
        except ValueError as e:
            assert "d.h5" in str(e)
            raised += 1
            continue
        got = _all_values(loaded)
        assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want)), (pos, how)
    assert raised >= len(damages) - 3  # only the digest's own padding may take a change unnoticed
    with pytest.raises(ValueError, match="damaged"):
        damaged = bytearray(data)
        damaged[-100] ^= 1
        (tmp_path / "d.h5").write_bytes(bytes(damaged))
        keras.models.load_model(tmp_path / "d.h5")


def test_a_file_without_a_digest_still_loads(tmp_path):
    model, x, _ = _fitted()
    model.save(tmp_path / "m.h5")
    with open(tmp_path / "m.h5", "rb") as f:
        f.seek(512)
        plain = f.read()  # the HDF5 data alone, as files written before the digest are
    (tmp_path / "old.h5").write_bytes(plain)
    with h5py.File(tmp_path / "old.h5", "r"):  # a valid HDF5 file with no user block
        pass
    loaded = keras.models.load_model(tmp_path / "old.h5")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
