"""keras.datasets read Keras's cache layout under $KERAS_HOME/datasets (small files written here in
Keras's formats); downloads go through a temporary file and a hash check; no network is used: urlopen
is replaced in every test."""
import gzip
import hashlib
import io
import os
import pickle
import tarfile
import urllib.error
import urllib.request

import numpy as np
import pytest

from tapegrad import keras
from tapegrad.keras.datasets import boston_housing, cifar10, fashion_mnist, mnist
from tapegrad.keras.utils import get_file

rng = np.random.default_rng(0)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """$KERAS_HOME/datasets in a temporary directory, with the network unreachable."""
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))

    def offline(*args, **kwargs):
        raise urllib.error.URLError("network is unreachable")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    from tapegrad.keras.datasets import imdb
    for module in (mnist, boston_housing, cifar10, imdb):  # the small files written here are not Keras's
        monkeypatch.setattr(module, "_SHA256", None)
    monkeypatch.setattr(imdb, "_WORD_INDEX_MD5", None)
    path = tmp_path / "datasets"
    path.mkdir()
    return path


def _digits(n):
    return rng.integers(0, 256, (n, 28, 28), dtype=np.uint8), rng.integers(0, 10, n, dtype=np.uint8)


def test_mnist_reads_keras_npz(cache):
    (xa, ya), (xb, yb) = _digits(5), _digits(3)
    np.savez(cache / "mnist.npz", x_train=xa, y_train=ya, x_test=xb, y_test=yb)
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
    for got, want in [(x_train, xa), (y_train, ya), (x_test, xb), (y_test, yb)]:
        np.testing.assert_array_equal(got, want)
        assert got.dtype == np.uint8


def test_offline_error_names_the_file_and_where(cache):
    with pytest.raises(ConnectionError, match="mnist.npz") as info:
        mnist.load_data()
    message = str(info.value)
    assert "storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz" in message
    assert str(cache / "mnist.npz") in message
    assert os.listdir(cache) == []  # no partial file left


def _serve(monkeypatch, payload):
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout=None: io.BytesIO(payload))


def test_download_is_checked_then_saved(cache, monkeypatch):
    buffer = io.BytesIO()
    (xa, ya), (xb, yb) = _digits(2), _digits(1)
    np.savez(buffer, x_train=xa, y_train=ya, x_test=xb, y_test=yb)
    payload = buffer.getvalue()
    _serve(monkeypatch, payload)
    monkeypatch.setattr(mnist, "_SHA256", hashlib.sha256(b"Keras's file").hexdigest())
    with pytest.raises(ValueError, match="expected hash"):  # not Keras's file: refused, nothing saved
        mnist.load_data()
    assert os.listdir(cache) == []
    monkeypatch.setattr(mnist, "_SHA256", hashlib.sha256(payload).hexdigest())
    (x_train, _), _ = mnist.load_data()
    np.testing.assert_array_equal(x_train, xa)
    assert os.listdir(cache) == ["mnist.npz"]


def _idx_gz(path, header_size, array):
    with gzip.open(path, "wb") as f:
        f.write(b"\0" * header_size + array.tobytes())


def test_fashion_mnist_reads_idx_gz_files(cache):
    folder = cache / "fashion-mnist"
    folder.mkdir()
    (xa, ya), (xb, yb) = _digits(4), _digits(2)
    _idx_gz(folder / "train-labels-idx1-ubyte.gz", 8, ya)
    _idx_gz(folder / "train-images-idx3-ubyte.gz", 16, xa)
    _idx_gz(folder / "t10k-labels-idx1-ubyte.gz", 8, yb)
    _idx_gz(folder / "t10k-images-idx3-ubyte.gz", 16, xb)
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, xa)
    np.testing.assert_array_equal(y_test, yb)
    assert x_test.shape == (2, 28, 28) and y_train.shape == (4,)


def test_boston_housing_split_as_keras(cache):
    x = rng.normal(size=(10, 13))
    y = rng.normal(size=10)
    np.savez(cache / "boston_housing.npz", x=x, y=y)
    (x_train, y_train), (x_test, y_test) = boston_housing.load_data(test_split=0.2, seed=113)
    order = np.arange(10)
    np.random.RandomState(113).shuffle(order)
    np.testing.assert_array_equal(x_train, x[order[:8]])
    np.testing.assert_array_equal(y_test, y[order[8:]])
    with pytest.raises(ValueError, match="test_split"):
        boston_housing.load_data(test_split=1.5)


