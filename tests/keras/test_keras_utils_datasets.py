"""keras.utils image_dataset_from_directory, text_dataset_from_directory, split_dataset and
to_categorical (Keras's file order, labels, messages and errors; compared with Keras itself in
tests/oracle/test_tf_oracle_keras_utils.py). Decoding images needs Pillow."""
import os
import random

import numpy as np
import pytest

import tapegrad as tf
from tapegrad import keras

utils = keras.utils


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


@pytest.fixture
def text_dir(tmp_path):
    for cls in ("neg", "pos"):
        for i in range(3):
            _write(str(tmp_path / cls / f"{i}.txt"), f"{cls} text number {i} ".encode() * (i + 1))
    _write(str(tmp_path / "pos" / "skip.md"), b"not a .txt file")
    return str(tmp_path)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _texts(ds):
    return [(bytes(x), int(y)) for xs, ys in ds for x, y in zip(xs.numpy(), ys.numpy())]


def test_text_dataset_labels_order_and_message(text_dir, capsys):
    ds = utils.text_dataset_from_directory(text_dir, batch_size=2, shuffle=False, max_length=10)
    assert "Found 6 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["neg", "pos"]
    assert ds.element_spec[0].dtype == tf.string and ds.element_spec[1] == tf.TensorSpec([None], tf.int32)
    assert _texts(ds) == [(b"neg text n", 0)] * 3 + [(b"pos text n", 1)] * 3


def test_text_dataset_shuffles_files_with_numpy_seed(text_dir):
    paths = [os.path.join(text_dir, c, f"{i}.txt") for c in ("neg", "pos") for i in range(3)]
    np.random.RandomState(5).shuffle(paths)
    tr, va = utils.text_dataset_from_directory(text_dir, validation_split=0.34, subset="both", seed=5,
                                               label_mode="categorical", verbose=False)
    expected = {_read(p): p.split(os.sep)[-2] == "pos" for p in paths}
    got_va = {bytes(x): bool(np.argmax(y)) for xs, ys in va for x, y in zip(xs.numpy(), ys.numpy())}
    assert set(got_va) == {_read(p) for p in paths[-2:]}  # the last int(0.34 * 6) files
    assert all(expected[k] == v for k, v in got_va.items())
    assert len(list(tr.unbatch())) == 4 and tr.element_spec[1].shape.as_list() == [None, 2]


def test_text_dataset_without_labels_and_binary(text_dir):
    ds = utils.text_dataset_from_directory(text_dir, labels=None, batch_size=None, shuffle=False, verbose=False)
    assert ds.element_spec == tf.TensorSpec([], tf.string) and ds.class_names is None
    assert len(list(ds)) == 6
    ds = utils.text_dataset_from_directory(text_dir, label_mode="binary", shuffle=False, verbose=False)
    assert ds.element_spec[1] == tf.TensorSpec([None, 1], tf.float32)
    np.testing.assert_array_equal(next(iter(ds))[1].numpy().ravel(), [0, 0, 0, 1, 1, 1])


@pytest.mark.parametrize("kwargs, message", [
    (dict(labels="q"), "only contains text samples"),
    (dict(label_mode="y"), "`label_mode` argument must be one of"),
    (dict(validation_split=2, subset="training"), "`validation_split` must be between 0 and 1, received: 2"),
    (dict(subset="training"), "If `subset` is set, `validation_split` must be set, and inversely."),
    (dict(validation_split=0.2, subset="a"), '`subset` must be either "training", "validation" or "both"'),
    (dict(validation_split=0.2, subset="training"), "you must provide a `seed` argument"),
    (dict(class_names=["neg", "x"]), "did not match the names of the subdirectories"),
    (dict(labels=None, class_names=["neg"]), "When `labels=None` \\(no labels\\)"),
    (dict(labels=[0, 1], class_names=["neg"]), "You can only pass `class_names` if `labels=\"inferred\"`"),
    (dict(labels=[0, 1]), "len\\(labels\\) is 2 while we found 6 files"),
    (dict(label_mode="binary", class_names=["pos"]), "there must be exactly 2 class_names"),
])
def test_text_dataset_errors(text_dir, kwargs, message):
    with pytest.raises(ValueError, match=message):
        utils.text_dataset_from_directory(text_dir, verbose=False, **kwargs)


def test_directory_errors(tmp_path):
    os.makedirs(tmp_path / "a")
    with pytest.raises(ValueError, match="No text files found in directory"):
        utils.text_dataset_from_directory(str(tmp_path), verbose=False)
    with pytest.raises(ValueError, match=r"No images found in directory .*Allowed formats: \('.bmp'"):
        utils.image_dataset_from_directory(str(tmp_path), verbose=False)
    with pytest.raises(FileNotFoundError):
        utils.image_dataset_from_directory(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="`color_mode` must be one of"):
        utils.image_dataset_from_directory(str(tmp_path), color_mode="cmyk")
    with pytest.raises(ValueError, match="Argument `interpolation` should be one of"):
        utils.image_dataset_from_directory(str(tmp_path), interpolation="foo")


def test_labels_list_gives_class_names_of_its_values(text_dir):
    ds = utils.text_dataset_from_directory(text_dir, labels=[0, 3, 2, 0, 3, 2], shuffle=False, verbose=False)
    assert ds.class_names == ["0", "2", "3"]
    np.testing.assert_array_equal(next(iter(ds))[1].numpy(), [0, 3, 2, 0, 3, 2])


@pytest.fixture
def image_dir(tmp_path):
    pytest.importorskip("PIL.Image")
    rng = np.random.RandomState(0)
    pixels = {}
    for cls, n in (("cat", 2), ("dog", 3)):
        for i in range(n):
            a = rng.randint(0, 256, (5 + i, 7, 3)).astype("uint8")
            path = str(tmp_path / cls / f"{i}.png")
            _write(path, tf.io.encode_png(a).numpy())
            pixels[path] = a
    return str(tmp_path), pixels


