"""Keras 3's preprocessing layers and tapegrad.keras's side by side on the same inputs: signatures,
configs, outputs and dtypes, adapt results (statistics, bin boundaries, vocabularies, idf weights) on
arrays and on datasets, the FarmHash bins of Hashing and the lookups' OOV buckets, the random layers'
identity at inference and the ranges of their draws, and .keras files tapegrad writes read by Keras.
Skipped when TensorFlow does not import, unless TAPEGRAD_REQUIRE_TF=1.

Known differences: Keras keeps an adapted vocabulary in the file's assets, tapegrad in the config
(Note [Saved vocabularies] in keras/layers/preprocessing/_index_lookup.py), so the configs of adapted
lookup layers differ in "vocabulary"; integer images come out int32 (tapegrad has no uint8)."""
import inspect

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import keras as tk
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as rk  # noqa: E402 -- Keras 3, which TensorFlow 2.16+ brings

RNG = np.random.default_rng(0)
IMAGES = RNG.uniform(0, 255, size=(2, 5, 7, 3)).astype("float32")
TEXTS = np.array(["The cat sat on the mat.", "the DOG, sat!", "a cat and a dog", "Dog", "", "mat mat cat"])
WORDS = np.array([["b", "a"], ["b", "c"], ["a", "d"], ["b", "e"], ["e", "d"]])

