"""Keras 3 (TensorFlow's tf.keras) and tapegrad.keras side by side: the noise and regularization layers
(signatures, configs, the identity at inference, the deterministic parts of the noise, statistics, losses),
the loss/metric function aliases, keras.preprocessing.image on the same files, RNN get_initial_state and
set_random_seed. Random draws differ between the libraries, so noise is compared by its statistics and
by the values the formulas fix. Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1.

The layers are Keras 3's keras.layers; tf.keras.layers holds the same classes but for AlphaDropout, a
legacy class (no noise_shape in its config, rates outside [0, 1] accepted) whose values are the same."""
import inspect
import io
import random
import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import keras as tk
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as rk  # noqa: E402 -- Keras 3, which TensorFlow 2.16+ brings

NOISE = ["AlphaDropout", "GaussianNoise", "GaussianDropout", "SpatialDropout1D", "SpatialDropout2D",
         "SpatialDropout3D", "ActivityRegularization"]
# constructor arguments of one instance each, and an input shape it takes
ARGS = {"AlphaDropout": (dict(rate=0.3, noise_shape=(None, 1), seed=4), (40, 50)),
        "GaussianNoise": (dict(stddev=0.2, seed=1), (40, 50)),
        "GaussianDropout": (dict(rate=0.4), (40, 50)),
        "SpatialDropout1D": (dict(rate=0.25, seed=3), (200, 5, 8)),
        "SpatialDropout2D": (dict(rate=0.25, data_format="channels_first"), (200, 8, 3, 4)),
        "SpatialDropout3D": (dict(rate=0.5), (200, 2, 3, 4, 8)),
        "ActivityRegularization": (dict(l1=0.01, l2=0.2), (40, 50))}


