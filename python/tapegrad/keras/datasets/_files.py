"""Keras's dataset cache: ``$KERAS_HOME/datasets`` (``~/.keras/datasets``), the same file names and
layouts as Keras, so files Keras downloaded are read as they are. A missing file is downloaded from
Keras's source URL into a temporary file, checked against its SHA-256 and renamed into place (an
interrupted download never leaves a half file); offline, the error names the file and where to put it."""
import hashlib
import io
import os
import pickle
import shutil
import tarfile
import tempfile
import zipfile

import numpy as np

__all__ = ["datasets_dir", "fetch", "fetch_extracted", "KERAS_ORIGIN", "ArraysOnlyUnpickler", "load_npz"]

KERAS_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def datasets_dir(cache_subdir="datasets"):
    """``$KERAS_HOME/<cache_subdir>``, else ``~/.keras/<cache_subdir>``; /tmp/.keras when not writable."""
    home = os.path.expanduser(os.environ.get("KERAS_HOME") or os.path.join("~", ".keras"))
    if os.path.isdir(home) and not os.access(home, os.W_OK):
        home = os.path.join(tempfile.gettempdir(), ".keras")
    return os.path.join(home, cache_subdir)


def _digest(path, expected):
    """The file's hex digest in the algorithm of ``expected`` (32 hex digits: MD5, as Keras's older hashes)."""
    digest = hashlib.md5() if len(expected) == 32 else hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(origin, target, file_hash, what):
    """origin -> target, through a temporary file in target's directory, renamed into place when
    complete and its hash matches."""
    import urllib.request
    os.makedirs(os.path.dirname(target), exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".download-")
    try:
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(origin, timeout=60) as response:
                shutil.copyfileobj(response, out)
        except (OSError, ValueError) as e:  # urllib's URLError is an OSError
            raise ConnectionError(f"{what}: {os.path.basename(target)} is not in the cache and downloading it "
                                  f"from {origin} failed ({e}). Without a network, download that URL elsewhere "
                                  f"and put the file at {target}") from None
        if file_hash is not None and _digest(partial, file_hash) != file_hash:
            raise OSError(f"{what}: the file downloaded from {origin} does not have the expected hash "
                          f"{file_hash} (SHA-256, or MD5 for 32 digits); not saved")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def fetch(fname, origin, file_hash=None, what="keras.datasets", cache_subdir="datasets"):
    """The path of ``fname`` in the cache, downloaded from ``origin`` first if it is not there."""
    target = os.path.join(datasets_dir(cache_subdir), fname)
    if not os.path.exists(target):
        _download(origin, target, file_hash, what)
    return target


def _extract(archive, destination):
    """Extracts a tar archive into ``destination`` through a temporary directory (members that would
    land outside it are refused)."""
    parent = os.path.dirname(destination)
    staging = tempfile.mkdtemp(dir=parent, prefix=".extract-")
    try:
        with tarfile.open(archive) as tar:
            root = os.path.realpath(staging)
            for member in tar.getmembers():
                path = os.path.realpath(os.path.join(staging, member.name))
                if not path.startswith(root + os.sep) or member.issym() or member.islnk():
                    raise OSError(f"{archive}: refusing the archive member {member.name!r}")
            tar.extractall(staging)
        os.replace(staging, destination)
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)


def fetch_extracted(dirname, archive_name, origin, file_hash=None, what="keras.datasets"):
    """The directory ``dirname`` in the cache; if missing, the tar archive ``archive_name`` (downloaded
    from ``origin`` when not cached either) is extracted to it."""
    destination = os.path.join(datasets_dir(), dirname)
    if not os.path.isdir(destination):
        _extract(fetch(archive_name, origin, file_hash, what), destination)
    return destination


class ArraysOnlyUnpickler(pickle.Unpickler):
    """Unpickles NumPy arrays, lists, dicts and numbers and nothing else (a pickle can run any code)."""

    _ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
                ("numpy", "ndarray"), ("numpy", "dtype"),
                ("_codecs", "encode")}  # how protocol 2 stores bytes written by Python 3

    def find_class(self, module, name):
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name} from a dataset file")
        return super().find_class(module, name)


def load_npz(path):
    """The arrays of an .npz file; object arrays (ragged lists) are unpickled by ArraysOnlyUnpickler
    instead of np.load's allow_pickle, which would run whatever the file says."""
    arrays = {}
    with zipfile.ZipFile(path) as archive:
        for member in archive.namelist():
            if member.endswith(".npy"):
                arrays[member[:-4]] = _load_npy(io.BytesIO(archive.read(member)))
    return arrays


def _load_npy(f):
    version = np.lib.format.read_magic(f)
    read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
    shape, fortran, dtype = read_header(f)
    if dtype.hasobject:
        return np.asarray(ArraysOnlyUnpickler(f, encoding="latin1").load())
    f.seek(0)
    return np.lib.format.read_array(f, allow_pickle=False)
