"""Keras's legacy .h5 files (Note [Keras legacy HDF5 layout]): files Keras 2 (tf.keras) and Keras 3 wrote
(fixtures in tests/io/fixtures/keras_legacy, made by make_fixtures.py there) load with the same
predictions and the same next training step; tapegrad writes the layout; damaged and mismatched files
raise ValueErrors naming them before any variable changes. Keras reading tapegrad's files is checked
in tests/oracle/test_tf_oracle_keras_legacy_h5.py."""
import gzip
import pathlib

import numpy as np
import pytest

from tapegrad import keras
from tapegrad.keras.saving import _keras_h5

h5py = pytest.importorskip("h5py")

DATA = pathlib.Path(__file__).parent / "fixtures" / "keras_legacy"


class Scale(keras.layers.Layer):  # make_fixtures.py's custom layer, written again with tapegrad
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

    def call(self, x):
        return x * self.w * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def _unzipped(name, tmp_path):
    path = tmp_path / name
    path.write_bytes(gzip.decompress((DATA / f"{name}.gz").read_bytes()))
    return path


def _expected(name):
    with np.load(DATA / f"{name}.npz") as f:
        data = {k: f[k] for k in f.files}
    xs = [data[f"x{i}"] for i in range(sum(k.startswith("x") for k in data))]
    before = [data[f"before{i}"] for i in range(sum(k.startswith("before") for k in data))]
    after = [data[f"after{i}"] for i in range(sum(k.startswith("after") for k in data))]
    return (xs if len(xs) > 1 else xs[0]), data["y"], data["predictions"], before, after


def _keras_weights(model):
    """model.weights in Keras's order (a Functional's layers are ordered otherwise in tapegrad)."""
    if type(model).__name__ != "Functional":
        return model.weights
    return [v for _, _, variables in _keras_h5.layout(model) for v in variables]


NAMES = ["keras2_sequential", "keras2_functional", "keras3_sequential", "keras3_functional"]


@pytest.mark.parametrize("name", NAMES)
def test_a_keras_legacy_file_loads_and_trains_on_as_in_keras(name, tmp_path):
    x, y, predictions, _, after = _expected(name)
    model = keras.models.load_model(_unzipped(f"{name}.h5", tmp_path), custom_objects={"Scale": Scale})
    np.testing.assert_allclose(model.predict(x, verbose=0), predictions, rtol=1e-5, atol=1e-6)
    model.train_on_batch(x, y)  # the optimizer's state came with the file: the same next step
    got = _keras_weights(model)
    assert len(got) == len(after)
    for i, (w, want) in enumerate(zip(got, after)):
        np.testing.assert_allclose(w.numpy(), want, rtol=1e-5, atol=1e-6, err_msg=f"{i}: {w.path}")


def test_a_keras2_weights_file_loads_by_layer_order(tmp_path):
    x, _, predictions, before, _ = _expected("keras2_sequential")
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    model.load_weights(_unzipped("keras2_sequential_weights.h5", tmp_path))
    np.testing.assert_allclose(model.predict(x, verbose=0), predictions, rtol=1e-5, atol=1e-6)
    assert [w.numpy().tolist() for w in model.weights] == [v.tolist() for v in before]


def _fitted():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    model.compile(keras.optimizers.Adam(0.01), "mse")
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    return model, x, y


def test_tapegrad_writes_the_legacy_layout_and_reads_it_back(tmp_path):
    model, x, y = _fitted()
    model.save(tmp_path / "m.h5")
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert "format" not in f.attrs and "model_config" in f.attrs and "training_config" in f.attrs
        names = [n.decode() if isinstance(n, bytes) else n for n in f["model_weights"].attrs["layer_names"]]
        assert names == [layer.name for layer in model.layers]
        first = model.layers[0].name
        assert f"{first}/{first}/kernel" in f["model_weights"]
        assert len(f["optimizer_weights"].attrs["weight_names"]) == 2 + 2 * 6  # iterations, the rate, m and v
    loaded = keras.models.load_model(tmp_path / "m.h5")
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    model.train_on_batch(x, y)
    loaded.train_on_batch(x, y)
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_save_weights_to_h5_writes_keras2s_weights_layout(tmp_path):
    model, x, _ = _fitted()
    model.save_weights(tmp_path / "w.h5")
    with h5py.File(tmp_path / "w.h5", "r") as f:
        assert "layer_names" in f.attrs and "model_weights" not in f
    other = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    other.load_weights(tmp_path / "w.h5")
    np.testing.assert_array_equal(other.predict(x, verbose=0), model.predict(x, verbose=0))


def test_a_mismatched_legacy_file_raises_before_any_change(tmp_path):
    model, x, _ = _fitted()
    model.save_weights(tmp_path / "w.h5")
    wider = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(9, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    before = [w.numpy().copy() for w in wider.weights]
    with pytest.raises(ValueError, match=r"w\.h5.*shape"):
        wider.load_weights(tmp_path / "w.h5")
    shorter = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"w\.h5.*3 layers"):
        shorter.load_weights(tmp_path / "w.h5")
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, wider.weights))


def test_a_damaged_legacy_file_raises_naming_it(tmp_path):
    model, _, _ = _fitted()
    model.save(tmp_path / "m.h5")
    data = bytearray((tmp_path / "m.h5").read_bytes())
    data[len(data) // 2] ^= 0x10
    (tmp_path / "d.h5").write_bytes(bytes(data))
    with pytest.raises(ValueError, match="d.h5"):
        keras.models.load_model(tmp_path / "d.h5")
    (tmp_path / "t.h5").write_bytes(bytes(data[: len(data) // 3]))
    with pytest.raises(ValueError, match="t.h5"):
        keras.models.load_model(tmp_path / "t.h5")
