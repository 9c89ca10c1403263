"""Whole-model saving and get_config / from_config of every built-in keras object (one table + loop)."""
import inspect
import json
import os
import pathlib
import tempfile
import zipfile

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

# Constructor arguments for the classes that need some (or where non-defaults make the check stronger).


def _a_saved_model():
    """A SavedModel whose "serve" endpoint takes the (3, 3) sample, for TFSMLayer's row."""
    class Served(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable(np.eye(3, dtype="float32") * 2.0)

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def serve(self, x):
            return tf.matmul(x, self.w)
    path = tempfile.mkdtemp(prefix="tfsm_layer_")
    tf.saved_model.save(Served(), path)
    return path


ARGS = {
    "layers.TFSMLayer": dict(filepath=_a_saved_model(), call_endpoint="serve"),
    "layers.Dense": dict(units=3, activation="relu", kernel_initializer=keras.initializers.HeNormal(seed=1),
                         kernel_regularizer=keras.regularizers.L2(0.1), kernel_constraint="max_norm",
                         name="dense_config"),
    "layers.Activation": dict(activation=keras.activations.tanh),
    "layers.Dropout": dict(rate=0.25, seed=3),
    "layers.AlphaDropout": dict(rate=0.2, noise_shape=(None, 1), seed=2),
    "layers.GaussianNoise": dict(stddev=0.1, seed=1),
    "layers.GaussianDropout": dict(rate=0.2, seed=1),
    **{f"layers.SpatialDropout{n}D": dict(rate=0.2, seed=1) for n in (1, 2, 3)},
    "layers.BatchNormalization": dict(momentum=0.9, epsilon=1e-2),
    "layers.InputLayer": dict(shape=(4,)),
    "layers.ReLU": dict(max_value=2.0, negative_slope=0.1, threshold=0.5),
    "layers.LeakyReLU": dict(negative_slope=0.2),
    "layers.PReLU": dict(alpha_initializer=keras.initializers.Constant(0.25), shared_axes=[1]),
    "layers.ELU": dict(alpha=0.5),
    "layers.Softmax": dict(axis=0),
    "layers.LayerNormalization": dict(epsilon=1e-2, center=False),
    "layers.GroupNormalization": dict(groups=3, epsilon=1e-2),
    "layers.Permute": dict(dims=(2, 1)),
    "layers.RepeatVector": dict(n=2),
    "layers.Embedding": dict(input_dim=10, output_dim=2, embeddings_initializer=keras.initializers.RandomNormal(seed=1)),
    "layers.Lambda": dict(function=tf.math.square),
    "layers.Attention": dict(use_scale=True, score_mode="concat", dropout=0.1, seed=2),
    "layers.AdditiveAttention": dict(use_scale=False, dropout=0.1, seed=2),
    "layers.Concatenate": dict(axis=0),
    "layers.Dot": dict(axes=1, normalize=True),
    "layers.TimeDistributed": dict(layer=keras.layers.Dense(2, kernel_initializer="ones")),
    "layers.Wrapper": dict(layer=keras.layers.Dense(2, kernel_initializer="ones")),
    "layers.RMSNormalization": dict(axis=-1, epsilon=1e-3),
    "layers.UnitNormalization": dict(axis=[1]),
    "optimizers.SGD": dict(learning_rate=0.05, momentum=0.9, nesterov=True, clipnorm=1.0),
    "optimizers.Adam": dict(learning_rate=keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5), amsgrad=True),
    "optimizers.LossScaleOptimizer": dict(inner_optimizer=keras.optimizers.SGD(0.1), initial_scale=64.0,
                                          dynamic_growth_steps=10),
    "optimizers.schedules.ExponentialDecay": dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5),
    "optimizers.schedules.InverseTimeDecay": dict(initial_learning_rate=0.1, decay_steps=10, decay_rate=0.5),
    "optimizers.schedules.PiecewiseConstantDecay": dict(boundaries=[2, 4], values=[0.3, 0.2, 0.1]),
    "optimizers.schedules.CosineDecay": dict(initial_learning_rate=0.1, decay_steps=10, alpha=0.1),
    "losses.LossFunctionWrapper": dict(fn=keras.losses.mean_squared_error),
    "losses.Huber": dict(delta=0.5, reduction="sum"),
    "losses.BinaryCrossentropy": dict(from_logits=True, label_smoothing=0.1),
    "metrics.MeanMetricWrapper": dict(fn=keras.losses.mean_absolute_error),
    "metrics.BinaryAccuracy": dict(threshold=0.7),
    "metrics.Reduce": dict(reduction="sum"),
    "metrics.MeanIoU": dict(num_classes=3, ignore_class=0),
    "metrics.Precision": dict(thresholds=[0.2, 0.6], class_id=1),
    "metrics.AUC": dict(num_thresholds=50, curve="PR"),
    "metrics.TopKCategoricalAccuracy": dict(k=2),
    "initializers.Constant": dict(value=0.5),
    "initializers.RandomNormal": dict(mean=1.0, stddev=2.0, seed=7),
    "initializers.VarianceScaling": dict(scale=2.0, mode="fan_out", distribution="uniform", seed=2),
    "initializers.Orthogonal": dict(gain=2.0, seed=4),
    "regularizers.L1L2": dict(l1=0.1, l2=0.2),
    "regularizers.OrthogonalRegularizer": dict(factor=0.5, mode="columns"),
    "constraints.MaxNorm": dict(max_value=1.5, axis=1),
    "constraints.MinMaxNorm": dict(min_value=0.5, max_value=1.0, rate=0.5),
    **{f"layers.{name}": dict(filters=2, kernel_size=2, padding="same", name=f"{name.lower()}_config")
       for name in ("Conv1D", "Conv2D", "Conv2DTranspose", "SeparableConv2D")},
    "layers.DepthwiseConv2D": dict(kernel_size=2, depth_multiplier=2),
    "layers.Reshape": dict(target_shape=[3, 1]),
    **{f"layers.{name}": dict(units=2) for name in ("SimpleRNNCell", "LSTMCell", "GRUCell", "SimpleRNN", "LSTM", "GRU")},
    "layers.RNN": dict(cell=keras.layers.LSTMCell(2)),
    "layers.Bidirectional": dict(layer=keras.layers.GRU(2)),
    "layers.MultiHeadAttention": dict(num_heads=2, key_dim=2, value_dim=3, dropout=0.1, output_shape=4),
    # preprocessing layers (keras/layers/preprocessing/)
    "layers.Rescaling": dict(scale=0.5, offset=1.0),
    "layers.Normalization": dict(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 9.0]),
    "layers.CategoryEncoding": dict(num_tokens=5, output_mode="count"),
    "layers.Discretization": dict(bin_boundaries=[0.0, 1.0]),
    "layers.Hashing": dict(num_bins=3, salt=5),
    **{f"layers.{name}": dict(height=2, width=2) for name in ("Resizing", "CenterCrop")},
    "layers.RandomCrop": dict(height=3, width=3, seed=1),  # a 3x3 image: one window only
    "layers.RandomFlip": dict(mode="horizontal", seed=1),
    "layers.RandomContrast": dict(factor=0.5, seed=1),
    "layers.RandomBrightness": dict(factor=(0.1, 0.2), seed=1),
    "layers.RandomRotation": dict(factor=0.2, seed=1),
    "layers.RandomZoom": dict(height_factor=0.2, seed=1),
    "layers.RandomTranslation": dict(height_factor=0.2, width_factor=0.1, seed=1),
    "layers.StringLookup": dict(vocabulary=["-1", "0", "1"], output_mode="count"),
    "layers.IntegerLookup": dict(vocabulary=[0, 1, 2], num_oov_indices=2),
    "layers.TextVectorization": dict(vocabulary=["1", "2"], output_sequence_length=2),
}
# What a layer is called on in the round trip, when not the 3x3 sample x itself.
_MERGE = ("Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate", "Dot")
CALL_ON = {**{f"layers.{name}": (lambda x: [x, x * 2.0]) for name in _MERGE},
           "layers.Permute": lambda x: tf.reshape(x, [3, 3, 1]),
           "layers.SpatialDropout1D": lambda x: tf.reshape(x, [3, 3, 1]),
           "layers.SpatialDropout2D": lambda x: tf.reshape(x, [1, 3, 3, 1]),
           "layers.SpatialDropout3D": lambda x: tf.reshape(x, [1, 3, 3, 1, 1]),
           "layers.TimeDistributed": lambda x: tf.reshape(x, [3, 3, 1]),
           "layers.Embedding": lambda x: tf.cast(tf.abs(x), tf.int32),
           "layers.MultiHeadAttention": lambda x: (tf.reshape(x, [1, 3, 3]), tf.reshape(x, [1, 3, 3]) * 0.5),
           "layers.Attention": lambda x: [tf.reshape(x, [1, 3, 3]), tf.reshape(x, [1, 3, 3]) * 0.5],
           "layers.AdditiveAttention": lambda x: [tf.reshape(x, [1, 3, 3]), tf.reshape(x, [1, 3, 3]) * 0.5],
           # preprocessing layers: images, integer ids, strings; the random layers get inputs their draws
           # leave unchanged (a constant image; one at the top of value_range), so a clone computes the same
           **{f"layers.{name}": lambda x: tf.reshape(x, [1, 3, 3, 1])
              for name in ("Resizing", "CenterCrop", "RandomCrop")},
           **{f"layers.{name}": lambda x: tf.ones([1, 3, 3, 2]) * 7.0 for name in ("RandomFlip", "RandomContrast",
                                                                                "RandomRotation", "RandomZoom",
                                                                                "RandomTranslation")},
           "layers.RandomBrightness": lambda x: tf.ones([1, 3, 3, 1]) * 255.0,
           "layers.CategoryEncoding": lambda x: tf.cast(tf.abs(x), tf.int32),
           "layers.IntegerLookup": lambda x: tf.cast(x, tf.int64),
           "layers.StringLookup": lambda x: tf.strings.as_string(tf.cast(x, tf.int64)),
           "layers.TextVectorization": lambda x: tf.strings.as_string(tf.cast(tf.reshape(x, [9]), tf.int64)),
           # convolution, pooling and 2-D reshaping layers: a (3, 3, 1) sequence batch or a 3x3 image
           **{f"layers.{name}": lambda x: tf.reshape(x, [3, 3, 1]) for name in (
               "SimpleRNN", "LSTM", "GRU", "RNN", "Bidirectional", "Conv1D", "MaxPooling1D", "AveragePooling1D", "GlobalAveragePooling1D", "GlobalMaxPooling1D")},
           **{f"layers.{name}": lambda x: tf.reshape(x, [1, 3, 3, 1]) for name in (
               "Conv2D", "Conv2DTranspose", "DepthwiseConv2D", "SeparableConv2D", "MaxPooling2D", "AveragePooling2D",
               "GlobalAveragePooling2D", "GlobalMaxPooling2D", "ZeroPadding2D", "UpSampling2D", "Cropping2D")}}