def _params(cls):
    return {n: p.default for n, p in inspect.signature(cls.__init__).parameters.items()
            if n != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


@pytest.mark.parametrize("name", NOISE)
def test_signature_and_config_match_keras(name):
    ours, theirs = getattr(tk.layers, name), getattr(rk.layers, name)
    assert _params(ours) == _params(theirs)
    kwargs, _ = ARGS[name]
    c_ours, c_theirs = ours(**kwargs, name="n").get_config(), theirs(**kwargs, name="n").get_config()
    c_theirs.pop("dtype"), c_ours.pop("dtype")  # Keras gives a DTypePolicy dict, tapegrad its name
    c_ours.pop("trainable") if "trainable" not in c_theirs else None
    assert c_ours == {k: list(v) if isinstance(v, tuple) else v for k, v in c_theirs.items()}  # tapegrad: JSON lists


@pytest.mark.parametrize("name", NOISE)
def test_inference_and_zero_rate_are_the_identity_in_both(name):
    kwargs, shape = ARGS[name]
    x = np.random.default_rng(0).normal(size=shape).astype("float32")
    for lib in (tk, rk):
        layer = getattr(lib.layers, name)(**kwargs)
        np.testing.assert_array_equal(np.asarray(layer(x)), x)
        np.testing.assert_array_equal(np.asarray(layer(x, training=False)), x)
        if name != "ActivityRegularization":
            zero = {**kwargs, ("stddev" if name == "GaussianNoise" else "rate"): 0.0}
            np.testing.assert_array_equal(np.asarray(getattr(lib.layers, name)(**zero)(x, training=True)), x)


@pytest.mark.parametrize("keras_class", [rk.layers.AlphaDropout, ref.keras.layers.AlphaDropout],
                         ids=["keras.layers", "tf.keras.layers"])
@pytest.mark.parametrize("rate", [0.1, 0.5])
def test_alpha_dropout_values_match_where_both_keep_or_both_drop(rate, keras_class):
    x = np.linspace(-3, 3, 40000, dtype="float32").reshape(200, 200)
    ours = tk.layers.AlphaDropout(rate)(x, training=True).numpy()
    theirs = np.asarray(keras_class(rate)(x, training=True))
    values, counts = np.unique(ours, return_counts=True)
    dropped = values[counts.argmax()]  # a alpha' + b, the one value every dropped entry takes
    assert (theirs == dropped).sum() == np.unique(theirs, return_counts=True)[1].max()  # theirs too
    kept_ours, kept_theirs = ours != dropped, theirs != dropped
    both = kept_ours & kept_theirs
    np.testing.assert_array_equal(ours[both], theirs[both])  # a x + b, bit for bit
    assert abs(kept_ours.mean() - kept_theirs.mean()) < 0.015 and abs(kept_ours.mean() - (1 - rate)) < 0.015


def test_alpha_dropout_statistics_match():
    z = np.random.default_rng(1).standard_normal((400, 500)).astype("float32")
    ours = tk.layers.AlphaDropout(0.3)(z, training=True).numpy()
    theirs = np.asarray(rk.layers.AlphaDropout(0.3)(z, training=True))
    assert abs(ours.mean() - theirs.mean()) < 0.015 and abs(ours.std() - theirs.std()) < 0.015


@pytest.mark.parametrize("name,arg", [("GaussianNoise", 0.3), ("GaussianDropout", 0.3), ("GaussianDropout", 0.6)])
def test_gaussian_noise_statistics_match(name, arg):
    x = np.full((400, 500), 2.0, "float32")
    ours = getattr(tk.layers, name)(arg)(x, training=True).numpy()
    theirs = np.asarray(getattr(rk.layers, name)(arg)(x, training=True))
    mean_tol = 6 * theirs.std() / np.sqrt(x.size)  # six standard errors of a difference of means
    assert abs(ours.mean() - theirs.mean()) < mean_tol and abs(ours.std() / theirs.std() - 1) < 0.01


@pytest.mark.parametrize("name", ["SpatialDropout1D", "SpatialDropout2D", "SpatialDropout3D"])
def test_spatial_dropout_masks_have_keras_structure(name):
    kwargs, shape = ARGS[name]
    x = np.ones(shape, "float32")
    channel = 1 if kwargs.get("data_format") == "channels_first" else len(shape) - 1
    spatial = tuple(a for a in range(1, len(shape)) if a != channel)
    outs = [np.asarray(getattr(lib.layers, name)(**kwargs)(x, training=True)) for lib in (tk, rk)]
    for out in outs:
        np.testing.assert_array_equal(out.min(axis=spatial), out.max(axis=spatial))
    assert set(np.unique(outs[0])) == set(np.unique(outs[1]))
    assert abs((outs[0] == 0).mean() - (outs[1] == 0).mean()) < 0.1  # 1600 channels: over 5 standard errors
    inf = np.where(np.arange(x.size).reshape(shape) % 2, np.inf, 1.0).astype("float32")
    for lib in (tk, rk):  # rate 1: zeros, even for infinite inputs
        np.testing.assert_array_equal(np.asarray(getattr(lib.layers, name)(**{**kwargs, "rate": 1.0})(
            inf, training=True)), 0)


@pytest.mark.parametrize("name,bad", [("AlphaDropout", 1.5), ("GaussianNoise", 2.0), ("GaussianDropout", -0.1),
                                      ("SpatialDropout1D", 1.1)])
def test_out_of_range_arguments_are_refused_by_both(name, bad):
    for lib in (tk, rk):
        with pytest.raises(ValueError):
            getattr(lib.layers, name)(bad)


@pytest.mark.parametrize("name", ["AlphaDropout", "GaussianDropout"])
def test_rate_one_fails_in_training_in_both(name):
    x = np.ones((2, 3), "float32")
    for lib in (tk, rk):
        layer = getattr(lib.layers, name)(1.0)
        np.testing.assert_array_equal(np.asarray(layer(x)), x)
        with pytest.raises(Exception):
            layer(x, training=True)


def test_spatial_dropout_rank_errors_match():
    for lib in (tk, rk):
        with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
            lib.layers.SpatialDropout2D(0.5)(np.ones((2, 3, 4), "float32"))


def test_activity_regularization_losses_match():
    x = np.random.default_rng(2).normal(size=(6, 5)).astype("float32")
    for training in (True, False):
        values = []
        for lib in (tk, rk):
            layer = lib.layers.ActivityRegularization(l1=0.1, l2=0.03)
            layer(x, training=training) if lib is tk else layer(x)
            values.append([float(v) for v in layer.losses])
        np.testing.assert_allclose(values[0], values[1], rtol=1e-6)


def test_activity_regularization_in_evaluate_and_fit_matches():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(12, 4)).astype("float32"), rng.normal(size=(12, 2)).astype("float32")
    w = [rng.normal(size=(4, 2)).astype("float32"), np.zeros(2, "float32")]
    results = []
    for lib in (tk, rk):
        model = lib.Sequential([lib.Input((4,)), lib.layers.Dense(2), lib.layers.ActivityRegularization(0.05, 0.1)])
        model.set_weights(w)
        model.compile(loss="mse", optimizer=lib.optimizers.SGD(0.1))
        before = model.evaluate(x, y, verbose=0, batch_size=4)
        losses = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0).history["loss"]
        results.append((before, losses, model.get_weights()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-5)
    for a, b in zip(results[0][2], results[1][2]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- loss and metric aliases
def _keras3_modules():
    return {"losses": (rk.losses, ref.keras.losses), "metrics": (rk.metrics, ref.keras.metrics)}


@pytest.mark.parametrize("module", ["losses", "metrics"])
def test_every_keras_alias_of_an_implemented_function_is_there(module):
    """Every function name of keras.<module> (Keras 3) and tf.keras.<module> whose function tapegrad has."""
    ours = getattr(tk, module)
    checked = set()
    for theirs in _keras3_modules()[module]:
        for name in dir(theirs):
            fn = getattr(theirs, name)
            if name.startswith("_") or inspect.isclass(fn) or not callable(fn) or name in (
                    "get", "serialize", "deserialize"):
                continue
            target = getattr(ours, fn.__name__, None) or getattr(tk.losses, fn.__name__, None)
            if target is None:  # not implemented in tapegrad (kl_divergence, log_cosh, poisson, hinge, ...)
                continue
            assert getattr(ours, name, None) is target, f"keras.{module}.{name} -> {fn.__name__}"
            checked.add(name)
    assert {"mse", "MSE", "mae", "mape", "msle", "mean_squared_error"} <= checked


def test_alias_values_match():
    rng = np.random.default_rng(4)
    y, p = rng.uniform(0.1, 2, (5, 3)).astype("float32"), rng.uniform(0.1, 2, (5, 3)).astype("float32")
    for module in ("losses", "metrics"):
        for name in ("mse", "MAE", "mape", "msle"):
            np.testing.assert_allclose(getattr(getattr(tk, module), name)(y, p).numpy(),
                                       np.asarray(getattr(getattr(ref.keras, module), name)(y, p)), rtol=1e-5)


def test_get_by_alias_matches():
    for name in ("mse", "MSE", "mae", "MAE", "mape", "MAPE", "msle", "MSLE"):
        assert tk.losses.get(name).__name__ == rk.losses.get(name).__name__
        assert type(tk.metrics.get(name)).__name__ == type(rk.metrics.get(name)).__name__
    keys = []
    for lib in (tk, rk):
        model = lib.Sequential([lib.Input((3,)), lib.layers.Dense(1)])
        model.compile("sgd", "mse", metrics=["msle", "MSE", "mean_squared_logarithmic_error", "mape"])
        keys.append(set(model.fit(np.ones((4, 3)), np.ones((4, 1)), verbose=0).history))
    assert keys[0] == keys[1]


# ---- keras.preprocessing.image on the same files
@pytest.fixture(scope="module")
def image_files(tmp_path_factory):
    Image = pytest.importorskip("PIL.Image")
    d = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(5)
    Image.fromarray(rng.integers(0, 256, (13, 17, 3), dtype="uint8")).save(d / "rgb.png")
    Image.fromarray(rng.integers(0, 256, (7, 9, 4), dtype="uint8"), "RGBA").save(d / "rgba.png")
    Image.fromarray(rng.integers(0, 256, (7, 9), dtype="uint8")).save(d / "gray.png")
    Image.fromarray(rng.integers(0, 65535, (7, 9), dtype="uint16")).save(d / "gray16.png")
    Image.fromarray(rng.integers(0, 256, (7, 9, 3), dtype="uint8")).convert("P").save(d / "palette.png")
    Image.fromarray(rng.integers(0, 256, (8, 6, 3), dtype="uint8")).save(d / "rgb.jpg")
    return d


def _same_image(a, b):
    return a.mode == b.mode and a.size == b.size and np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("file", ["rgb.png", "rgba.png", "gray.png", "gray16.png", "palette.png", "rgb.jpg"])
def test_load_img_matches(image_files, file):
    path = image_files / file
    for color_mode in ("rgb", "rgba", "grayscale"):
        for target_size in (None, (4, 5), (7, 9), (20, 11), (1, 3)):
            for interpolation in ("nearest", "bilinear", "bicubic", "lanczos", "box", "hamming"):
                for keep in (False, True):
                    args = dict(color_mode=color_mode, target_size=target_size, interpolation=interpolation,
                                keep_aspect_ratio=keep)
                    assert _same_image(tk.preprocessing.image.load_img(path, **args),
                                       rk.preprocessing.image.load_img(path, **args)), args
    data = path.read_bytes()
    assert _same_image(tk.preprocessing.image.load_img(io.BytesIO(data)),
                       rk.preprocessing.image.load_img(io.BytesIO(data)))


@pytest.mark.parametrize("shape", [(4, 5, 3), (4, 5, 4), (4, 5, 1), (3, 4, 5)])
def test_array_to_img_and_back_match(image_files, shape):
    rng = np.random.default_rng(6)
    for lo, hi in ((-1, 3), (0, 1), (0, 255), (0, 1000), (5, 5)):
        x = rng.uniform(lo, hi, shape)
        for data_format in ("channels_last", "channels_first"):
            for scale in (True, False):
                outs = []
                for lib in (tk, rk):
                    try:
                        outs.append(lib.preprocessing.image.array_to_img(x, data_format=data_format, scale=scale))
                    except ValueError as e:
                        outs.append(str(e))
                if isinstance(outs[0], str) or isinstance(outs[1], str):
                    assert outs[0] == outs[1]
                    continue
                assert _same_image(*outs), (lo, hi, data_format, scale)
                for back_format in ("channels_last", "channels_first"):
                    for dtype in (None, "float64", "uint8"):
                        a = tk.preprocessing.image.img_to_array(outs[0], back_format, dtype)
                        b = rk.preprocessing.image.img_to_array(outs[1], back_format, dtype)
                        assert a.dtype == b.dtype and np.array_equal(a, b)


def test_save_img_writes_the_same_bytes(image_files, tmp_path):
    rng = np.random.default_rng(7)
    for shape in ((4, 5, 3), (4, 5, 4), (4, 5, 1)):
        x = rng.uniform(0, 1, shape)
        for ext in ("png", "jpg", "bmp"):
            caught = []
            for lib, stem in ((tk, "ours"), (rk, "theirs")):
                with warnings.catch_warnings(record=True) as seen:
                    warnings.simplefilter("always")
                    lib.preprocessing.image.save_img(tmp_path / f"{stem}.{ext}", x, quality=80) if ext == "jpg" \
                        else lib.preprocessing.image.save_img(tmp_path / f"{stem}.{ext}", x)
                caught.append([str(w.message) for w in seen if "JPEG" in str(w.message)])
            assert caught[0] == caught[1]
            assert (tmp_path / f"ours.{ext}").read_bytes() == (tmp_path / f"theirs.{ext}").read_bytes()


def test_image_errors_match(image_files):
    cases = [lambda m: m.load_img(3), lambda m: m.load_img(image_files / "rgb.png", color_mode="RGB"),
             lambda m: m.load_img(image_files / "rgb.png", target_size=(2, 2), interpolation="area"),
             lambda m: m.array_to_img(np.ones((2, 2))), lambda m: m.array_to_img(np.ones((2, 2, 2))),
             lambda m: m.img_to_array(np.ones(3)), lambda m: m.array_to_img(np.ones((2, 2, 3)), data_format="x")]
    for case in cases:
        errors = []
        for module in (tk.preprocessing.image, rk.preprocessing.image):
            with pytest.raises((TypeError, ValueError)) as e:
                case(module)
            errors.append((type(e.value), str(e.value)))
        assert errors[0] == errors[1]


# ---- RNN get_initial_state
def test_get_initial_state_signatures_match():
    for name in ("SimpleRNNCell", "GRUCell", "LSTMCell"):
        ours = inspect.signature(getattr(tk.layers, name).get_initial_state).parameters
        theirs = inspect.signature(getattr(rk.layers, name).get_initial_state).parameters
        assert list(ours)[:2] == list(theirs) and ours["batch_size"].default is theirs["batch_size"].default
    for lib in (tk, rk):
        states = lib.layers.LSTM(3).get_initial_state(batch_size=2)
        assert [tuple(s.shape) for s in states] == [(2, 3), (2, 3)] and not any(np.asarray(s).any() for s in states)


def _custom_cells(lib, ops):
    class Counting(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.state_size, self.output_size, self.seen = [2, 3], 2, []

        def get_initial_state(self, batch_size=None):
            self.seen.append(batch_size)
            return [ops.ones((batch_size, 2)), ops.ones((batch_size, 3))]

        def call(self, x, states):
            return x[:, :2] + states[0], [states[0] + 1, states[1] * 2]

    class Plain(lib.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.state_size = 2

        def call(self, x, states):
            return x * 0.5 + states[0], [states[0] + 1]
    return Counting(), Plain()


def test_rnn_with_custom_cells_matches():
    x = np.random.default_rng(8).normal(size=(4, 5, 2)).astype("float32")
    runs = []
    for lib, ops in ((tk, tg), (rk, rk.ops)):
        counting, plain = _custom_cells(lib, ops)
        out = [np.asarray(t) for t in lib.layers.RNN(counting, return_state=True, return_sequences=True)(x)]
        out += [np.asarray(t) for t in lib.layers.RNN(plain, return_state=True)(x)]
        runs.append((counting.seen, out))
    assert runs[0][0] == runs[1][0] == [4]
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


# ---- set_random_seed
def test_set_random_seed_seeds_python_and_numpy_as_keras():
    draws = []
    for lib in (tk, rk):
        lib.utils.set_random_seed(1234)
        draws.append((random.random(), np.random.rand(3).tolist(), random.randint(0, 10 ** 6)))
    assert draws[0] == draws[1]
    assert list(inspect.signature(tk.utils.set_random_seed).parameters) == \
        list(inspect.signature(rk.utils.set_random_seed).parameters)
    for lib in (tk, rk):
        with pytest.raises(ValueError):
            lib.utils.set_random_seed(1.5)


@pytest.mark.parametrize("dtype", ["int32", "int64", "bool"])
@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_dense_takes_integer_and_bool_inputs_as_keras_does(dtype, shape):
    # Keras 3's matmul promotes the inputs to the kernel's float dtype
    x = (np.arange(np.prod(shape)).reshape(shape) % 3).astype(dtype)
    outs = []
    for keras in (rk, tk):
        layer = keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="ones")
        outs.append(layer(x))
    assert outs[1].dtype.name == outs[0].dtype.name == "float32"
    np.testing.assert_array_equal(np.asarray(outs[1]), np.asarray(outs[0]))
