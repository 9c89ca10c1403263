"""The one way tapegrad replaces a file: write a temporary file beside it, sync it, rename it over.

A reader never sees a half-written file, and a write that fails (or is killed) leaves the previous
file whole. Every file the package saves (checkpoints, their state file, model and weights files)
goes through here.
"""
import contextlib
import os
import tempfile

__all__ = ["atomic_write", "atomic_write_all", "atomic_path"]


def _temporary_beside(path, make_parents):
    directory = os.path.dirname(os.path.abspath(path))
    if make_parents:
        os.makedirs(directory, exist_ok=True)
    return tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)


def _remove_quietly(paths):
    for tmp in paths:
        try:
            os.remove(tmp)
        except OSError:
            pass


def atomic_write(path, write, make_parents=True):
    """Calls write(file) on a temporary binary file next to path, syncs it, and renames it to path.
    Missing directories on the way to path are created first unless make_parents is False
    (Keras's model files are not: saving into a missing folder raises there)."""
    atomic_write_all([(path, write)], make_parents)


def atomic_write_all(files, make_parents=True):
    """Writes every (path, write) to a temporary file next to it and syncs them all, then renames each
    over its path in order: a failure while writing leaves every previous file whole."""
    pending = []
    try:
        for path, write in files:
            fd, tmp = _temporary_beside(path, make_parents)
            pending.append(tmp)
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
        for (path, _), tmp in zip(files, list(pending)):
            os.replace(tmp, path)
            pending.remove(tmp)
    except BaseException:
        _remove_quietly(pending)
        raise


@contextlib.contextmanager
def atomic_path(path):
    """For writers that need a file name (h5py): yields a temporary path next to path; when the block
    ends without an error, that file is synced and renamed to path, otherwise removed."""
    fd, tmp = _temporary_beside(path, False)
    os.close(fd)
    try:
        yield tmp
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _remove_quietly([tmp])
        raise
