"""Keras's file cache and ``keras.utils.get_file``: ``$KERAS_HOME/<cache_subdir>`` (``~/.keras/datasets``)
with Keras's file names and layouts, so files Keras downloaded are read as they are. A missing file is
downloaded into a temporary file, checked against its hash and renamed into place (an interrupted
download never leaves a half file); offline, the error names the URL and where to put the file.
Archives are extracted the same way, refusing members that would land outside their directory."""
import hashlib
import io
import os
import pickle
import shutil
import tarfile
import tempfile
import urllib.parse
import zipfile

import numpy as np

__all__ = ["get_file", "datasets_dir", "KERAS_ORIGIN", "ArraysOnlyUnpickler", "load_npz"]

KERAS_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def datasets_dir(cache_subdir="datasets", cache_dir=None):
    """``<cache_dir>/<cache_subdir>``; cache_dir is ``$KERAS_HOME``, else ``~/.keras``, else /tmp/.keras
    when that cannot be written."""
    home = os.path.expanduser(cache_dir or os.environ.get("KERAS_HOME") or os.path.join("~", ".keras"))
    try:
        os.makedirs(home, exist_ok=True)
    except OSError:
        pass
    if not os.access(home, os.W_OK):
        home = os.path.join(tempfile.gettempdir(), ".keras")
    return os.path.join(home, cache_subdir)


def _hash_of(path, file_hash, algorithm):
    """The file's hex digest: SHA-256, or MD5 when asked or (algorithm "auto") for a 32-digit hash."""
    use_md5 = algorithm == "md5" or (algorithm == "auto" and len(file_hash) != 64)
    digest = hashlib.md5() if use_md5 else hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(origin, target, file_hash, algorithm):
    """origin -> target, through a temporary file in target's directory, renamed into place when
    complete and its hash matches."""
    import urllib.request
    fd, partial = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".download-")
    try:
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(origin, timeout=60) as response:
                shutil.copyfileobj(response, out)
        except (OSError, ValueError) as e:  # urllib's URLError is an OSError
            raise ConnectionError(f"URL fetch failure on {origin}: {e}. {os.path.basename(target)} is not in the "
                                  f"cache; without a network, download that URL elsewhere and put the file at "
                                  f"{target}") from None
        if file_hash is not None and _hash_of(partial, file_hash, algorithm) != file_hash:
            raise ValueError(f"Incomplete or corrupted file detected: the file downloaded from {origin} does not "
                             f"have the expected hash {file_hash}; not saved")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def _check_member(archive, staging, name):
    path = os.path.realpath(os.path.join(staging, name))
    if not path.startswith(os.path.realpath(staging) + os.sep):
        raise ValueError(f"{archive}: refusing the archive member {name!r} (it would land outside the directory)")


def _extract(archive, destination, archive_format):
    """Extracts a tar or zip archive into ``destination`` through a temporary directory."""
    formats = {"auto": ("tar", "zip"), "tar": ("tar",), "zip": ("zip",)}.get(archive_format or "", ())
    staging = tempfile.mkdtemp(dir=os.path.dirname(destination), prefix=".extract-")
    try:
        if "tar" in formats and tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tar:
                for member in tar.getmembers():
                    _check_member(archive, staging, member.name)
                    if member.issym() or member.islnk():
                        raise ValueError(f"{archive}: refusing the link {member.name!r} in the archive")
                # (the "data" filter, where this Python has it, refuses what the checks above missed;
                # 3.14 makes it the default and 3.12+ warn without it)
                tar.extractall(staging, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        elif "zip" in formats and zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                for name in z.namelist():
                    _check_member(archive, staging, name)
                z.extractall(staging)
        else:
            raise ValueError(f"Could not extract {archive}: not a {' or '.join(formats) or 'known'} archive")
        if os.path.isdir(destination):
            shutil.rmtree(destination)
        os.replace(staging, destination)
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """Downloads ``origin`` into Keras's cache unless it is there already; the local path.

    The cached file is ``<cache_dir>/<cache_subdir>/<fname>`` (``fname`` defaults to the URL's file
    name). With ``extract=True`` the archive is kept beside its extracted directory, named as Keras
    3 names them (``data.tar.gz`` -> ``data_extracted``; ``data`` -> ``data_archive`` and ``data``), and
    the directory is returned. A cached file whose hash differs from ``file_hash`` is downloaded again.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    datadir = datasets_dir(cache_subdir, cache_dir)
    os.makedirs(datadir, exist_ok=True)
    provided = bool(fname)
    fname = os.fspath(fname) if provided else ""
    if not provided:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'. "
                             "Please specify the `fname` argument.")
    elif os.sep in fname:
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify the file's parent "
                         f"directory, use the `cache_dir` argument. Received: fname={fname}")
    extract = extract or untar
    target, extracted = os.path.join(datadir, fname), None
    if extract:
        if provided and "." in fname:
            extracted = os.path.join(datadir, fname[:fname.find(".")] + "_extracted")
        else:
            target, extracted = os.path.join(datadir, fname + "_archive"), os.path.join(datadir, fname)
        if os.path.isdir(extracted) and not force_download:  # extracted before: the archive is not needed
            return extracted
    stale = os.path.exists(target) and file_hash is not None and _hash_of(target, file_hash, hash_algorithm) != file_hash
    if force_download or stale or not os.path.exists(target):
        print(f"Downloading data from {origin}")
        _download(origin, target, file_hash, hash_algorithm)
    if extract:
        _extract(target, extracted, "tar" if untar else archive_format)
        return extracted
    return target


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
