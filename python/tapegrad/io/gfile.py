"""tf.io.gfile: TF's file functions on the local filesystem, with TF's error classes (NotFoundError, ...).

    for path in tf.io.gfile.glob("data/*.png"): ...
    with tf.io.gfile.GFile("out/log.txt", "w") as f: f.write("done")

Paths are str, bytes or os.PathLike; ``file://`` URLs are local paths and other schemes (gs://, s3://)
raise UnimplementedError. Errors name the function and the file: "gfile.remove: x.txt; No such file or
directory".
"""
import glob as _glob
import os
import shutil

from tapegrad import errors
from tapegrad.io._gfile_file import GFile
from tapegrad.io._paths import SCHEMES, as_text_path, local_path, os_error

__all__ = ["GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join", "listdir", "makedirs",
           "mkdir", "remove", "rename", "rmtree", "stat", "walk"]


def exists(path):
    """Whether a file or directory ``path`` exists."""
    return os.path.exists(local_path(path, "gfile.exists"))


def isdir(path):
    """Whether ``path`` is a directory."""
    return os.path.isdir(local_path(path, "gfile.isdir"))


def _matches(pattern, op):
    """The paths matching one glob ``pattern`` (``*``, ``?``, ``[..]``; ``**`` is ``*``), sorted; a pattern
    without a directory gives "./name", as TF does."""
    text = as_text_path(pattern, op)
    path = local_path(text, op)
    prefix = text[:len(text) - len(path)]  # "file://" comes back on the results
    found = sorted(_glob.glob(path))
    if not os.path.dirname(path):
        found = [os.path.join(".", f) for f in found]
    return [prefix + f for f in found]


def glob(pattern):
    """The files and directories matching ``pattern`` (or any of a list of patterns), as a list of str."""
    patterns = pattern if isinstance(pattern, (list, tuple)) else [pattern]
    return [f for p in patterns for f in _matches(p, "gfile.glob")]


def listdir(path):
    """The names of the entries of directory ``path`` (sorted; NotFoundError if it is not a directory)."""
    local = local_path(path, "gfile.listdir")
    if not os.path.isdir(local):
        raise errors.NotFoundError(f"gfile.listdir: Could not find directory {local}")
    return sorted(os.listdir(local))


def makedirs(path):
    """Creates directory ``path`` and its missing parents; nothing if it exists."""
    local = local_path(path, "gfile.makedirs")
    if not local:
        return
    try:
        os.makedirs(local, exist_ok=True)
    except FileExistsError:  # exist_ok covers directories only: a file is in the way
        raise errors.FailedPreconditionError(f"gfile.makedirs: {local} is not a directory") from None
    except OSError as e:
        raise os_error(e, "gfile.makedirs", local) from None


def mkdir(path):
    """Creates directory ``path``, whose parent must exist; nothing if ``path`` exists (as TF)."""
    local = local_path(path, "gfile.mkdir")
    try:
        os.mkdir(local)
    except FileExistsError:
        pass
    except OSError as e:
        raise os_error(e, "gfile.mkdir", local) from None


def remove(path):
    """Deletes file ``path`` (NotFoundError if missing, FailedPreconditionError for a directory)."""
    local = local_path(path, "gfile.remove")
    try:
        if os.path.isdir(local):  # os.remove says EPERM on some systems; TF says "Is a directory"
            raise IsADirectoryError(21, "Is a directory", local)
        os.remove(local)
    except OSError as e:
        raise os_error(e, "gfile.remove", local) from None


def _check_destination(dst, overwrite, op):
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(f"{op}: {dst}; file already exists (pass overwrite=True to replace it)")


def rename(src, dst, overwrite=False):
    """Moves ``src`` (a file or directory) to ``dst``; AlreadyExistsError if ``dst`` exists, unless
    ``overwrite`` (which replaces a file or an empty directory)."""
    s, d = local_path(src, "gfile.rename"), local_path(dst, "gfile.rename")
    if not os.path.lexists(s):
        raise errors.NotFoundError(f"gfile.rename: {s}; No such file or directory")
    _check_destination(d, overwrite, "gfile.rename")
    try:
        os.replace(s, d)
    except OSError as e:
        raise os_error(e, "gfile.rename") from None


def copy(src, dst, overwrite=False):
    """Copies file ``src`` to ``dst``; AlreadyExistsError if ``dst`` exists, unless ``overwrite``."""
    s, d = local_path(src, "gfile.copy"), local_path(dst, "gfile.copy")
    if not os.path.exists(s):
        raise errors.NotFoundError(f"gfile.copy: {s}; No such file or directory")
    if os.path.isdir(s):
        raise errors.InvalidArgumentError(f"gfile.copy: {s} is a directory; only files can be copied")
    _check_destination(d, overwrite, "gfile.copy")
    if os.path.isdir(d):
        raise errors.FailedPreconditionError(f"gfile.copy: {d}; Is a directory")
    try:
        shutil.copyfile(s, d)
    except OSError as e:
        raise os_error(e, "gfile.copy") from None


def rmtree(path):
    """Deletes directory ``path`` with everything in it (a file: just the file, as TF)."""
    local = local_path(path, "gfile.rmtree")
    if not os.path.lexists(local):
        raise errors.NotFoundError(f"gfile.rmtree: {local} not found")
    try:
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local)
        else:
            os.remove(local)
    except OSError as e:
        raise os_error(e, "gfile.rmtree") from None


class FileStatistics:
    """What ``stat`` returns: ``length`` (bytes), ``mtime_nsec`` (whole seconds in ns, as TF's local
    filesystem gives) and ``is_directory``."""

    __slots__ = ("length", "mtime_nsec", "is_directory")

    def __init__(self, length, mtime_nsec, is_directory):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


def stat(path):
    """A FileStatistics of ``path`` (NotFoundError if missing)."""
    local = local_path(path, "gfile.stat")
    try:
        st = os.stat(local)
    except OSError as e:
        raise os_error(e, "gfile.stat", local) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 1_000_000_000, os.path.isdir(local))


def walk(top, topdown=True, onerror=None):
    """``(dirname, subdirectory names, file names)`` for ``top`` and each directory under it, parents
    first (``topdown``) or last; a ``top`` that is not a directory gives nothing (``onerror`` is called
    with the NotFoundError)."""
    top = as_text_path(top, "gfile.walk")
    try:
        names = listdir(top)
    except errors.NotFoundError as e:
        if onerror is not None:
            onerror(e)
        return
    local = local_path(top, "gfile.walk")
    subdirs = [n for n in names if os.path.isdir(os.path.join(local, n))]
    files = [n for n in names if not os.path.isdir(os.path.join(local, n))]
    if topdown:
        yield top, subdirs, files
    for name in subdirs:  # (a topdown caller may have pruned subdirs, as with os.walk)
        yield from walk(os.path.join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def join(path, *paths):
    """The paths joined with "/" (an absolute component restarts the path), as os.path.join."""
    return os.path.join(path, *paths)


def get_registered_schemes():
    """The URL schemes gfile understands: "" (plain paths) and "file"."""
    return list(SCHEMES)