def _cifar_batches(folder, n=2):
    """Six batch pickles as CIFAR's (dicts with bytes keys); returns the arrays written."""
    folder.mkdir(parents=True)
    written = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        data = rng.integers(0, 256, (n, 3072), dtype=np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, n)]
        with open(folder / name, "wb") as f:
            pickle.dump({b"batch_label": b"x", b"labels": labels, b"data": data}, f, protocol=2)
        written[name] = (data, labels)
    return written


@pytest.mark.parametrize("layout", [("cifar-10-batches-py-target", "cifar-10-batches-py"), ("cifar-10-batches-py",)])
def test_cifar10_reads_keras3_and_keras2_layouts(cache, layout):
    written = _cifar_batches(cache.joinpath(*layout))
    (x_train, y_train), (x_test, y_test) = cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and y_train.shape == (10, 1) and y_train.dtype == np.uint8
    data, labels = written["data_batch_2"]
    np.testing.assert_array_equal(x_train[2], data[0].reshape(3, 32, 32).transpose(1, 2, 0))
    assert y_train[2:4, 0].tolist() == labels
    assert x_test.shape == (2, 32, 32, 3) and y_test[:, 0].tolist() == written["test_batch"][1]


def test_cifar10_channels_first(cache):
    _cifar_batches(cache / "cifar-10-batches-py")
    keras.backend.set_image_data_format("channels_first")
    try:
        (x_train, _), _ = cifar10.load_data()
    finally:
        keras.backend.set_image_data_format("channels_last")
    assert x_train.shape == (10, 3, 32, 32)


def test_cifar10_extracts_a_cached_archive(cache, tmp_path):
    written = _cifar_batches(tmp_path / "src" / "cifar-10-batches-py")
    with tarfile.open(cache / "cifar-10-batches-py-target_archive", "w:gz") as tar:
        tar.add(tmp_path / "src" / "cifar-10-batches-py", arcname="cifar-10-batches-py")
    (_, y_train), _ = cifar10.load_data()
    assert y_train[:2, 0].tolist() == written["data_batch_1"][1]
    assert (cache / "cifar-10-batches-py-target" / "cifar-10-batches-py" / "test_batch").exists()


class _Evil:
    def __reduce__(self):
        return (os.getcwd, ())


