"""File names for tf.io and tf.io.gfile: local paths only, and OSErrors as TF's error classes."""
import errno
import os
import re

from tapegrad import errors

__all__ = ["local_path", "as_text_path", "os_error", "SCHEMES"]

SCHEMES = ["", "file"]  # what get_registered_schemes lists: the local filesystem only
_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def as_text_path(name, op):
    """``name`` (str, bytes or os.PathLike) as a str; TypeError for anything else, as TF's file functions."""
    if isinstance(name, (str, bytes, os.PathLike)):
        path = os.fspath(name)
        return os.fsdecode(path) if isinstance(path, bytes) else path
    raise TypeError(f"{op}: Expected binary or unicode string, got {name!r}")


def local_path(name, op):
    """The local path ``name`` names: a ``file://`` prefix is dropped; other URL schemes (gs://, s3://,
    hdfs://) raise UnimplementedError, as TF does for a scheme it has no filesystem for."""
    path = as_text_path(name, op)
    match = _URL.match(path)
    if match is None:
        return path
    if match.group(1) == "file":
        return path[len("file://"):]
    raise errors.UnimplementedError(f"{op}: File system scheme '{match.group(1)}' not implemented (file: "
                                    f"'{path}'); tapegrad reads and writes local files only")


# TF's status codes for the errors a local filesystem reports
_CLASS_OF_ERRNO = {
    errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
    errno.EISDIR: errors.FailedPreconditionError, errno.ENOTDIR: errors.FailedPreconditionError,
    errno.ENOTEMPTY: errors.FailedPreconditionError, errno.EACCES: errors.PermissionDeniedError,
    errno.EPERM: errors.PermissionDeniedError, errno.EROFS: errors.PermissionDeniedError,
    errno.EINVAL: errors.InvalidArgumentError, errno.ENAMETOOLONG: errors.InvalidArgumentError,
    errno.ENOSPC: errors.ResourceExhaustedError, errno.EXDEV: errors.UnimplementedError,
}


def os_error(e, op, path=None):
    """The TF error for OSError ``e`` from ``op`` on ``path``: "op: path; No such file or directory"."""
    cls = _CLASS_OF_ERRNO.get(e.errno, errors.UnknownError)
    where = path if path is not None else (e.filename if e.filename is not None else "")
    return cls(f"{op}: {os.fsdecode(where)}; {e.strerror or e}")