SPACES = ["layers", "optimizers", "optimizers.schedules", "losses", "metrics", "initializers", "regularizers",
          "constraints"]


def _builtins():
    """(path, class) of every public class in the namespaces that has a config (derived, not a hand list)."""
    out = []
    for space in SPACES:
        module = keras
        for part in space.split("."):
            module = getattr(module, part)
        for name in module.__all__:
            cls = getattr(module, name)
            if inspect.isclass(cls) and hasattr(cls, "get_config") and cls.__name__ == name:
                out.append((f"{space}.{name}", cls))
    return out


BUILTINS = _builtins()


def _behaviour(obj, x):
    """What the object computes on a sample (to compare an object with its clone)."""
    if type(obj).__name__ in ("Initializer", "Regularizer", "Constraint", "LearningRateSchedule", "Loss"):
        return None  # the abstract base classes compute nothing
    if isinstance(obj, keras.initializers.Initializer):
        return obj((3, 3)).numpy() if obj.get_config().get("seed", 0) is not None else None  # seeded only
    if isinstance(obj, (keras.regularizers.Regularizer, keras.constraints.Constraint)):
        return np.asarray(obj(x))
    if isinstance(obj, keras.optimizers.schedules.LearningRateSchedule):
        return [float(obj(s)) for s in (0, 3, 12)]
    if isinstance(obj, keras.layers.Layer) and type(obj).__name__.endswith("Cell"):
        return None  # a cell computes one step from (inputs, states): its layers are compared instead
    if isinstance(obj, keras.layers.Layer):
        return (obj(*x) if isinstance(x, tuple) else obj(x)).numpy()  # a tuple: several positional inputs
    if isinstance(obj, keras.losses.Loss) and "Sparse" in type(obj).__name__:
        return float(obj(tf.constant([1]), tf.constant([[0.3, 0.7]])))
    if isinstance(obj, keras.losses.Loss):
        return float(obj(tf.constant([[0.0, 1.0]]), tf.constant([[0.2, 0.7]])))
    return None