def test_image_dataset_resizes_and_labels(image_dir):
    root, pixels = image_dir
    ds = utils.image_dataset_from_directory(root, image_size=(4, 6), batch_size=2, shuffle=False, verbose=False)
    assert ds.class_names == ["cat", "dog"] and ds.file_paths == sorted(pixels)
    assert ds.element_spec[0] == tf.TensorSpec([None, 4, 6, 3], tf.float32)
    images = np.concatenate([x.numpy() for x, _ in ds])
    for got, path in zip(images, ds.file_paths):
        np.testing.assert_allclose(got, tf.image.resize(pixels[path], (4, 6)).numpy(), rtol=1e-6)
    np.testing.assert_array_equal(np.concatenate([y.numpy() for _, y in ds]), [0, 0, 1, 1, 1])


def test_image_dataset_modes(image_dir):
    root, pixels = image_dir
    first = sorted(pixels)[0]  # 5 x 7
    ds = utils.image_dataset_from_directory(root, image_size=(4, 2), batch_size=None, shuffle=False, verbose=False,
                                            pad_to_aspect_ratio=True, interpolation="nearest", color_mode="rgba")
    image = next(iter(ds))[0].numpy()
    assert image.dtype == np.uint8 and image.shape == (4, 2, 4)  # nearest keeps uint8, as tf.image.resize
    np.testing.assert_array_equal(image[..., 3], [[0, 0], [255, 255], [0, 0], [0, 0]])  # resized 1 x 2, centred
    ds = utils.image_dataset_from_directory(root, labels=None, image_size=(4, 2), batch_size=None, shuffle=False,
                                            verbose=False, crop_to_aspect_ratio=True, data_format="channels_first")
    image = next(iter(ds)).numpy()
    window = pixels[first][:, 2:4]  # the central 5 x 2 window of aspect ratio 2: int(5 * 2 / 4) columns
    np.testing.assert_allclose(image, np.transpose(tf.image.resize(window, (4, 2)).numpy(), (2, 0, 1)), rtol=1e-6)
    with pytest.raises(ValueError, match="Only one of `pad_to_aspect_ratio`, `crop_to_aspect_ratio`"):
        utils.image_dataset_from_directory(root, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True, verbose=False)


def test_image_dataset_shuffled_file_paths(image_dir):
    root, pixels = image_dir
    expected = sorted(pixels)
    np.random.RandomState(3).shuffle(expected)
    tr, va = utils.image_dataset_from_directory(root, image_size=(3, 3), seed=3, validation_split=0.4,
                                                subset="both", verbose=False)
    assert tr.file_paths == expected[:3] and va.file_paths == expected[3:]


def test_split_dataset_sizes_and_order():
    left, right = utils.split_dataset(np.arange(10), left_size=0.35)
    assert list(left.as_numpy_iterator()) == [0, 1, 2, 3] and list(right.as_numpy_iterator()) == list(range(4, 10))
    left, right = utils.split_dataset(tf.data.Dataset.range(7), left_size=2, right_size=3)
    assert list(left.as_numpy_iterator()) == [0, 1] and list(right.as_numpy_iterator()) == [4, 5, 6]
    order = list(range(10))
    random.Random(1).shuffle(order)
    left, right = utils.split_dataset((np.arange(10), np.arange(10) * 2), right_size=3, shuffle=True, seed=1)
    assert [int(a) for a, _ in left.as_numpy_iterator()] == order[:7]
    assert [(int(a), int(b)) for a, b in right.as_numpy_iterator()] == [(i, 2 * i) for i in order[7:]]


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(), ValueError, "At least one of the `left_size` or `right_size` must be specified"),
    (dict(left_size=10), ValueError, "positive integer smaller than 10"),
    (dict(left_size=0), ValueError, "positive integer smaller than 10"),
    (dict(left_size=1.5), ValueError, "Received: left_size=1.5"),
    (dict(left_size=0.6, right_size=0.6), ValueError, "The sum of `left_size` and `right_size` is greater than 1"),
    (dict(left_size=6, right_size=6), ValueError, "should be smaller than the total"),
    (dict(left_size="a"), TypeError, "Invalid `left_size` Type"),
])
def test_split_dataset_errors(kwargs, error, message):
    with pytest.raises(error, match=message):
        utils.split_dataset(np.arange(10), **kwargs)
    with pytest.raises(TypeError, match="Unsupported dataset type"):
        utils.split_dataset({"a": np.arange(3)}, left_size=1)


def test_to_categorical_edge_cases():
    out = utils.to_categorical([[1], [2]])
    assert out.shape == (2, 3) and out.dtype == np.float64
    np.testing.assert_array_equal(out, [[0, 1, 0], [0, 0, 1]])
    assert utils.to_categorical(np.array([[0, 1], [1, 0]])).shape == (2, 2, 2)
    np.testing.assert_array_equal(utils.to_categorical(3), [0, 0, 0, 1])
    np.testing.assert_array_equal(utils.to_categorical([-1, 1], 3), [[0, 0, 1], [0, 1, 0]])
    t = utils.to_categorical(tf.constant([[1], [0]]), 3)
    assert t.dtype == tf.float32
    np.testing.assert_array_equal(t.numpy(), [[0, 1, 0], [1, 0, 0]])
    with pytest.raises(IndexError):
        utils.to_categorical([1, 5], 3)
    assert keras.preprocessing.image_dataset_from_directory is utils.image_dataset_from_directory
    assert keras.preprocessing.text_dataset_from_directory is utils.text_dataset_from_directory
