"""Keras 3's dataset utilities and affine image layers against tapegrad.keras's: the projective
transform against TF's ImageProjectiveTransformV3 on every fill mode and interpolation, keras.ops.image.
affine_transform, the RandomRotation / RandomZoom / RandomTranslation layers on fixed draws (a factor
range of one value) and their configs, image_dataset_from_directory and text_dataset_from_directory on
the same directory (file order, labels, pixels; the per-epoch tf.data shuffle is not TF's, so shuffled
datasets are compared as sorted contents), split_dataset and to_categorical. Skipped without
TensorFlow, unless TAPEGRAD_REQUIRE_TF=1."""
import os

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import keras as tk
from tapegrad.keras._image_transform import projective_transform
from tf_oracle import import_tensorflow

ref = import_tensorflow()
import keras as rk  # noqa: E402 -- Keras 3, which TensorFlow 2.16+ brings

# Keras lists directories with a thread pool it leaves to the garbage collector
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

RNG = np.random.RandomState(0)
IMAGES = RNG.uniform(0, 255, (2, 5, 7, 3)).astype("float32")
TRANSFORMS = {
    "identity": [1, 0, 0, 0, 1, 0, 0, 0],
    "shift": [1, 0, 2.5, 0, 1, -1.5, 0, 0],
    "half_shift": [1, 0, -0.5, 0, 1, 2.5, 0, 0],
    "rotation": [np.cos(0.7), -np.sin(0.7), 3, np.sin(0.7), np.cos(0.7), -2, 0, 0],
    "shear_scale": [1.8, 0.3, -4, -0.2, 1.6, -3, 0, 0],
    "zoom_in": [0.6, 0, 9, 0, 0.5, 7.3, 0, 0],
    "far_outside": [3.1, 0, -20.5, 0, 2.7, -17.2, 0, 0],
    "projective": [1, 0.1, 0.5, 0.2, 1, 0.25, 0.05, 0.02],
    "zero_denominator": [1, 0, 0, 0, 1, 0, -0.5, 0],
}
FILL_MODES = ("reflect", "wrap", "constant", "nearest")


def _tf_transform(images, transforms, interpolation, fill_mode, fill_value=17.0, output_shape=None):
    return ref.raw_ops.ImageProjectiveTransformV3(
        images=images, transforms=transforms, output_shape=output_shape or list(images.shape[1:3]),
        fill_value=fill_value, interpolation=interpolation.upper(), fill_mode=fill_mode.upper()).numpy()


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
@pytest.mark.parametrize("fill_mode", FILL_MODES)
@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_projective_transform_matches_tf_raw_op(name, fill_mode, interpolation, dtype):
    t = TRANSFORMS[name]
    transforms = np.array([t, t[:2] + [t[2] + 1.25] + t[3:]], "float32")  # one row per image
    images = IMAGES.astype(dtype)
    theirs = _tf_transform(images, transforms, interpolation, fill_mode)
    ours = projective_transform(images, transforms, interpolation, fill_mode, 17.0).numpy()
    assert ours.dtype == theirs.dtype
    if dtype == "uint8":
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("fill_mode", FILL_MODES)
@pytest.mark.parametrize("shape", [(1, 1, 7, 2), (1, 6, 1, 1), (3, 4, 4, 1)])
def test_projective_transform_thin_images_one_row_and_output_shape(shape, fill_mode):
    images = RNG.uniform(-1, 1, shape).astype("float32")
    transform = np.array([[0.9, 0.2, -1.5, -0.1, 1.3, 1.75, 0, 0]], "float32")
    for interpolation in ("nearest", "bilinear"):
        for out_shape in (None, [3, 9]):
            theirs = _tf_transform(images, transform, interpolation, fill_mode, -2.0, out_shape)
            ours = projective_transform(images, transform, interpolation, fill_mode, -2.0, out_shape).numpy()
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fill_mode", FILL_MODES)
def test_keras_ops_affine_transform_matches_keras(fill_mode):
    transform = np.array(TRANSFORMS["shear_scale"], "float32")
    for kwargs in (dict(), dict(interpolation="nearest", fill_value=3.0)):
        ours = tk.ops.image.affine_transform(IMAGES, transform, fill_mode=fill_mode, **kwargs)
        theirs = rk.ops.image.affine_transform(IMAGES, transform, fill_mode=fill_mode, **kwargs)
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-3)
    first = np.transpose(IMAGES, (0, 3, 1, 2))
    ours = tk.ops.image.affine_transform(first[0], transform, fill_mode=fill_mode, data_format="channels_first")
    theirs = rk.ops.image.affine_transform(first[0], transform, fill_mode=fill_mode, data_format="channels_first")
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-5, atol=1e-3)