# constructor arguments per layer, each a case compared on one input
CASES = [
    ("Rescaling", dict(scale=1 / 255, offset=-0.5), IMAGES),
    ("Normalization", dict(mean=[1.0, 2.0, 3.0], variance=[4.0, 9.0, 0.0]), IMAGES),
    ("Normalization", dict(mean=[1.0, 2.0, 3.0], variance=[4.0, 9.0, 1.0], invert=True), IMAGES),
    ("Normalization", dict(axis=None, mean=2.0, variance=9.0), IMAGES[0, 0]),
    ("CategoryEncoding", dict(num_tokens=6), np.array([[0, 2, 2], [5, 1, 3]])),
    ("CategoryEncoding", dict(num_tokens=6, output_mode="one_hot"), np.array([0, 5, 3])),
    ("CategoryEncoding", dict(num_tokens=6, output_mode="count"), np.array([[0, 2, 2], [5, 1, 3]])),
    ("CategoryEncoding", dict(num_tokens=4), np.array([1, 1, 3])),
    ("Discretization", dict(bin_boundaries=[0.0, 1.0, 2.5]), RNG.normal(size=(3, 4)).astype("float32") * 2),
    ("Discretization", dict(bin_boundaries=[0.0, 1.0], output_mode="one_hot"), np.array([-1.0, 0.5, 1.0, 2.0])),
    ("Discretization", dict(bin_boundaries=[0.0, 1.0], output_mode="count"), np.array([[-1.0, 0.5, 1.0, 2.0]])),
    ("Resizing", dict(height=3, width=4), IMAGES),
    ("Resizing", dict(height=8, width=3, interpolation="nearest"), IMAGES),
    ("Resizing", dict(height=2, width=3, crop_to_aspect_ratio=True), IMAGES),
    ("Resizing", dict(height=4, width=4, pad_to_aspect_ratio=True, fill_value=-1.0), IMAGES),
    ("Resizing", dict(height=3, width=3), IMAGES[0]),
    ("CenterCrop", dict(height=3, width=4), IMAGES),
    ("CenterCrop", dict(height=6, width=4), IMAGES),
    ("CenterCrop", dict(height=2, width=2, data_format="channels_first"), np.transpose(IMAGES, [0, 3, 1, 2])),
    ("Hashing", dict(num_bins=7), np.array([["a"], ["hello"], ["x"], [""]])),
    ("Hashing", dict(num_bins=7), np.array([[1], [22], [-3], [123456789]])),
    ("Hashing", dict(num_bins=7, mask_value=""), np.array([["a"], ["hello"], ["x"], [""]])),
    ("Hashing", dict(num_bins=7, salt=11), np.array([["a"], ["hello"], ["x"], [""]])),
    ("Hashing", dict(num_bins=7, salt=[3, 4], output_mode="multi_hot"), np.array([["a", "hello"], ["x", ""]])),
    ("Hashing", dict(num_bins=5, output_mode="count"), np.array([["a", "a"], ["b", "x"]])),
    ("StringLookup", dict(vocabulary=["a", "b", "c"]), np.array([["a", "q"], ["c", "b"]])),
    ("StringLookup", dict(vocabulary=["a", "b"], num_oov_indices=3), np.array(["a", "x", "yy", "zz", "w", "b"])),
    ("StringLookup", dict(vocabulary=["a", "b"], num_oov_indices=3, salt=9), np.array(["x", "yy", "zz", "w"])),
    ("StringLookup", dict(vocabulary=["a", "b"], mask_token=""), np.array(["a", "", "q"])),
    ("StringLookup", dict(vocabulary=["a", "b"], output_mode="multi_hot"), np.array([["a", "q"], ["b", "b"]])),
    ("StringLookup", dict(vocabulary=["a", "b"], output_mode="count", mask_token=""), np.array([["a", "", "a"]])),
    ("StringLookup", dict(vocabulary=["a", "b"], output_mode="one_hot"), np.array(["a", "c", "b"])),
    ("StringLookup", dict(vocabulary=["a", "b"], output_mode="tf_idf", idf_weights=[0.5, 0.25]),
     np.array([["a", "q", "a"]])),
    ("StringLookup", dict(vocabulary=["a"], output_mode="multi_hot", max_tokens=5, pad_to_max_tokens=True),
     np.array([["a", "z"]])),
    ("StringLookup", dict(vocabulary=["a", "b"], invert=True), np.array([0, 1, 2, 7])),
    ("IntegerLookup", dict(vocabulary=[10, 20, 30]), np.array([[10, 7], [30, 20]])),
    ("IntegerLookup", dict(vocabulary=[10, 20], num_oov_indices=3), np.array([1, 2, 3, 4, 5, -7, 10])),
    ("IntegerLookup", dict(vocabulary=[10, 20], num_oov_indices=3, oov_method="farmhash"), np.array([1, 2, 3, 4])),
    ("IntegerLookup", dict(vocabulary=[10, 20], mask_token=0), np.array([0, 10, 5])),
    ("IntegerLookup", dict(vocabulary=[10, 20], mask_token=0, num_oov_indices=3), np.array([1, 2, 3, 4, 0, 10, 20])),
    ("IntegerLookup", dict(vocabulary=[10, 20], mask_token=0, output_mode="multi_hot"), np.array([[0, 10, 5]])),
    ("IntegerLookup", dict(vocabulary=[10, 20], output_mode="count"), np.array([[10, 10, 5]])),
    ("IntegerLookup", dict(vocabulary=[10, 20], invert=True), np.array([0, 1, 2])),
    ("TextVectorization", dict(vocabulary=["cat", "dog", "the"]), TEXTS),
    ("TextVectorization", dict(vocabulary=["cat", "dog"], output_sequence_length=3), TEXTS),
    ("TextVectorization", dict(vocabulary=["cat", "dog"], output_sequence_length=8), TEXTS[:, None]),
    ("TextVectorization", dict(vocabulary=["cat", "dog"], output_mode="count"), TEXTS),
    ("TextVectorization", dict(vocabulary=["cat", "dog", "the cat"], output_mode="multi_hot", ngrams=2), TEXTS),
    ("TextVectorization", dict(vocabulary=["cat", "Dog"], standardize="strip_punctuation"), TEXTS),
    ("TextVectorization", dict(vocabulary=["the dog, sat!"], standardize="lower", split=None), TEXTS),
    ("TextVectorization", dict(vocabulary=["c", "a"], split="character", output_sequence_length=5), TEXTS),
    ("TextVectorization", dict(vocabulary=["cat", "dog"], output_mode="tf_idf", idf_weights=[0.3, 0.7]), TEXTS),
]
NAMES = sorted({name for name, _, _ in CASES} | {"RandomFlip", "RandomCrop", "RandomContrast", "RandomBrightness"})


def _params(cls):
    return {n: p.default for n, p in inspect.signature(cls.__init__).parameters.items()
            if n != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}


@pytest.mark.parametrize("name", NAMES)
def test_signatures_match_keras(name):
    ours, theirs = getattr(tk.layers, name), getattr(rk.layers, name)
    assert _params(ours) == _params(theirs)
    if hasattr(theirs, "adapt") and name not in ("Hashing", "CategoryEncoding", "Rescaling", "Resizing", "CenterCrop"):
        assert inspect.signature(ours.adapt) == inspect.signature(theirs.adapt)


def _comparable(config):
    config = dict(config)
    config.pop("dtype", None)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in config.items()}