def test_cifar10_refuses_a_pickle_with_code(cache):
    folder = cache / "cifar-10-batches-py"
    _cifar_batches(folder)
    with open(folder / "data_batch_1", "wb") as f:
        pickle.dump({b"data": _Evil(), b"labels": []}, f, protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        cifar10.load_data()


def _imdb_file(path):
    """A small imdb.npz: ragged object arrays of word indices, as Keras's file holds them."""
    gen = np.random.default_rng(1)

    def reviews(n):
        out = np.empty(n, dtype=object)
        out[:] = [list(map(int, gen.integers(1, 40, gen.integers(1, 12)))) for _ in range(n)]
        return out
    np.savez(path, x_train=reviews(9), y_train=gen.integers(0, 2, 9), x_test=reviews(7), y_test=gen.integers(0, 2, 7))


# keras.datasets.imdb.load_data of Keras 3.15 on that file
IMDB_EXPECTED = [
    (dict(num_words=20, skip_top=5, oov_char=None),
     [[[5, 9], [13, 16, 14, 14, 19, 7], [16, 8, 15, 8], [15, 8], [15, 14, 10, 16], [6, 14, 8, 7], [], [9, 18, 19], [14]],
      [0, 1, 1, 1, 0, 0, 0, 1, 1],
      [[7, 12], [11, 17, 11], [6, 9, 6], [14, 12], [12, 14, 17], [18, 6], [16, 14, 13]], [1, 1, 1, 1, 1, 1, 1]]),
    (dict(maxlen=8, seed=3),
     [[[1, 37], [1, 2, 9, 18, 19, 39], [1, 23, 14, 4], [1, 23, 33, 41, 5, 9, 36], [1, 24, 15, 8, 20, 28]],
      [0, 1, 1, 0, 1], [[1, 38, 21, 18, 6, 21, 29], [1, 7, 12, 37, 30, 37, 36], [1, 36, 2, 14, 22, 12]], [1, 1, 1]]),
]


@pytest.mark.parametrize("kwargs, expected", IMDB_EXPECTED, ids=["vocabulary", "maxlen"])
def test_imdb_matches_keras(cache, kwargs, expected):
    from tapegrad.keras.datasets import imdb
    _imdb_file(cache / "imdb.npz")
    (x_train, y_train), (x_test, y_test) = imdb.load_data(**kwargs)
    assert x_train.dtype == object and x_train.ndim == 1
    got = [[list(r) for r in x_train], y_train.tolist(), [list(r) for r in x_test], y_test.tolist()]
    assert got == expected
    with pytest.raises(ValueError, match="maxlen"):
        imdb.load_data(maxlen=1)


def test_imdb_refuses_code_in_the_npz_and_reads_the_word_index(cache):
    from tapegrad.keras.datasets import imdb
    evil = np.empty(1, dtype=object)
    evil[0] = _Evil()
    np.savez(cache / "imdb.npz", x_train=evil, y_train=np.zeros(1), x_test=evil, y_test=np.zeros(1))
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        imdb.load_data()
    (cache / "imdb_word_index.json").write_text('{"the": 1, "and": 2}')
    assert imdb.get_word_index() == {"the": 1, "and": 2}


def test_get_file_names_and_layout_as_keras(cache, monkeypatch, tmp_path, capsys):
    _serve(monkeypatch, b"abc")
    path = get_file(origin="https://example.com/data/file.txt")
    assert path == str(cache / "file.txt") and (cache / "file.txt").read_bytes() == b"abc"
    assert capsys.readouterr().out == "Downloading data from https://example.com/data/file.txt\n"
    assert get_file("other.txt", "https://example.com/x", cache_subdir="sub") == str(tmp_path / "sub" / "other.txt")
    custom = tmp_path / "custom"
    assert get_file("f", "https://example.com/x", cache_dir=str(custom)) == str(custom / "datasets" / "f")
    with pytest.raises(ValueError, match="origin"):
        get_file("f")
    with pytest.raises(ValueError, match="cache_dir"):
        get_file(os.path.join("a", "b"), "https://example.com/x")


def _tar_gz(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_get_file_extracts_tar_and_zip(cache, monkeypatch):
    _serve(monkeypatch, _tar_gz({"inner/a.txt": b"A"}))
    out = get_file("pack.tar.gz", "https://example.com/pack.tar.gz", extract=True)
    assert out == str(cache / "pack_extracted") and (cache / "pack.tar.gz").exists()
    assert (cache / "pack_extracted" / "inner" / "a.txt").read_bytes() == b"A"
    buffer = io.BytesIO()
    import zipfile
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("b.txt", "B")
    _serve(monkeypatch, buffer.getvalue())
    out = get_file("zipped", "https://example.com/z.zip", extract=True)
    assert out == str(cache / "zipped") and (cache / "zipped_archive").exists()
    assert (cache / "zipped" / "b.txt").read_text() == "B"


def test_get_file_refuses_an_archive_escaping_its_directory(cache, monkeypatch):
    _serve(monkeypatch, _tar_gz({"../escape.txt": b"x"}))
    with pytest.raises(ValueError, match="outside"):
        get_file("bad.tar.gz", "https://example.com/bad.tar.gz", extract=True)
    assert not (cache.parent / "escape.txt").exists() and not (cache / "bad_extracted").exists()


def test_get_file_hashes(cache, monkeypatch):
    _serve(monkeypatch, b"new")
    (cache / "f.bin").write_bytes(b"old")
    md5_new = hashlib.md5(b"new").hexdigest()
    get_file("f.bin", "https://example.com/f", md5_hash=md5_new)  # the cached file is stale: downloaded again
    assert (cache / "f.bin").read_bytes() == b"new"
    sha_new = hashlib.sha256(b"new").hexdigest()
    _serve(monkeypatch, b"never read")
    assert get_file("f.bin", "https://example.com/f", file_hash=sha_new) == str(cache / "f.bin")  # current: kept
    assert (cache / "f.bin").read_bytes() == b"new"
    with pytest.raises(ValueError, match="expected hash"):
        get_file("g.bin", "https://example.com/g", file_hash=hashlib.sha256(b"other").hexdigest())
    assert not (cache / "g.bin").exists()