def _comparable(config):
    config = dict(config)
    config.pop("dtype", None)
    return {k: list(v) if isinstance(v, tuple) else v for k, v in config.items()}


FIXED = [("RandomRotation", dict(factor=(0.1, 0.1))), ("RandomRotation", dict(factor=(-0.3, -0.3), fill_mode="wrap")),
         ("RandomZoom", dict(height_factor=(0.4, 0.4))),
         ("RandomZoom", dict(height_factor=(-0.3, -0.3), width_factor=(0.5, 0.5), fill_mode="constant",
                             fill_value=9.0, interpolation="nearest")),
         ("RandomTranslation", dict(height_factor=(0.2, 0.2), width_factor=(-0.3, -0.3))),
         ("RandomTranslation", dict(height_factor=(-0.5, -0.5), width_factor=(0.1, 0.1), fill_mode="nearest"))]


@pytest.mark.parametrize("name,kwargs", FIXED, ids=[f"{c[0]}-{i}" for i, c in enumerate(FIXED)])
def test_affine_layers_on_fixed_draws_match_keras(name, kwargs):
    ours, theirs = getattr(tk.layers, name)(**kwargs, name="a"), getattr(rk.layers, name)(**kwargs, name="a")
    assert _comparable(ours.get_config()) == _comparable(theirs.get_config())
    x = IMAGES.astype("uint8")
    np.testing.assert_allclose(np.asarray(ours(x)), np.asarray(theirs(x)), rtol=1e-5, atol=2e-3)
    np.testing.assert_allclose(np.asarray(ours(x[0])), np.asarray(theirs(x[0])), rtol=1e-5, atol=2e-3)
    for lib, layer in ((tk, ours), (rk, theirs)):
        model = lib.Sequential([lib.Input(x.shape[1:]), layer])
        np.testing.assert_array_equal(np.asarray(model.predict(x, verbose=0)), x)  # inference: the identity


RANDOM = [("RandomRotation", dict(factor=0.2, seed=1)), ("RandomZoom", dict(height_factor=(0.1, 0.3), seed=2)),
          ("RandomZoom", dict(height_factor=0.2, width_factor=(-0.3, 0.2))),
          ("RandomTranslation", dict(height_factor=0.1, width_factor=(0.1, 0.3), fill_mode="constant"))]


@pytest.mark.parametrize("name,kwargs", RANDOM, ids=[f"{c[0]}-{i}" for i, c in enumerate(RANDOM)])
def test_affine_layer_configs_match_keras(name, kwargs):
    ours, theirs = getattr(tk.layers, name)(**kwargs, name="r"), getattr(rk.layers, name)(**kwargs, name="r")
    assert _comparable(ours.get_config()) == _comparable(theirs.get_config())
    assert np.asarray(ours(IMAGES)).shape == np.asarray(theirs(IMAGES)).shape


def _shift_range(lib, width_factor):
    """The horizontal shifts a RandomTranslation draws, read back from a ramp image."""
    ramp = np.tile(np.arange(64, dtype="float32")[None, None, :, None], (2000, 1, 1, 1))
    layer = lib.layers.RandomTranslation((0.0, 0.0), width_factor, fill_mode="nearest", interpolation="bilinear")
    shifts = ramp[:, 0, 32, 0] - np.asarray(layer(ramp))[:, 0, 32, 0]
    return shifts.min(), shifts.max()


def test_translation_draws_cover_the_same_range_as_keras():
    np.testing.assert_allclose(_shift_range(tk, (-0.2, 0.3)), _shift_range(rk, (-0.2, 0.3)), atol=0.3)


