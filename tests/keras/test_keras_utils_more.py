"""More of Keras 3's API: the loss-function aliases of keras.losses and keras.metrics, keras.preprocessing.image
(skipped without Pillow), keras.utils.set_random_seed, and RNN cells' get_initial_state(batch_size=...)."""
import io
import random
import warnings

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

L = keras.layers


# ---- loss and metric aliases (Keras 3's keras.metrics names; tf.keras's short aliases)
ALIASES = {"mean_squared_error": ("mse", "MSE"), "mean_absolute_error": ("mae", "MAE"),
           "mean_absolute_percentage_error": ("mape", "MAPE"), "mean_squared_logarithmic_error": ("msle", "MSLE")}


@pytest.mark.parametrize("module", [keras.losses, keras.metrics], ids=["losses", "metrics"])
def test_aliases_are_the_loss_functions(module):
    for long_name, short in ALIASES.items():
        fn = getattr(keras.losses, long_name)
        assert getattr(module, long_name) is fn
        assert all(getattr(module, s) is fn for s in short)
        assert {long_name, *short} <= set(module.__all__)
    for name in ("huber", "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy"):
        assert getattr(keras.metrics, name) is getattr(keras.losses, name)


def test_metric_aliases_compute_the_loss_values():
    y, p = np.array([[1.0, 2.0], [0.5, 0.0]], "float32"), np.array([[1.5, 1.0], [0.5, 1.0]], "float32")
    np.testing.assert_allclose(keras.metrics.mse(y, p).numpy(), ((y - p) ** 2).mean(-1), rtol=1e-6)
    np.testing.assert_allclose(keras.metrics.MAE(y, p).numpy(), np.abs(y - p).mean(-1), rtol=1e-6)
    msle = ((np.log1p(y) - np.log1p(p)) ** 2).mean(-1)
    np.testing.assert_allclose(keras.metrics.msle(y, p).numpy(), msle, rtol=1e-5)


def test_get_by_upper_case_and_msle_names():
    for name, fn in (("MSE", keras.losses.mse), ("MAE", keras.losses.mae), ("MAPE", keras.losses.mape),
                     ("MSLE", keras.losses.msle)):
        assert keras.losses.get(name) is fn
    for name in ("msle", "mean_squared_logarithmic_error", "MSLE"):
        metric = keras.metrics.get(name)
        assert isinstance(metric, keras.metrics.MeanSquaredLogarithmicError) and metric.name == name
    assert isinstance(keras.metrics.get("MSE"), keras.metrics.MeanSquaredError)
    m = keras.metrics.MeanSquaredLogarithmicError()
    m.update_state([[1.0, 3.0]], [[2.0, 0.0]])
    np.testing.assert_allclose(float(m.result()), ((np.log(2) - np.log(3)) ** 2 + np.log(4) ** 2) / 2, rtol=1e-5)


def test_compile_names_metrics_by_their_strings():
    model = keras.Sequential([keras.Input((3,)), L.Dense(1)])
    model.compile("sgd", "mse", metrics=["msle", "MSE", "mean_absolute_percentage_error"])
    history = model.fit(np.ones((4, 3), "float32"), np.ones((4, 1), "float32"), verbose=0)
    assert set(history.history) == {"loss", "msle", "MSE", "mean_absolute_percentage_error"}


# ---- keras.utils.set_random_seed
def _seeded_run(seed):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((6,)), L.Dense(8, activation="selu"), L.AlphaDropout(0.2),
                              L.GaussianNoise(0.1), L.Dense(8), L.Dropout(0.5), L.GaussianDropout(0.3), L.Dense(1)])
    initial = model.get_weights()
    x = np.ones((16, 6), "float32")
    masks = [model.layers[i](x[:, :1] * np.ones((16, 8), "float32"), training=True).numpy() for i in (1, 2, 4, 5)]
    model.compile("sgd", "mse")
    data = np.random.rand(32, 6).astype("float32"), np.random.rand(32, 1).astype("float32")
    losses = model.fit(*data, epochs=2, batch_size=8, verbose=0).history["loss"]
    return initial, masks, losses, model.get_weights(), random.random()


