"""Keras 3's files both ways: .keras, .weights.h5 and the legacy .h5 saved by tapegrad load in Keras 3 on
TensorFlow, and
Keras's load in tapegrad, with the same predictions and, with the optimizer, the same next training step.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1 (then it fails)."""
import importlib
import warnings

import numpy as np
import pytest

from tapegrad import keras as tgk
from tapegrad.keras.saving import _keras_h5
from tf_oracle import import_tensorflow

pytest.importorskip("h5py")
ref = import_tensorflow()
refk = ref.keras

RTOL, ATOL = 1e-5, 1e-6


def _dense_bn(k):
    # No bias before the batch norm: where a unit's relu is active on the whole batch the norm cancels the bias,
    # its gradient is rounding noise, and Adam scales noise up to a step of 1e-4 that differs between any two
    # programs (and between TF's own kernels on two CPUs).
    model = k.Sequential([k.Input((4,)), k.layers.Dense(3, activation="relu", use_bias=False),
                          k.layers.BatchNormalization(), k.layers.Dense(2)])
    model.compile(optimizer=k.optimizers.Adam(0.01), loss="mse")
    rng = np.random.default_rng(0)
    return model, rng.normal(size=(6, 4)).astype("float32"), rng.normal(size=(6, 2)).astype("float32")


def _conv_lstm_embedding(k):
    image, seq, ids = k.Input((5, 5, 1)), k.Input((4, 3)), k.Input((4,), dtype="int32")
    a = k.layers.Flatten()(k.layers.Conv2D(2, 3, activation="relu")(image))
    b = k.layers.LSTM(3)(seq)
    c = k.layers.GlobalAveragePooling1D()(k.layers.Embedding(7, 2)(ids))
    out = k.layers.Dense(1)(k.layers.Concatenate()([a, b, c]))
    model = k.Model([image, seq, ids], out)
    model.compile(optimizer=k.optimizers.SGD(0.05, momentum=0.9), loss="mse")
    rng = np.random.default_rng(1)
    x = [rng.normal(size=(4, 5, 5, 1)).astype("float32"), rng.normal(size=(4, 4, 3)).astype("float32"),
         rng.integers(0, 7, size=(4, 4)).astype("int32")]
    return model, x, rng.normal(size=(4, 1)).astype("float32")


def _lstm_sequential(k):
    model = k.Sequential([k.Input((5, 3)), k.layers.LSTM(4, return_sequences=True), k.layers.LSTM(2),
                          k.layers.Dense(1)])
    model.compile(optimizer=k.optimizers.Adam(0.02), loss="mse")
    rng = np.random.default_rng(2)
    return model, rng.normal(size=(3, 5, 3)).astype("float32"), rng.normal(size=(3, 1)).astype("float32")


