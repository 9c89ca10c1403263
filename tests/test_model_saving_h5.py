"""model.save("m.h5") / load_model (Note [HDF5 model files]): the .keras file's content in HDF5,
through the h5 extra; ModelCheckpoint's "checkpoint-{epoch}.h5" (Horovod's Keras example) saves it."""
import numpy as np
import pytest

from tapegrad import keras

h5py = pytest.importorskip("h5py")


def _fitted():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.01), "mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    return model, x, y


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
    with pytest.raises(ValueError, match="other.h5 is not a readable tapegrad .h5 model file"):
        keras.models.load_model(tmp_path / "other.h5")
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(tmp_path / "none.h5")
    (tmp_path / "junk.h5").write_bytes(b"not hdf5")
    with pytest.raises(ValueError, match="junk.h5"):
        keras.models.load_model(tmp_path / "junk.h5")