def test_the_table_covers_every_namespace():
    spaces = {path.rsplit(".", 1)[0] for path, _ in BUILTINS}
    assert spaces == set(SPACES)
    assert len(BUILTINS) > 50
    assert set(ARGS) <= {path for path, _ in BUILTINS}  # no stale row


@pytest.mark.parametrize("path,cls", BUILTINS, ids=[p for p, _ in BUILTINS])
def test_get_config_from_config_round_trip(path, cls):
    try:
        obj = cls(**ARGS.get(path, {}))
    except TypeError as e:  # a new class with required arguments: give it a row
        pytest.fail(f"{path}: add its constructor arguments to ARGS in tests/io/test_model_saving.py ({e})")
    config = obj.get_config()
    assert json.loads(json.dumps(config)) == config  # JSON-ready
    for key, value in ARGS.get(path, {}).items():
        assert key in config, f"{path}: get_config lacks the constructor argument {key!r}"
    clone = cls.from_config(json.loads(json.dumps(config)))
    assert type(clone) is cls
    assert clone.get_config() == config
    x = tf.constant(np.arange(-4.0, 5.0, dtype=np.float32).reshape(3, 3))
    x = CALL_ON.get(path, lambda v: v)(x)
    if isinstance(obj, keras.layers.Layer) and type(obj) is not keras.layers.Layer and not path.endswith("Cell"):
        for layer in (obj, clone):
            layer(*x) if isinstance(x, tuple) else layer(x)
        clone.set_weights(obj.get_weights())
    a, b = _behaviour(obj, x), _behaviour(clone, x)
    if a is not None:
        np.testing.assert_allclose(a, b)