def _residual_class(k):
    """The same subclassed model in Keras or tapegrad, registered under the same name in each."""
    saving = k.saving if hasattr(k, "saving") else importlib.import_module("keras").saving  # tf.keras lacks it

    @saving.register_keras_serializable(package="oracle_files")
    class Residual(k.Model):
        def __init__(self, units=4, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.inner = k.layers.Dense(units, activation="tanh")
            self.head = k.layers.Dense(1)

        def call(self, inputs):
            return self.head(self.inner(inputs) + inputs[:, :1])

        def get_config(self):
            return {**super().get_config(), "units": self.units}
    return Residual


RESIDUAL = {}


def _subclassed(k):
    for side in (tgk, refk):  # both registered before either loads a file
        if side.__name__ not in RESIDUAL:
            RESIDUAL[side.__name__] = _residual_class(side)
    cls = RESIDUAL[k.__name__]
    model = cls(units=3)
    model.compile(optimizer=k.optimizers.Adam(0.02), loss="mse")
    rng = np.random.default_rng(3)
    return model, rng.normal(size=(5, 2)).astype("float32"), rng.normal(size=(5, 1)).astype("float32")


def _nested(k):
    """A Sequential inside a functional model (its weights under "layers/sequential/layers/..."), with metrics."""
    inputs = k.Input((5,))
    inner = k.Sequential([k.Input((5,)), k.layers.Dense(4, activation="relu"), k.layers.Dense(4)])
    out = k.layers.Dense(1)(k.layers.Add()([inner(inputs), k.layers.Dense(4)(inputs)]))
    model = k.Model(inputs, out)
    model.compile(optimizer=k.optimizers.RMSprop(0.01, momentum=0.5), loss="mse", metrics=["mae"])
    rng = np.random.default_rng(6)
    return model, rng.normal(size=(3, 5)).astype("float32"), rng.normal(size=(3, 1)).astype("float32")


def _scale_class(k):
    """A custom layer with a weight, registered under the same name in Keras and tapegrad."""
    saving = k.saving if hasattr(k, "saving") else importlib.import_module("keras").saving

    @saving.register_keras_serializable(package="oracle_files")
    class Scale(k.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}
    return Scale


SCALE = {}


def _custom_layer(k):
    for side in (tgk, refk):
        if side.__name__ not in SCALE:
            SCALE[side.__name__] = _scale_class(side)
    inputs = k.Input((4,))
    out = k.layers.Dense(1)(SCALE[k.__name__](factor=0.5)(k.layers.Dense(3, activation="tanh")(inputs)))
    model = k.Model(inputs, out)
    model.compile(optimizer=k.optimizers.Adam(0.02), loss="mse")
    rng = np.random.default_rng(7)
    return model, rng.normal(size=(5, 4)).astype("float32"), rng.normal(size=(5, 1)).astype("float32")


MODELS = {"nested_sequential_in_functional_rmsprop": _nested, "custom_layer_adam": _custom_layer, "dense_bn_adam": _dense_bn,
          "conv_lstm_embedding_sgd": _conv_lstm_embedding,
          "lstm_sequential_adam": _lstm_sequential, "subclassed_registered_adam": _subclassed}


def _keras_writes(write, path):
    """Keras's own writer on TF (its variables' __array__ has no copy argument) warns under NumPy 2."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "__array__ implementation", DeprecationWarning)
        write(path)


def _tg_weights(model):
    """tapegrad's weights in Keras's order (Note [Keras 3 layer order])."""
    if type(model).__name__ != "Functional":
        return model.weights
    return [v for _, _, variables in _keras_h5.layout(model) for v in variables]


def _assert_same_state(tg_model, keras_model, x):
    np.testing.assert_allclose(tg_model.predict(x, verbose=0), keras_model.predict(x, verbose=0), rtol=RTOL,
                               atol=ATOL)
    tg, kw = _tg_weights(tg_model), keras_model.weights
    assert [tuple(v.shape) for v in tg] == [tuple(v.shape) for v in kw]
    for a, b in zip(tg, kw):
        np.testing.assert_allclose(a.numpy(), np.asarray(b), rtol=RTOL, atol=ATOL, err_msg=a.path)


def _next_step_agrees(tg_model, keras_model, x, y):
    assert int(tg_model.optimizer.iterations) == int(keras_model.optimizer.iterations)
    tg_model.train_on_batch(x, y)
    keras_model.train_on_batch(x, y)
    _assert_same_state(tg_model, keras_model, x)


@pytest.mark.parametrize("name", MODELS)
def test_tapegrad_keras_file_loads_in_keras(tmp_path, name):
    model, x, y = MODELS[name](tgk)
    for _ in range(2):
        model.train_on_batch(x, y)
    model.save(tmp_path / "m.keras")
    loaded = refk.models.load_model(tmp_path / "m.keras")
    assert type(loaded).__name__ == type(model).__name__
    _assert_same_state(model, loaded, x)
    _next_step_agrees(model, loaded, x, y)


@pytest.mark.parametrize("name", MODELS)
def test_keras_file_loads_in_tapegrad(tmp_path, name):
    model, x, y = MODELS[name](refk)
    for _ in range(2):
        model.train_on_batch(x, y)
    _keras_writes(model.save, tmp_path / "m.keras")
    loaded = tgk.models.load_model(tmp_path / "m.keras")
    assert type(loaded).__name__ == type(model).__name__
    _assert_same_state(loaded, model, x)
    _next_step_agrees(loaded, model, x, y)


LEGACY = [n for n in MODELS if not n.startswith("subclassed")]  # Keras keeps no subclassed model in .h5


def _legacy(name, k):
    """MODELS[name] compiled with a loss object: Keras 3.15 writes loss="mse" into a legacy .h5 file
    and then cannot read it back ('keras.metrics.mse' is not a KerasSaveable), its own files included."""
    model, x, y = MODELS[name](k)
    model.compile(optimizer=model.optimizer, loss=k.losses.MeanSquaredError())
    return model, x, y


@pytest.mark.parametrize("name", LEGACY)
def test_tapegrad_legacy_h5_loads_in_keras(tmp_path, name):
    model, x, y = _legacy(name, tgk)
    for _ in range(2):
        model.train_on_batch(x, y)
    model.save(tmp_path / "m.h5")
    loaded = refk.models.load_model(tmp_path / "m.h5")
    _assert_same_state(model, loaded, x)
    # Keras 3.15 reads back only iterations and the learning rate of a legacy file's optimizer, and its
    # next train step then refuses the model's variables (its own files too): the state is compared.
    assert int(loaded.optimizer.iterations) == int(model.optimizer.iterations)
    assert type(loaded.optimizer).__name__ == type(model.optimizer).__name__
    assert type(loaded.loss).__name__ == "MeanSquaredError"


@pytest.mark.parametrize("name", LEGACY)
def test_keras_legacy_h5_loads_in_tapegrad(tmp_path, name):
    model, x, y = _legacy(name, refk)
    for _ in range(2):
        model.train_on_batch(x, y)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "You are saving your model as an HDF5 file", UserWarning)
        _keras_writes(model.save, tmp_path / "m.h5")
    loaded = tgk.models.load_model(tmp_path / "m.h5")
    _assert_same_state(loaded, model, x)
    _next_step_agrees(loaded, model, x, y)


@pytest.mark.parametrize("name", MODELS)
def test_weights_files_both_ways(tmp_path, name):
    tg_model, x, y = MODELS[name](tgk)
    keras_model, _, _ = MODELS[name](refk)
    for _ in range(2):
        tg_model.train_on_batch(x, y)
    tg_model.save_weights(tmp_path / "tg.weights.h5")
    keras_model.train_on_batch(x, y)  # builds its optimizer, so the file's slots have somewhere to go
    keras_model.load_weights(tmp_path / "tg.weights.h5")
    _assert_same_state(tg_model, keras_model, x)
    _next_step_agrees(tg_model, keras_model, x, y)
    keras_model.train_on_batch(x, y)
    _keras_writes(keras_model.save_weights, tmp_path / "k.weights.h5")
    fresh, _, _ = MODELS[name](tgk)
    if name.startswith("subclassed"):
        fresh(x)  # a subclassed model has its variables once called, in Keras too
    fresh.load_weights(tmp_path / "k.weights.h5")
    _assert_same_state(fresh, keras_model, x)
    _next_step_agrees(fresh, keras_model, x, y)


# Note [Keras 3 optimizer slots]: each optimizer's state crosses in Keras's slot order
OPTIMIZERS = {
    "adam": lambda k: k.optimizers.Adam(0.01), "adam_amsgrad": lambda k: k.optimizers.Adam(0.01, amsgrad=True),
    "adamw": lambda k: k.optimizers.AdamW(0.01), "adamax": lambda k: k.optimizers.Adamax(0.01),
    "sgd_momentum": lambda k: k.optimizers.SGD(0.01, momentum=0.9), "rmsprop": lambda k: k.optimizers.RMSprop(0.01),
    "rmsprop_centered_momentum": lambda k: k.optimizers.RMSprop(0.01, momentum=0.5, centered=True),
    "adagrad": lambda k: k.optimizers.Adagrad(0.01), "ftrl": lambda k: k.optimizers.Ftrl(0.01),
    "lion": lambda k: k.optimizers.Lion(0.01), "nadam": lambda k: k.optimizers.Nadam(0.01),
    "adafactor": lambda k: k.optimizers.Adafactor(0.01),
}


def _layer_norm(k, optimizer):
    model = k.Sequential([k.Input((5,)), k.layers.Dense(4), k.layers.LayerNormalization(), k.layers.Dense(1)])
    model.compile(optimizer=OPTIMIZERS[optimizer](k), loss="mse")
    return model


@pytest.mark.parametrize("optimizer", OPTIMIZERS)
@pytest.mark.parametrize("direction", ["tapegrad_to_keras", "keras_to_tapegrad"])
def test_optimizer_state_crosses(tmp_path, optimizer, direction):
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=(3, 5)).astype("float32"), rng.normal(size=(3, 1)).astype("float32")
    src, dst = (tgk, refk) if direction == "tapegrad_to_keras" else (refk, tgk)
    model = _layer_norm(src, optimizer)
    for _ in range(2):
        model.train_on_batch(x, y)
    _keras_writes(model.save, tmp_path / "m.keras")
    loaded = dst.models.load_model(tmp_path / "m.keras")
    tg_model, keras_model = (model, loaded) if src is tgk else (loaded, model)
    _assert_same_state(tg_model, keras_model, x)
    _next_step_agrees(tg_model, keras_model, x, y)


@pytest.mark.parametrize("direction", ["tapegrad_to_keras", "keras_to_tapegrad"])
def test_a_learning_rate_schedule_keeps_no_rate_variable(tmp_path, direction):
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(3, 5)).astype("float32"), rng.normal(size=(3, 1)).astype("float32")
    src, dst = (tgk, refk) if direction == "tapegrad_to_keras" else (refk, tgk)
    model = src.Sequential([src.Input((5,)), src.layers.Dense(2)])
    model.compile(optimizer=src.optimizers.Adam(src.optimizers.schedules.ExponentialDecay(0.1, 2, 0.5)), loss="mse")
    for _ in range(3):
        model.train_on_batch(x, y)
    _keras_writes(model.save, tmp_path / "m.keras")
    loaded = dst.models.load_model(tmp_path / "m.keras")
    tg_model, keras_model = (model, loaded) if src is tgk else (loaded, model)
    _assert_same_state(tg_model, keras_model, x)
    _next_step_agrees(tg_model, keras_model, x, y)