@pytest.fixture(scope="module")
def image_dir(tmp_path_factory):
    pil = pytest.importorskip("PIL.Image")
    root = tmp_path_factory.mktemp("images")
    for cls, n in (("cat", 3), ("dog", 4), ("owl", 2)):
        os.makedirs(root / cls)
        for i in range(n):
            pil.fromarray(RNG.randint(0, 256, (5 + i, 9 - i, 3)).astype("uint8")).save(str(root / cls / f"{i}.png"))
    (root / "cat" / "notes.txt").write_text("not an image")
    return str(root)


def _rows(ds, labelled=True):
    """The dataset's (pixels, label) rows, sorted (the shuffled order is tf.data's own)."""
    rows = []
    batched = len(ds.element_spec[0].shape if labelled else ds.element_spec.shape) > 0 and \
        (ds.element_spec[0] if labelled else ds.element_spec).shape[0] is None
    for batch in ds:
        xs, ys = batch if labelled else (batch, None)
        xs, ys = np.asarray(xs.numpy()), None if ys is None else np.asarray(ys.numpy())
        if not batched:
            xs, ys = xs[None], None if ys is None else ys[None]
        rows.extend((bytes(x) if isinstance(x, bytes) else x.tobytes(), None if ys is None else ys[i].tobytes())
                    for i, x in enumerate(xs))
    return sorted(rows)


IMAGE_CASES = [dict(shuffle=False), dict(seed=7, label_mode="categorical"),
               dict(seed=3, validation_split=0.3, subset="training", color_mode="grayscale"),
               dict(seed=3, validation_split=0.3, subset="validation", interpolation="nearest"),
               dict(shuffle=False, crop_to_aspect_ratio=True, image_size=(3, 8)),
               dict(shuffle=False, pad_to_aspect_ratio=True, image_size=(6, 2), color_mode="rgba"),
               dict(shuffle=False, labels=None, data_format="channels_first"),
               dict(shuffle=False, class_names=["owl", "cat"], batch_size=None)]


@pytest.mark.parametrize("kwargs", IMAGE_CASES, ids=[str(i) for i in range(len(IMAGE_CASES))])
def test_image_dataset_from_directory_matches_keras(image_dir, kwargs, capsys):
    kwargs = {"image_size": (4, 6), "batch_size": 4, **kwargs}
    ours = tk.utils.image_dataset_from_directory(image_dir, **kwargs)
    our_text = capsys.readouterr().out
    theirs = rk.utils.image_dataset_from_directory(image_dir, **kwargs)
    assert our_text == capsys.readouterr().out
    assert ours.class_names == theirs.class_names and ours.file_paths == theirs.file_paths
    assert repr(ours.element_spec) == repr(theirs.element_spec)
    labelled = kwargs.get("labels", "inferred") is not None
    ours_rows, theirs_rows = _rows(ours, labelled), _rows(theirs, labelled)
    if kwargs.get("interpolation") == "nearest":
        assert ours_rows == theirs_rows
    else:
        assert [y for _, y in ours_rows] == [y for _, y in theirs_rows]
        # grayscale: tf.io's decoder (Pillow's RGB-to-L weights) and libpng's differ by one level at times
        atol = 1.0 if kwargs.get("color_mode") == "grayscale" else 1e-3
        for (a, _), (b, _) in zip(ours_rows, theirs_rows):
            np.testing.assert_allclose(np.frombuffer(a, "float32"), np.frombuffer(b, "float32"), rtol=1e-5, atol=atol)


def test_image_dataset_both_subsets_match_keras(image_dir):
    ours = tk.utils.image_dataset_from_directory(image_dir, validation_split=0.4, subset="both", seed=11,
                                                 label_mode="binary" if False else "int", verbose=False)
    theirs = rk.utils.image_dataset_from_directory(image_dir, validation_split=0.4, subset="both", seed=11,
                                                   verbose=False)
    for o, t in zip(ours, theirs):
        assert o.file_paths == t.file_paths and o.class_names == t.class_names