def test_set_random_seed_repeats_weights_masks_and_training():
    first, again, other = _seeded_run(3), _seeded_run(3), _seeded_run(4)
    for a, b in zip(first[:2] + first[3:4], again[:2] + again[3:4]):
        for u, v in zip(a, b):
            np.testing.assert_array_equal(u, v)
    assert first[2] == again[2] and first[4] == again[4]
    assert first[2] != other[2] and not np.array_equal(first[0][0], other[0][0])


def test_set_random_seed_seeds_python_numpy_and_tapegrad():
    def draws():
        keras.utils.set_random_seed(11)
        return random.random(), np.random.rand(), tf.random.uniform([3]).numpy().tolist()
    assert draws() == draws()
    with pytest.raises(ValueError, match="seed"):
        keras.utils.set_random_seed(1.5)


# ---- RNN get_initial_state, as Keras 3 calls it
def test_cells_take_batch_size_by_keyword():
    for cell, n in ((L.SimpleRNNCell(3), 1), (L.GRUCell(3), 1), (L.LSTMCell(3), 2)):
        states = cell.get_initial_state(batch_size=2)
        assert len(states) == n and all(s.shape == (2, 3) and not s.numpy().any() for s in states)
    assert [s.shape for s in L.LSTM(4).get_initial_state(batch_size=5)] == [(5, 4), (5, 4)]
    assert [s.shape for s in L.RNN(L.GRUCell(2)).get_initial_state(3)] == [(3, 2)]