@pytest.mark.parametrize("name,kwargs,x", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_outputs_and_configs_match_keras(name, kwargs, x):
    ours, theirs = getattr(tk.layers, name)(**kwargs, name="p"), getattr(rk.layers, name)(**kwargs, name="p")
    out, expected = ours(x), theirs(x)
    expected = np.asarray(expected)
    assert out.dtype.name == ref.as_dtype(expected.dtype).name or expected.dtype == np.uint8
    if expected.dtype.kind in "OS":
        assert out.numpy().tolist() == expected.tolist()
    else:
        np.testing.assert_allclose(out.numpy(), expected, rtol=2e-6, atol=2e-5)
    assert _comparable(ours.get_config()) == _comparable(theirs.get_config())
    if hasattr(theirs, "get_vocabulary"):
        assert ours.get_vocabulary() == [v.item() if hasattr(v, "item") else v for v in theirs.get_vocabulary()]


def _both_datasets(array, batch):
    return (tg.data.Dataset.from_tensor_slices(array).batch(batch),
            ref.data.Dataset.from_tensor_slices(array).batch(batch))


@pytest.mark.parametrize("axis", [-1, None, (1, 3)])
@pytest.mark.parametrize("batched", [False, True])
def test_normalization_adapt_matches_keras(axis, batched):
    x = RNG.normal(4.0, 3.0, size=(23, 2, 3, 2)).astype("float32")
    ours, theirs = tk.layers.Normalization(axis=axis), rk.layers.Normalization(axis=axis)
    data_ours, data_theirs = _both_datasets(x, 5) if batched else (x, x)
    ours.adapt(data_ours)
    theirs.adapt(data_theirs)
    np.testing.assert_allclose(ours.mean.numpy(), np.asarray(theirs.mean), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours.variance.numpy(), np.asarray(theirs.variance), rtol=1e-4)
    np.testing.assert_allclose(ours(x).numpy(), np.asarray(theirs(x)), rtol=1e-4, atol=1e-4)
    assert [(w.name.split("/")[-1].split(":")[0], tuple(w.shape), w.dtype.name) for w in ours.weights] == \
        [(w.name, tuple(w.shape), w.dtype) for w in theirs.weights]


@pytest.mark.parametrize("num_bins,batch", [(4, None), (3, 16), (7, 50), (2, 1000)])
def test_discretization_adapt_matches_keras(num_bins, batch):
    x = RNG.normal(size=(300,)).astype("float32")
    ours, theirs = tk.layers.Discretization(num_bins=num_bins), rk.layers.Discretization(num_bins=num_bins)
    data_ours, data_theirs = _both_datasets(x, batch) if batch else (x, x)
    ours.adapt(data_ours)
    theirs.adapt(data_theirs)
    np.testing.assert_allclose(ours.bin_boundaries, theirs.bin_boundaries, rtol=1e-6)
    np.testing.assert_array_equal(ours(x).numpy(), np.asarray(theirs(x)))


LOOKUP_ADAPT = [
    ("StringLookup", dict(), WORDS),
    ("StringLookup", dict(max_tokens=4), WORDS),
    ("StringLookup", dict(mask_token="", num_oov_indices=2), WORDS),
    ("StringLookup", dict(output_mode="tf_idf"), WORDS),
    ("StringLookup", dict(output_mode="tf_idf"), WORDS.ravel()),
    ("StringLookup", dict(output_mode="count", max_tokens=4, pad_to_max_tokens=True), WORDS),
    ("IntegerLookup", dict(), np.array([[5, 5], [3, 9], [9, 9], [1, 7]])),
    ("IntegerLookup", dict(output_mode="tf_idf", max_tokens=4), np.array([[5, 5], [3, 9], [9, 9], [1, 7]])),
    ("TextVectorization", dict(), TEXTS),
    ("TextVectorization", dict(max_tokens=6, output_sequence_length=4), TEXTS),
    ("TextVectorization", dict(output_mode="multi_hot", ngrams=2), TEXTS),
    ("TextVectorization", dict(output_mode="tf_idf", max_tokens=7), TEXTS),
    ("TextVectorization", dict(output_mode="count", ngrams=(2, 3)), TEXTS),
]


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("name,kwargs,data", LOOKUP_ADAPT, ids=[f"{c[0]}-{i}" for i, c in enumerate(LOOKUP_ADAPT)])
def test_lookup_adapt_matches_keras(name, kwargs, data, batched):
    ours, theirs = getattr(tk.layers, name)(**kwargs), getattr(rk.layers, name)(**kwargs)
    data_ours, data_theirs = _both_datasets(data, 2) if batched else (data, data)
    ours.adapt(data_ours)
    theirs.adapt(data_theirs)
    assert ours.get_vocabulary() == [v.item() if hasattr(v, "item") else v for v in theirs.get_vocabulary()]
    sample = data[:3]
    np.testing.assert_allclose(ours(sample).numpy(), np.asarray(theirs(sample)), rtol=1e-6)
    assert ours.vocabulary_size() == theirs.vocabulary_size()
    assert set(ours.get_config()) == set(theirs.get_config())


RANDOM = [("RandomFlip", dict(mode="horizontal", seed=2)), ("RandomFlip", dict()),
          ("RandomCrop", dict(height=3, width=4, seed=5)), ("RandomContrast", dict(factor=0.3, seed=1)),
          ("RandomContrast", dict(factor=(0.2, 0.4), value_range=(0, 1))), ("RandomContrast", dict(factor=(0.4, 0.1))),
          ("RandomBrightness", dict(factor=(-0.2, 0.1), value_range=[0, 1], seed=4))]


@pytest.mark.parametrize("name,kwargs", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_layers_configs_and_inference_match_keras(name, kwargs):
    ours, theirs = getattr(tk.layers, name)(**kwargs, name="r"), getattr(rk.layers, name)(**kwargs, name="r")
    assert _comparable(ours.get_config()) == _comparable(theirs.get_config())
    x = IMAGES / (255.0 if kwargs.get("value_range") else 1.0)
    for lib, layer in ((tk, ours), (rk, theirs)):
        model = lib.Sequential([lib.Input(x.shape[1:]), layer])
        np.testing.assert_array_equal(np.asarray(model.predict(x, verbose=0)), x)  # inference: the identity
        assert tuple(np.asarray(layer(x)).shape) == tuple(np.asarray(layer(x, training=True)).shape)


def test_random_crop_seed_is_drawn_into_the_config_as_keras_does():
    assert isinstance(tk.layers.RandomCrop(2, 2).get_config()["seed"], int)
    assert isinstance(rk.layers.RandomCrop(2, 2).get_config()["seed"], int)


def _draw_ranges(lib, name, kwargs, x):
    out = np.asarray(getattr(lib.layers, name)(**kwargs)(x, training=True))
    if name == "RandomBrightness":
        delta = (out - x)[:, 0, 0, 0]
        return delta.min(), delta.max()
    centred = x - x.mean(axis=(1, 2), keepdims=True)
    c = (out - out.mean(axis=(1, 2), keepdims=True)).std(axis=(1, 2)) / centred.std(axis=(1, 2))
    return c.min(), c.max()


@pytest.mark.parametrize("name,kwargs", [("RandomContrast", dict(factor=0.2)),
                                         ("RandomContrast", dict(factor=(0.3, 0.1))),
                                         ("RandomBrightness", dict(factor=0.2)),
                                         ("RandomBrightness", dict(factor=(-0.1, 0.3)))])
def test_random_draws_cover_the_same_ranges_as_keras(name, kwargs):
    x = RNG.uniform(100, 150, size=(1000, 3, 3, 2)).astype("float32")
    ours, theirs = _draw_ranges(tk, name, kwargs, x), _draw_ranges(rk, name, kwargs, x)
    np.testing.assert_allclose(ours, theirs, atol=0.02 * (255 if name == "RandomBrightness" else 1))


def test_keras_loads_the_keras_files_tapegrad_writes(tmp_path):
    norm = tk.layers.Normalization()
    norm.adapt(IMAGES.reshape(-1, 3))
    model = tk.Sequential([tk.Input((3,)), norm, tk.layers.Dense(2)])
    lookup = tk.layers.StringLookup(num_oov_indices=2)
    lookup.adapt(WORDS)
    text = tk.Sequential([tk.Input((), dtype="string"), lookup])
    x = RNG.normal(size=(4, 3)).astype("float32")
    for m, sample in ((model, x), (text, np.array(["a", "zz", "b", "e"]))):
        path = str(tmp_path / f"{m.name}.keras")
        m.save(path)
        loaded = rk.models.load_model(path)  # called on a tensor: Keras's predict refuses NumPy strings
        np.testing.assert_allclose(np.asarray(loaded(ref.constant(sample))), m(sample).numpy(), rtol=1e-5, atol=1e-6)