def test_serialize_gives_keras_3_dicts():
    s = keras.saving.serialize_keras_object(keras.layers.Dense(2, name="d_ser"))
    assert s["class_name"] == "Dense" and s["config"]["units"] == 2 and s["config"]["name"] == "d_ser"
    layer = keras.saving.deserialize_keras_object(s)
    assert isinstance(layer, keras.layers.Dense) and layer.units == 2
    as_keras = dict(s, module="keras.layers")  # the module name Keras writes finds the same class
    assert isinstance(keras.saving.deserialize_keras_object(as_keras), keras.layers.Dense)
    with pytest.raises(TypeError, match="Could not locate class 'Nothing'"):
        keras.saving.deserialize_keras_object({"class_name": "Nothing", "config": {}, "module": "mine"})


def test_functions_serialize_by_public_name_and_only_tapegrad_modules_are_imported():
    s = keras.saving.serialize_keras_object(keras.layers.Dense(2, activation=tf.nn.relu))
    assert s["config"]["activation"]["module"] == "tapegrad.nn"
    assert keras.saving.deserialize_keras_object(s).activation is tf.nn.relu
    with pytest.raises(TypeError, match="Could not locate function 'system'"):
        keras.saving.deserialize_keras_object({"class_name": "function", "config": "system", "module": "os"})

    @keras.saving.register_keras_serializable(package="tests")
    def doubled(x):
        return 2 * x
    s = keras.saving.serialize_keras_object(keras.layers.Activation(doubled))
    assert s["config"]["activation"]["registered_name"] == "tests>doubled"
    assert keras.saving.deserialize_keras_object(s).activation is doubled


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    return x, (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)