class _CountingCell(L.Layer):
    """A Keras 3 style cell: state_size an attribute, get_initial_state(batch_size=None) of its own."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state_size, self.output_size, self.seen = [2, 3], 2, []

    def get_initial_state(self, batch_size=None):
        self.seen.append(batch_size)
        return [tf.ones((batch_size, 2)), tf.ones((batch_size, 3))]

    def call(self, x, states):
        return x[:, :2] + states[0], [states[0] + 1, states[1] * 2]


def test_rnn_passes_batch_size_to_a_custom_cell():
    cell = _CountingCell()
    out, h, c = L.RNN(cell, return_state=True)(np.zeros((4, 5, 2), "float32"))
    assert cell.seen == [4]
    np.testing.assert_array_equal(out.numpy()[0], [5, 5])
    np.testing.assert_array_equal(h.numpy()[0], [6, 6])
    np.testing.assert_array_equal(c.numpy()[0], [32, 32, 32])


class _PlainCell(L.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state_size = 2

    def call(self, x, states):
        return x + states[0], [states[0] + 1]


def test_rnn_starts_a_cell_without_get_initial_state_from_zeros():
    out, h = L.RNN(_PlainCell(), return_state=True)(np.zeros((4, 5, 2), "float32"))
    np.testing.assert_array_equal(out.numpy()[0], [4, 4])
    np.testing.assert_array_equal(h.numpy()[0], [5, 5])


def test_rnn_initial_state_for_an_unknown_traced_batch():
    layer = L.LSTM(3)
    f = tf.function(lambda x: layer(x), input_signature=[tf.TensorSpec([None, 5, 2])])
    assert f(tf.zeros([3, 5, 2])).shape == (3, 3) and f(tf.zeros([6, 5, 2])).shape == (6, 3)


# ---- keras.preprocessing.image (Pillow)
def test_image_helpers_are_in_utils_and_preprocessing():
    image = keras.preprocessing.image
    for name in ("array_to_img", "img_to_array", "load_img", "save_img"):
        assert getattr(keras.utils, name) is getattr(image, name)
    assert keras.preprocessing.sequence.pad_sequences is keras.utils.pad_sequences


def test_img_to_array_needs_no_pillow():
    x = keras.preprocessing.image.img_to_array(np.arange(6).reshape(2, 3))
    assert x.shape == (2, 3, 1) and x.dtype == np.float32
    assert keras.preprocessing.image.img_to_array(np.ones((2, 3, 4)), data_format="channels_first").shape == (4, 2, 3)
    with pytest.raises(ValueError, match="Unsupported image shape"):
        keras.preprocessing.image.img_to_array(np.ones(3))


def test_array_to_img_without_pillow_names_the_extra(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("no PIL")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match=r"tapegrad\[image\]"):
        keras.preprocessing.image.array_to_img(np.ones((2, 2, 3)))


def test_array_to_img_scales_and_picks_the_mode():
    pytest.importorskip("PIL")
    image = keras.preprocessing.image
    x = np.random.default_rng(0).uniform(-1, 3, (4, 5, 3))
    img = image.array_to_img(x)
    assert img.mode == "RGB" and img.size == (5, 4)
    x32 = x.astype("float32") - np.float32(x.min())
    np.testing.assert_array_equal(np.asarray(img), (x32 / x32.max() * 255).astype("uint8"))
    assert image.array_to_img(x[..., :1]).mode == "L"
    assert image.array_to_img(np.ones((2, 2, 4))).mode == "RGBA"
    assert image.array_to_img(np.full((2, 2, 1), 300.0), scale=False).mode == "I"
    np.testing.assert_array_equal(np.asarray(image.array_to_img(np.full((2, 2, 3), 7.0), scale=False)), 7)
    assert image.array_to_img(np.ones((3, 4, 5)), data_format="channels_first").size == (5, 4)
    with pytest.raises(ValueError, match="rank 3"):
        image.array_to_img(np.ones((1, 2, 2, 3)))
    with pytest.raises(ValueError, match="channel number: 2"):
        image.array_to_img(np.ones((2, 2, 2)))


def test_save_and_load_round_trip(tmp_path):
    pytest.importorskip("PIL")
    image = keras.preprocessing.image
    pixels = np.random.default_rng(1).integers(0, 256, (7, 9, 3)).astype("float32")
    image.save_img(tmp_path / "a.png", pixels, scale=False)
    img = image.load_img(tmp_path / "a.png")
    np.testing.assert_array_equal(image.img_to_array(img), pixels)
    assert image.load_img(str(tmp_path / "a.png"), color_mode="grayscale").mode == "L"
    assert image.load_img(tmp_path / "a.png", color_mode="rgba").mode == "RGBA"
    assert image.load_img(tmp_path / "a.png", target_size=(4, 5), interpolation="bilinear").size == (5, 4)
    assert image.load_img(tmp_path / "a.png", target_size=(4, 4), keep_aspect_ratio=True).size == (4, 4)
    buffer = io.BytesIO()
    image.save_img(buffer, pixels, file_format="png", scale=False)
    np.testing.assert_array_equal(image.img_to_array(image.load_img(io.BytesIO(buffer.getvalue()))), pixels)
    with pytest.raises(ValueError, match="Invalid interpolation method area"):
        image.load_img(tmp_path / "a.png", target_size=(2, 2), interpolation="area")
    with pytest.raises(ValueError, match="color_mode"):
        image.load_img(tmp_path / "a.png", color_mode="RGB")
    with pytest.raises(TypeError, match="path-like"):
        image.load_img(3)


def test_save_rgba_as_jpeg_converts_with_a_warning(tmp_path):
    pytest.importorskip("PIL")
    image = keras.preprocessing.image
    with pytest.warns(UserWarning, match="JPEG format does not support RGBA"):
        image.save_img(tmp_path / "a.JPG", np.random.default_rng(2).uniform(size=(4, 5, 4)))
    assert image.load_img(tmp_path / "a.JPG", color_mode="rgba").size == (5, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        image.save_img(tmp_path / "b.png", np.ones((4, 5, 4)))