@pytest.mark.parametrize("kwargs", [dict(labels="x"), dict(label_mode="y"), dict(color_mode="z"),
                                    dict(validation_split=2, subset="training"), dict(subset="training"),
                                    dict(validation_split=0.2, subset="a"),
                                    dict(validation_split=0.2, subset="training"),
                                    dict(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
                                    dict(labels=[0, 1]), dict(interpolation="foo"), dict(label_mode="binary"),
                                    dict(class_names=["cat", "x"]), dict(labels=None, class_names=["cat"])])
def test_image_dataset_errors_match_keras(image_dir, kwargs):
    with pytest.raises(Exception) as theirs:
        rk.utils.image_dataset_from_directory(image_dir, verbose=False, **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        tk.utils.image_dataset_from_directory(image_dir, verbose=False, **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.fixture(scope="module")
def text_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("texts")
    for cls in ("neg", "pos"):
        os.makedirs(root / cls)
        for i in range(4):
            (root / cls / f"{i}.txt").write_text(f"{cls} review {i} " * (i + 1))
    return str(root)


@pytest.mark.parametrize("kwargs", [dict(shuffle=False, max_length=12), dict(seed=4, label_mode="binary"),
                                    dict(seed=4, validation_split=0.25, subset="validation"),
                                    dict(shuffle=False, labels=None, batch_size=None),
                                    dict(shuffle=False, labels=[1, 0, 2, 2, 0, 1, 1, 0], label_mode="categorical")])
def test_text_dataset_from_directory_matches_keras(text_dir, kwargs, capsys):
    ours = tk.utils.text_dataset_from_directory(text_dir, **kwargs)
    our_text = capsys.readouterr().out
    theirs = rk.utils.text_dataset_from_directory(text_dir, **kwargs)
    assert our_text == capsys.readouterr().out
    assert ours.class_names == theirs.class_names
    assert repr(ours.element_spec) == repr(theirs.element_spec)
    labelled = kwargs.get("labels", "inferred") is not None
    if kwargs.get("batch_size", 32) is None:
        assert [x.numpy() for x in ours] == [x.numpy() for x in theirs]
    else:
        assert _rows(ours, labelled) == _rows(theirs, labelled)


def _elements(ds):
    return [tuple(np.asarray(v).tolist() for v in e) if isinstance(e, tuple) else np.asarray(e).tolist()
            for e in ds.as_numpy_iterator()]


SPLITS = [(lambda lib: np.arange(10), dict(left_size=0.8)), (lambda lib: np.arange(10), dict(left_size=0.35)),
          (lambda lib: np.arange(12.0).reshape(6, 2), dict(right_size=2)),
          (lambda lib: (np.arange(10), np.arange(10) * 2), dict(right_size=3, shuffle=True, seed=1)),
          (lambda lib: [np.arange(7), np.arange(7) % 2], dict(left_size=0.5, shuffle=True, seed=9)),
          (lambda lib: lib.data.Dataset.range(7), dict(left_size=2, right_size=3))]


@pytest.mark.parametrize("i", range(len(SPLITS)))
def test_split_dataset_matches_keras(i):
    make, kwargs = SPLITS[i]
    ours, theirs = tk.utils.split_dataset(make(tg), **kwargs), rk.utils.split_dataset(make(ref), **kwargs)
    for o, t in zip(ours, theirs):
        assert _elements(o) == _elements(t)


@pytest.mark.parametrize("kwargs", [dict(), dict(left_size=11), dict(left_size=0.6, right_size=0.6),
                                    dict(left_size=-1), dict(left_size=1.5), dict(left_size="a"), dict(left_size=0)])
def test_split_dataset_errors_match_keras(kwargs):
    with pytest.raises(Exception) as theirs:
        rk.utils.split_dataset(np.arange(10), **kwargs)
    with pytest.raises(type(theirs.value)) as ours:
        tk.utils.split_dataset(np.arange(10), **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("args", [([1, 2],), ([1, 2], 4), ([[1], [2]],), (np.array([[0, 1], [1, 0]]),), (3,),
                                  ([-1, 1], 3), (np.array(2.0),), ([[[1]], [[0]]], 2)])
def test_to_categorical_matches_keras(args):
    ours, theirs = tk.utils.to_categorical(*args), rk.utils.to_categorical(*args)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)
    tensor_ours = tk.utils.to_categorical(tg.constant([[1], [0]]), 3)
    tensor_theirs = rk.utils.to_categorical(ref.constant([[1], [0]]), 3)
    np.testing.assert_array_equal(tensor_ours.numpy(), tensor_theirs.numpy())
