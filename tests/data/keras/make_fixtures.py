"""Makes the Keras 3 files tests/test_keras_files.py loads: run by hand, in a venv with Keras 3 on TensorFlow,
from this folder (python make_fixtures.py). Each model is trained two steps with fixed data and saved;
"<name>.npz" holds the data, the predictions, and the weights after one more train_on_batch, which
tapegrad must reproduce after loading the file."""
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import gzip  # noqa: E402
import zipfile  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402


def deflate(path):
    """Rewrites a .keras zip with its members deflated (Keras stores them; HDF5's empty room compresses
    to almost nothing), so the fixtures stay a few KB. Keras and tapegrad read either."""
    with zipfile.ZipFile(path) as z:
        members = [(n, z.read(n)) for n in z.namelist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in members:
            z.writestr(n, data)


@keras.saving.register_keras_serializable(package="fixtures")
class Residual(keras.Model):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = keras.layers.Dense(units, activation="tanh")
        self.head = keras.layers.Dense(1)

    def call(self, inputs):
        return self.head(self.inner(inputs) + inputs[:, :1])

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def sequential():
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    rng = np.random.default_rng(0)
    return model, rng.normal(size=(6, 4)).astype("float32"), rng.normal(size=(6, 2)).astype("float32")


def functional():
    image, seq, ids = keras.Input((5, 5, 1)), keras.Input((4, 3)), keras.Input((4,), dtype="int32")
    a = keras.layers.Flatten()(keras.layers.Conv2D(2, 3)(image))
    b = keras.layers.LSTM(3)(seq)
    c = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(7, 2)(ids))
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b, c]))
    model = keras.Model([image, seq, ids], out)
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9), loss="mse")
    rng = np.random.default_rng(1)
    x = [rng.normal(size=(4, 5, 5, 1)).astype("float32"), rng.normal(size=(4, 4, 3)).astype("float32"),
         rng.integers(0, 7, size=(4, 4)).astype("int32")]
    return model, x, rng.normal(size=(4, 1)).astype("float32")


def subclassed():
    model = Residual(units=3)
    model.compile(optimizer=keras.optimizers.Adam(0.02), loss="mse")
    rng = np.random.default_rng(2)
    return model, rng.normal(size=(5, 2)).astype("float32"), rng.normal(size=(5, 1)).astype("float32")


def main():
    keras.utils.set_random_seed(0)
    for name, make in (("sequential", sequential), ("functional", functional), ("subclassed", subclassed)):
        model, x, y = make()
        for _ in range(2):
            model.train_on_batch(x, y)
        model.save(f"{name}.keras")
        deflate(f"{name}.keras")
        if name == "sequential":  # gzipped: HDF5's room per group makes it 24 KB, 2 KB compressed
            model.save_weights(f"{name}.weights.h5")
            with open(f"{name}.weights.h5", "rb") as f, gzip.open(f"{name}.weights.h5.gz", "wb") as g:
                g.write(f.read())
            os.remove(f"{name}.weights.h5")
        xs = x if isinstance(x, list) else [x]
        expected = {f"x{i}": v for i, v in enumerate(xs)}
        expected["y"], expected["predictions"] = y, model.predict(x, verbose=0)
        model.train_on_batch(x, y)
        for i, w in enumerate(model.weights):
            expected[f"after{i}"] = np.asarray(w)
        np.savez(f"{name}.npz", **expected)


if __name__ == "__main__":
    main()