def _assert_same(model, loaded, x):
    for a, b in zip(model.weights, loaded.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_allclose(model.predict(x, verbose=0), loaded.predict(x, verbose=0), rtol=1e-6)


def test_sequential_round_trip_with_optimizer_state(tmp_path):
    x, y = _data()
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(8, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assert {"config.json", "metadata.json", "model.weights.h5"} <= set(z.namelist())  # Keras 3's layout
    loaded = keras.models.load_model(path)
    assert isinstance(loaded, keras.Sequential) and [type(l) for l in loaded.layers] == [type(l) for l in model.layers]
    _assert_same(model, loaded, x)
    assert isinstance(loaded.optimizer, keras.optimizers.Adam) and float(loaded.optimizer.learning_rate) == pytest.approx(0.01)
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # training continues identically from the restored state
    model.fit(x, y, epochs=1, batch_size=32, shuffle=False, verbose=0)
    loaded.fit(x, y, epochs=1, batch_size=32, shuffle=False, verbose=0)
    _assert_same(model, loaded, x)
    assert loaded.metrics_names == model.metrics_names


def test_sequential_built_on_first_call_and_uncompiled(tmp_path):
    x, _ = _data()
    model = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(2)])
    model(x)
    model.save(tmp_path / "u.keras")
    loaded = keras.models.load_model(tmp_path / "u.keras", compile=False)
    _assert_same(model, loaded, x)
    assert not loaded.compiled


@keras.saving.register_keras_serializable(package="tests")
class Residual(keras.Model):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.inner = keras.layers.Dense(units, activation="tanh")
        self.out = keras.layers.Dense(1)

    def call(self, inputs, training=None):
        return self.out(self.inner(inputs) + inputs[:, :1])


class Unregistered(keras.Model):
    def __init__(self):
        super().__init__()
        self.d = keras.layers.Dense(1)

    def call(self, inputs):
        return self.d(inputs)


def test_subclassed_model_registered_and_through_custom_objects(tmp_path):
    x, y = _data()
    model = Residual(units=5)
    model.compile(optimizer="sgd", loss=keras.losses.MeanSquaredError())
    model.fit(x, y, epochs=1, verbose=0)
    model.save(tmp_path / "r.keras")
    loaded = keras.models.load_model(tmp_path / "r.keras")
    assert isinstance(loaded, Residual) and loaded.units == 5
    _assert_same(model, loaded, x)
    assert isinstance(loaded.loss, keras.losses.MeanSquaredError)

    plain = Unregistered()
    plain(x)
    plain.save(tmp_path / "p.keras")
    with pytest.raises(TypeError, match="Unregistered.*register_keras_serializable"):
        keras.models.load_model(tmp_path / "p.keras")
    loaded = keras.models.load_model(tmp_path / "p.keras", custom_objects={"Unregistered": Unregistered})
    _assert_same(plain, loaded, x)


def test_bad_model_files_raise_clear_errors(tmp_path):
    x, _ = _data()
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    good = tmp_path / "g.keras"
    model.save(good)
    with pytest.raises(ValueError, match=r"\.keras"):
        model.save(tmp_path / "m.pb")
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(tmp_path / "none.keras")
    truncated = tmp_path / "t.keras"
    truncated.write_bytes(good.read_bytes()[:100])
    with pytest.raises(ValueError, match="t.keras"):
        keras.models.load_model(truncated)
    # a weight of another shape: the error names it
    other = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}
    config = json.loads(members["config.json"])
    config["config"]["layers"][1]["config"]["units"] = 3
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "s.keras", "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    with pytest.raises(ValueError, match="s.keras.*shape"):
        keras.models.load_model(tmp_path / "s.keras")
    del other


def test_a_failed_save_keeps_the_previous_file(tmp_path, monkeypatch):
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    path = tmp_path / "m.keras"
    model.save(path)
    before = path.read_bytes()

    def fail(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(zipfile.ZipFile, "writestr", fail)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["m.keras"]


def test_save_weights_is_atomic_too(tmp_path, monkeypatch):
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    path = tmp_path / "w.weights.npz"
    model.save_weights(path)
    before = pathlib.Path(path).read_bytes()
    monkeypatch.setattr(np, "savez", lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        model.save_weights(path)
    monkeypatch.undo()
    assert path.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["w.weights.npz"]


def test_h5_without_h5py_says_how_to_install_it(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "h5py", None)  # as if the h5 extra were not installed
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    with pytest.raises(ImportError, match=r"tapegrad\[h5\]"):
        model.save(tmp_path / "m.h5")
    assert not list(tmp_path.iterdir())  # nothing half-written
