"""Keras's dataset cache: ``$KERAS_HOME/datasets`` (``~/.keras/datasets``), the same file names and
layouts as Keras, so files Keras downloaded are read as they are. A missing file is downloaded from
Keras's source URL into a temporary file, checked against its SHA-256 and renamed into place (an
interrupted download never leaves a half file); offline, the error names the file and where to put it."""
import hashlib
import os
import shutil
import tarfile
import tempfile

__all__ = ["datasets_dir", "fetch", "fetch_extracted", "KERAS_ORIGIN"]

KERAS_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def datasets_dir(cache_subdir="datasets"):
    """``$KERAS_HOME/<cache_subdir>``, else ``~/.keras/<cache_subdir>``; /tmp/.keras when not writable."""
    home = os.path.expanduser(os.environ.get("KERAS_HOME") or os.path.join("~", ".keras"))
    if os.path.isdir(home) and not os.access(home, os.W_OK):
        home = os.path.join(tempfile.gettempdir(), ".keras")
    return os.path.join(home, cache_subdir)


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(origin, target, sha256, what):
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
        if sha256 is not None and _sha256(partial) != sha256:
            raise OSError(f"{what}: the file downloaded from {origin} does not have the expected SHA-256 "
                          f"{sha256}; not saved")
        os.replace(partial, target)
    finally:
        if os.path.exists(partial):
            os.remove(partial)


def fetch(fname, origin, sha256=None, what="keras.datasets", cache_subdir="datasets"):
    """The path of ``fname`` in the cache, downloaded from ``origin`` first if it is not there."""
    target = os.path.join(datasets_dir(cache_subdir), fname)
    if not os.path.exists(target):
        _download(origin, target, sha256, what)
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


def fetch_extracted(dirname, archive_name, origin, sha256=None, what="keras.datasets"):
    """The directory ``dirname`` in the cache; if missing, the tar archive ``archive_name`` (downloaded
    from ``origin`` when not cached either) is extracted to it."""
    destination = os.path.join(datasets_dir(), dirname)
    if not os.path.isdir(destination):
        _extract(fetch(archive_name, origin, sha256, what), destination)
    return destination
